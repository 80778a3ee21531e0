// example-storage-checkpoint: `period` after the start or a GO, the coordinator sends STOP(r) for a
// blocking checkpoint of all nodes to stable storage; a failure restarts all from the last complete one.
//  node:        STOP(r) -> pause; once quiescent, MARKER to every other node; with all of theirs in
//               (FIFO channels: what they sent it is in), write its snapshot; once written, SAVED
//  coordinator: all SAVED -> r is committed, GO. Failure notice -> RESTORE(c), c the last committed
//  node:        RESTORE(c) -> abort, read back and restore (c = 0: the input), RESTORED
//  coordinator: all RESTORED -> GO (if c = 0, the nodes send their initial values again)
// Messages and storage answers of an older epoch (a recovery ended them) are ignored.
#include "protocols/protocol_module.hpp"
#include "sim/node/codec.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols {
namespace {
using namespace node;

class StorageCheckpointProtocol final : public Protocol {
public:
  StorageCheckpointProtocol(double period, bool coordinator) : period_(period), coordinator_(coordinator) {}
  void on_start(ProtocolContext& ctx) override { if (coordinator_) ctx.set_timer(period_, 0); }
  void on_timer(ProtocolContext& ctx, std::uint64_t epoch) override {  // coordinator
    if (epoch == ctx.epoch() && phase_ == Phase::running) begin(ctx, Phase::saving, kStop, ++round_);
  }
  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) override {
    if (!coordinator_) return;  // a node waits for RESTORE
    ctx.set_epoch(notice.sequence);
    notices_.push_back(notice);
    begin(ctx, Phase::restoring, kRestore, committed_);  // a checkpoint under way is abandoned
  }
  void on_restart(ProtocolContext& ctx, const RestartInfo& info) override {
    ctx.set_epoch(info.last_sequence);
    ctx.runtime().pause();
    phase_ = Phase::replacement;  // it holds nothing: it must join no checkpoint, only a RESTORE
  }
  ReceiveVerdict on_receive(ProtocolContext& ctx, const Message& m) override {
    return m.epoch < ctx.epoch() ? ReceiveVerdict::drop_orphan : ReceiveVerdict::accept;
  }
  void on_task_completed(ProtocolContext& ctx, TaskId, bool) override { checkpoint(ctx); }
  void on_data_released(ProtocolContext& ctx, const Message&) override { checkpoint(ctx); }
  void on_control(ProtocolContext& ctx, const Message& m) override {
    if (m.epoch < ctx.epoch()) return;
    if (coordinator_) return answered(ctx);  // SAVED or RESTORED, of this epoch
    if (phase_ == Phase::replacement && m.control_type != kRestore) return;
    ProtocolRuntime runtime = ctx.runtime();
    round_ = decode<Round>(m).round;  // every message names the checkpoint it is about
    if (m.control_type == kStop) {
      runtime.pause();
      phase_ = Phase::flushing;
    } else if (m.control_type == kMarker) {
      ++markers_;
    } else if (m.control_type == kGo) {
      runtime.resume();
      if (round_ == 0) runtime.send_initial_values();  // back at the input
      phase_ = Phase::running;
    } else if (m.control_type == kRestore) {
      ctx.set_epoch(m.epoch);
      runtime.abort();
      runtime.pause();
      phase_ = Phase::restoring;
      markers_ = 0;
      if (round_ == 0) return restore(ctx, runtime.initial_snapshot());
      return ctx.storage_read(ctx.node() % ctx.storage_servers(), key(ctx, round_), m.epoch);
    }
    checkpoint(ctx);
  }
  void on_storage_done(ProtocolContext& ctx, std::uint64_t epoch, const Bytes* content) override {
    if (epoch != ctx.epoch()) return;  // asked before a recovery
    if (!content) return send(ctx, ctx.coordinator(), kSaved, round_);  // written (a read finds it)
    WireReader in(*content);
    restore(ctx, NodeSnapshot::decode(in));
  }

private:
  enum Type : std::uint32_t { kStop = 1, kMarker, kSaved, kRestore, kRestored, kGo };
  struct Round { std::uint32_t round = 0; template <class F> void fields(F& f) { f(round); } };  // every body
  enum class Phase { running, flushing, marked, saving, restoring, replacement };
  void checkpoint(ProtocolContext& ctx) {  // node: markers once quiescent; with all in, write
    if (phase_ == Phase::flushing && ctx.runtime().quiescent()) {
      phase_ = Phase::marked;
      for (NodeId n = 0; n < ctx.node_count(); ++n) {
        if (n != ctx.node()) send(ctx, n, kMarker, round_);
      }
    }
    if (phase_ != Phase::marked || markers_ + 1 < ctx.node_count()) return;
    phase_ = Phase::saving;
    markers_ = 0;
    const NodeSnapshot snapshot = ctx.runtime().snapshot();
    Bytes content;
    WireWriter out(content);
    snapshot.encode(out);
    ctx.storage_write(ctx.node() % ctx.storage_servers(), key(ctx, round_), std::move(content), snapshot.bytes, ctx.epoch());
  }
  void restore(ProtocolContext& ctx, const NodeSnapshot& snapshot) {
    ctx.runtime().restore(snapshot);
    ctx.runtime().rebuild();
    send(ctx, ctx.coordinator(), kRestored, round_);
  }
  void answered(ProtocolContext& ctx) {  // coordinator: once every node has, GO
    if (++answers_ < ctx.node_count()) return;
    if (phase_ == Phase::saving) committed_ = round_;
    for (const FailureNotice& notice : notices_) ctx.record_recovered(notice);  // (`none` also reports effects)
    notices_.clear();
    begin(ctx, Phase::running, kGo, committed_);
    ctx.set_timer(period_, ctx.epoch());
  }
  void begin(ProtocolContext& ctx, Phase phase, Type type, std::uint32_t round) {  // coordinator
    phase_ = phase;
    answers_ = 0;
    for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, type, round);
  }
  static std::uint64_t key(ProtocolContext& ctx, std::uint32_t round) { return std::uint64_t{ctx.node()} << 32 | round; }
  static void send(ProtocolContext& ctx, NodeId to, Type type, std::uint32_t round) {
    ctx.send_control(to, type, encode(Round{round}));  // (its fields: sim/node/codec.hpp)
  }
  double period_;
  bool coordinator_;
  Phase phase_ = Phase::running;
  std::uint32_t round_ = 0;             // the checkpoint being taken or restored
  std::uint32_t committed_ = 0;         // coordinator: the last one every node wrote
  std::uint32_t markers_ = 0;           // node: markers in from the others
  std::uint32_t answers_ = 0;           // coordinator: SAVED or RESTORED of this epoch
  std::vector<FailureNotice> notices_;  // coordinator: failures whose recovery is under way
};

void check(const config::Config& config, config::JsonReader& block) {
  if (config.platform.storage.hosts == 0) block.fail("it writes to stable storage: set /platform/storage/hosts");
  block.at("period").as_positive_seconds();
  block.finish();
}
ProtocolFactory factory(const config::Config& config, const graphs::TaskGraph&) {
  const double period = config::JsonReader(config.protocol.block, config.file, "/protocol").at("period").as_positive_seconds();
  return [period](NodeId, bool coordinator) { return std::make_unique<StorageCheckpointProtocol>(period, coordinator); };
}
CampaignDraw campaign(std::mt19937_64& random, double makespan) {
  const double period = makespan * std::uniform_real_distribution<double>(0.05, 0.5)(random);
  return {{{"protocol", {{"type", "example-storage-checkpoint"}, {"period", period}}}}, false};
}

}  // namespace

extern const ProtocolModule example_storage_checkpoint_module = {
    "example-storage-checkpoint", "an example: periodic blocking checkpoints to stable storage, a global restart",
    check, factory, {}, campaign, nullptr, nullptr, nullptr, "the example writes its snapshots as they are"};

}  // namespace ftsim::protocols
