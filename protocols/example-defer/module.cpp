// example-defer: the restart of `none` (the whole job from its input) without its barrier, to show
// the receive verdict `defer` and redeliver_deferred(). A node does not wait for the others to be
// back at the input: it restarts as soon as it is told to and sends at once. So its data may reach
// a node that has not restarted yet, which must neither take it (its own restart would erase it)
// nor drop it (nobody would send it again): it defers it, and offers it again once restarted.
//  coordinator: failure notice of sequence e -> RESTART to every node, in epoch e
//  node:        RESTART of a newer epoch -> back to the input, run, redeliver what it deferred;
//               RESTARTED to the coordinator, which records the failures recovered once all have
//  node:        data of an older epoch than its own: an orphan, dropped; of a newer one: deferred
// Every message carries its epoch (the host stamps it): the messages of this protocol have no body.
#include "protocols/protocol_module.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols {
namespace {
using namespace node;

class DeferProtocol final : public Protocol {
public:
  explicit DeferProtocol(bool coordinator) : coordinator_(coordinator) {}

  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) override {
    if (!coordinator_) return;  // a node runs on until told to restart
    notices_.push_back(notice);
    ctx.set_epoch(notice.sequence);  // stamped on RESTART: the epoch the nodes restart in
    restarted_ = 0;
    for (NodeId n = 0; n < ctx.node_count(); ++n) ctx.send_control(n, kRestart, {});
  }
  void on_restart(ProtocolContext& ctx, const RestartInfo& info) override {
    ctx.set_epoch(info.last_sequence);
    ctx.runtime().pause();
    replacement_ = true;  // it holds nothing: it takes no data before its first RESTART
  }
  ReceiveVerdict on_receive(ProtocolContext& ctx, const Message& m) override {
    if (m.epoch == ctx.epoch() && !replacement_) return ReceiveVerdict::accept;
    const bool orphan = m.epoch < ctx.epoch();  // sent before a restart this node has made
    if (ctx.recording()) {
      ctx.note(std::string(orphan ? "drop" : "defer") + " data " + ctx.graph().handle_name(m.handle) + " v" +
               std::to_string(m.version) + " from " + std::to_string(m.source) + " of epoch " + std::to_string(m.epoch));
    }
    return orphan ? ReceiveVerdict::drop_orphan : ReceiveVerdict::defer;  // else sent after a restart to come
  }
  void on_control(ProtocolContext& ctx, const Message& m) override {
    if (coordinator_) {  // RESTARTED: once every node has restarted in the newest epoch, recovered
      if (m.epoch != ctx.epoch() || ++restarted_ < ctx.node_count()) return;
      for (const FailureNotice& notice : notices_) {
        ctx.record_failure_effect(notice, {.restart_point = "from scratch", .processes_rolled_back = ctx.node_count()});
        ctx.record_recovered(notice);
      }
      notices_.clear();
      return;
    }
    if (m.epoch < ctx.epoch() || (m.epoch == ctx.epoch() && !replacement_)) return;  // made already
    if (ctx.recording()) ctx.note("restart from the input in epoch " + std::to_string(m.epoch));
    ctx.set_epoch(m.epoch);
    replacement_ = false;
    ProtocolRuntime runtime = ctx.runtime();
    runtime.abort();
    runtime.restore(runtime.initial_snapshot());
    runtime.rebuild();
    runtime.resume();
    runtime.send_initial_values();
    ctx.redeliver_deferred();  // each is offered to on_receive again: now of its epoch, accepted
    ctx.send_control(ctx.coordinator(), kRestarted, {});
  }
  std::string phase(ProtocolContext&) override { return replacement_ ? "replacement: waiting for RESTART" : ""; }

private:
  enum Type : std::uint32_t { kRestart = 1, kRestarted };

  bool coordinator_;
  bool replacement_ = false;            // node: a replacement that has not restarted yet
  std::uint32_t restarted_ = 0;         // coordinator: RESTARTED of the newest epoch
  std::vector<FailureNotice> notices_;  // coordinator: failures whose recovery is under way
};

ProtocolFactory factory(const config::Config&, const graphs::TaskGraph&) {
  return [](NodeId, bool coordinator) { return std::make_unique<DeferProtocol>(coordinator); };
}
CampaignDraw campaign(std::mt19937_64&, double) { return {{{"protocol", {{"type", "example-defer"}}}}, false}; }

}  // namespace

extern const ProtocolModule example_defer_module = {
    "example-defer", "an example: no fault tolerance, a restart from the input without a barrier (deferred data)",
    no_options, factory, {}, campaign, nullptr, nullptr, nullptr, "the example saves no checkpoint data"};

}  // namespace ftsim::protocols
