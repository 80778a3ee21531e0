#include "protocols/global/global_protocol.hpp"

#include <algorithm>

#include "graphs/cut_selection.hpp"
#include "protocols/coordinated_schedule.hpp"

namespace ftsim::protocols {

using core::Bytes;
using core::WireReader;
using core::WireWriter;

namespace {

enum MessageType : std::uint32_t {
  kRequest = 1,     // coordinator -> nodes: stop for checkpoint k
  kReady,           // node -> coordinator: stopped; data messages sent per node in this epoch
  kSave,            // coordinator -> node: save checkpoint k once you received `count` messages
  kSaved,           // node -> coordinator: checkpoint k saved and acknowledged
  kCommit,          // coordinator -> nodes: checkpoint k is valid, resume
  kRecover,         // coordinator -> nodes: restore checkpoint k (0: the start) for epoch e
  kRestored,        // node -> coordinator: restored for epoch e
  kResume,          // coordinator -> nodes: every node restored for epoch e, resume
  kCheckpointData,  // node -> buddy: the content of checkpoint k
  kCheckpointAck,   // buddy -> node: stored
  kRestoreRequest,  // replacement -> buddy: send my checkpoint k back
  kRestoreData,     // buddy -> replacement: the content of checkpoint k
  kNotHeld,         // buddy -> replacement: I do not hold checkpoint k of yours
};

// The content of every message type (each type encodes only its own fields).
struct Control {
  std::uint32_t checkpoint = 0;
  std::uint32_t epoch = 0;
  std::uint64_t count = 0;                              // kSave: messages; kSaved, kCheckpointData: bytes
  std::vector<std::pair<NodeId, std::uint64_t>> sent;   // kReady
  FailureNotice cause{};                                // kRecover
  Bytes snapshot;                                       // kCheckpointData, kRestoreData

  Bytes encode(std::uint32_t type) const {
    Bytes out;
    WireWriter w(out);
    w.u32(checkpoint);
    w.u32(epoch);
    if (type == kSave || type == kSaved || type == kCheckpointData) w.u64(count);
    if (type == kReady) {
      w.u64(sent.size());
      for (auto [node, n] : sent) {
        w.u32(node);
        w.u64(n);
      }
    }
    if (type == kRecover) {
      w.u32(cause.node);
      w.u32(cause.incarnation);
      w.u32(cause.sequence);
    }
    if (type == kCheckpointData || type == kRestoreData) w.bytes(snapshot);
    return out;
  }
  static Control decode(const Message& m) {
    Control c;
    WireReader r(m.body);
    c.checkpoint = r.u32();
    c.epoch = r.u32();
    if (m.control_type == kSave || m.control_type == kSaved || m.control_type == kCheckpointData) c.count = r.u64();
    if (m.control_type == kReady) {
      c.sent.resize(r.count(12));
      for (auto& [node, n] : c.sent) {
        node = r.u32();
        n = r.u64();
      }
    }
    if (m.control_type == kRecover) {
      c.cause.node = r.u32();
      c.cause.incarnation = r.u32();
      c.cause.sequence = r.u32();
    }
    if (m.control_type == kCheckpointData || m.control_type == kRestoreData) c.snapshot = r.bytes();
    r.expect_done();
    return c;
  }
};

void send(ProtocolContext& ctx, NodeId to, std::uint32_t type, const Control& c,
          core::Traffic traffic = core::Traffic::control, std::uint64_t payload_bytes = 0) {
  ctx.send_control(to, type, c.encode(type), traffic, payload_bytes);
}

Control with(std::uint32_t checkpoint, std::uint32_t epoch) {
  Control c;
  c.checkpoint = checkpoint;
  c.epoch = epoch;
  return c;
}

// Where a checkpoint lives: in a buddy's store or on stable storage, by origin and id.
std::uint64_t checkpoint_key(NodeId origin, std::uint32_t checkpoint) { return (std::uint64_t(origin) << 32) | checkpoint; }
std::uint32_t checkpoint_of(std::uint64_t key) { return static_cast<std::uint32_t>(key & 0xffffffffu); }

constexpr std::uint64_t kRestartDelayToken = 1;
constexpr std::uint64_t kReadTokenBit = 1ull << 62;
// /checkpoint_data: the CPU time of encoding a checkpoint image / decoding a chain (+ a sequence).
constexpr std::uint64_t kEncodeTokenBit = 1ull << 61;
constexpr std::uint64_t kDecodeTokenBit = 1ull << 60;

}  // namespace

GlobalConfig read_global_options(const config::Config& config, config::JsonReader block) {
  GlobalConfig options;
  block.expect_object();
  block.at("type").as_string();
  const CoordinatedSchedule schedule = read_coordinated_schedule(config, block, "global");
  options.at_cuts = schedule.at_cuts;
  options.period = schedule.period;
  const std::uint32_t servers = config.platform.storage.hosts;
  if (auto storage = block.find("storage")) {
    options.stable_storage = storage->as_choice({"stable", "buddy"}) == "stable";
    if (options.stable_storage && servers == 0) {
      storage->fail("\"stable\" storage needs servers: set /platform/storage/hosts to 1 or more");
    }
    if (!options.stable_storage && config.platform.nodes < 2) {
      storage->fail("\"buddy\" storage needs at least 2 nodes (a node cannot be its own buddy)");
    }
  } else if (servers == 0) {
    block.fail("the global protocol saves to \"storage\": \"stable\" (needs /platform/storage) or \"buddy\"");
  }
  if (auto cost = block.find("restart_cost")) options.restart_cost = cost->as_seconds();
  block.finish();
  return options;
}

std::shared_ptr<const GlobalOptions> make_global_options(const config::Config& config, config::JsonReader block,
                                                             const graphs::TaskGraph& graph) {
  auto options = std::make_shared<GlobalOptions>();
  static_cast<GlobalConfig&>(*options) = read_global_options(config, block);
  options->content = content::make_settings(config, graph);
  if (options->at_cuts || !options->stable_storage) {
    const config::CheckpointConfig placement =
        config.checkpoints.empty() ? config::CheckpointConfig{} : config.checkpoints.front();
    if (options->at_cuts) {
      const graphs::CutSelection cuts(placement, graph, config.file);
      for (graphs::CutId cut : cuts.cuts()) options->cut_positions.push_back(graph.cut_position(cut));
    }
    if (!options->stable_storage) options->buddies.emplace(placement.buddy, config.distribution, graph.node_count());
  }
  return options;
}

// ============================================================================ node side

void GlobalProtocol::apply_task_limit(ProtocolContext& ctx) {
  if (!options_->at_cuts) return;
  const std::uint32_t next = committed_ + 1;
  if (next <= options_->cut_positions.size()) {
    ctx.runtime().set_task_limit(options_->cut_positions[next - 1]);
    ready_for_ = next;
  } else {
    ctx.runtime().set_task_limit(graphs::kNone);
    ready_for_ = 0;
  }
}

void GlobalProtocol::on_start(ProtocolContext& ctx) {
  if (coordinator_) {
    expected_.assign(ctx.node_count(), 0);
    restored_epoch_.assign(ctx.node_count(), 0);
    arm_period_timer(ctx);
    if (options_->at_cuts && !options_->cut_positions.empty()) phase_ = Phase::gathering_ready;
    return;
  }
  apply_task_limit(ctx);
  try_ready(ctx);
}

void GlobalProtocol::try_ready(ProtocolContext& ctx) {
  if (coordinator_ || ready_for_ == 0) return;
  core::ProtocolRuntime runtime = ctx.runtime();
  // Nothing running and every message sent released: its outgoing channels hold all it sent.
  if (!runtime.quiescent()) return;
  if (options_->at_cuts && !runtime.done_before(runtime.task_limit())) return;
  if (options_->at_cuts) checkpoint_began_ = ctx.now();  // the node reached the cut
  Control ready = with(ready_for_, ctx.epoch());
  ready.sent.assign(sent_.begin(), sent_.end());
  send(ctx, ctx.coordinator(), kReady, ready);
  ready_for_ = 0;
}

void GlobalProtocol::on_task_completed(ProtocolContext& ctx, TaskId, bool) { try_ready(ctx); }

core::SendVerdict GlobalProtocol::on_send(ProtocolContext&, Message& m) {
  ++sent_[m.destination];
  return core::SendVerdict::send;
}

core::ReceiveVerdict GlobalProtocol::on_receive(ProtocolContext& ctx, const Message& m) {
  // Sent before a rollback that the receiver has already made: its sender's state is gone.
  if (m.epoch < ctx.epoch()) return core::ReceiveVerdict::drop_orphan;
  if (m.epoch == ctx.epoch()) ++received_;
  return core::ReceiveVerdict::accept;
}

void GlobalProtocol::on_stored(ProtocolContext& ctx, const Message&) {
  if (save_for_ != 0) maybe_save(ctx);
}

void GlobalProtocol::on_data_released(ProtocolContext& ctx, const Message&) {
  if (ready_for_ != 0) try_ready(ctx);
}

void GlobalProtocol::maybe_save(ProtocolContext& ctx) {
  // The flush: every data message sent to this node before the others stopped has arrived.
  if (save_for_ == 0 || received_ < expected_received_) return;
  const std::uint32_t checkpoint = save_for_;
  save_for_ = 0;
  save(ctx, checkpoint);
}

void GlobalProtocol::save(ProtocolContext& ctx, std::uint32_t checkpoint) {
  core::NodeSnapshot snapshot = ctx.runtime().snapshot();
  std::uint64_t bytes = snapshot.bytes;
  Bytes content;
  double charge = 0;
  if (writer_) {
    // /checkpoint_data: a full or incremental image, smaller (zero blocks, changed blocks, zstd).
    content::ImageWriter::Image image = writer_->write(ctx, snapshot, checkpoint);
    bytes = image.stored_bytes;
    charge = image.charge_seconds;
    content = std::move(image.content);
  } else {
    WireWriter out(content);
    snapshot.encode(out);
  }
  local_[checkpoint] = std::move(snapshot);
  ctx.record_local_checkpoint(checkpoint);
  saving_ = checkpoint;
  saved_bytes_ = bytes;
  if (ctx.recording()) {
    ctx.note("save checkpoint " + std::to_string(checkpoint) + " (" + std::to_string(bytes) + " B) to " +
             (options_->stable_storage ? std::string("stable storage") : buddy_list(ctx.node())));
  }
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += bytes;
  pending_save_ = PendingSave{checkpoint, std::move(content), bytes};
  if (charge > 0) {
    // Hashing and compressing take a core of the node first (a simulation; on MPI they ran).
    content::charge(ctx, charge, kEncodeTokenBit | ++charge_sequence_);
    return;
  }
  send_saved(ctx);
}

void GlobalProtocol::send_saved(ProtocolContext& ctx) {
  if (!pending_save_) return;
  PendingSave save = std::move(*pending_save_);
  pending_save_.reset();
  if (save.checkpoint != saving_) return;  // a failure interrupted it
  if (options_->stable_storage) {
    ctx.storage_write(ctx.node() % std::max(1u, ctx.storage_servers()), checkpoint_key(ctx.node(), save.checkpoint),
                      std::move(save.content), save.bytes, save.checkpoint);
  } else {
    // Every buddy keeps a copy (several buddies replicate it); saved once all acknowledged.
    Control data = with(save.checkpoint, ctx.epoch());
    data.count = save.bytes;
    data.snapshot = std::move(save.content);
    const auto buddies = options_->buddies->buddies(ctx.node());
    acks_missing_ = static_cast<std::uint32_t>(buddies.size());
    for (NodeId buddy : buddies) send(ctx, buddy, kCheckpointData, data, core::Traffic::checkpoint, save.bytes);
  }
}

void GlobalProtocol::restore_chain(ProtocolContext& ctx, std::span<const Bytes* const> chain) {
  content::Restored restored = content::read_chain(ctx, *options_->content, chain);
  writer_->adopt(chain);  // its images on storage now: erased once a newer chain is committed
  local_[restoring_] = restored.snapshot;
  if (restored.charge_seconds > 0) {  // decompression takes a core first (a simulation)
    pending_restore_ = std::move(restored.snapshot);
    content::charge(ctx, restored.charge_seconds, kDecodeTokenBit | ++charge_sequence_);
    return;
  }
  restore(ctx, restored.snapshot);
}

void GlobalProtocol::charged(ProtocolContext& ctx, std::uint64_t token) {
  if ((token & 0xffffffffu) != charge_sequence_) return;  // a stale one (a failure came in between)
  if (token & kEncodeTokenBit) {
    send_saved(ctx);
  } else if (pending_restore_ && restoring_ != 0) {
    const core::NodeSnapshot snapshot = std::move(*pending_restore_);
    pending_restore_.reset();
    restore(ctx, snapshot);
  }
}

void GlobalProtocol::on_activity_done(ProtocolContext& ctx, std::uint64_t token) {
  if (token & (kEncodeTokenBit | kDecodeTokenBit)) charged(ctx, token);
}

void GlobalProtocol::collect_chains(ProtocolContext& ctx) {
  // /checkpoint_data: what the committed checkpoint's chain needs stays (its full image and the
  // incrementals after it), here as a buddy for each origin, and on stable storage for itself.
  std::map<NodeId, std::uint32_t> first;  // per origin held here: the first image to keep
  for (const auto& [key, entry] : ctx.checkpoint_store().entries()) first.emplace(static_cast<NodeId>(key >> 32), 0);
  for (auto& [origin, keep] : first) {
    const auto find = [&](std::uint32_t id) -> const Bytes* {
      const core::ProtocolStore::Entry* e = ctx.checkpoint_store().find(checkpoint_key(origin, id));
      return e ? &e->content : nullptr;
    };
    const auto chain = content::collect_chain(find, committed_);
    keep = chain.empty() ? committed_ : content::read_header(*chain.front()).checkpoint;
  }
  ctx.checkpoint_store().erase_if([&](std::uint64_t key) { return checkpoint_of(key) < first[static_cast<NodeId>(key >> 32)]; });
  if (options_->stable_storage) {
    for (std::uint32_t id : writer_->release_before(committed_)) {
      ctx.storage_erase(ctx.node() % std::max(1u, ctx.storage_servers()), checkpoint_key(ctx.node(), id));
    }
  }
}

std::string GlobalProtocol::buddy_list(NodeId node) const {
  std::string text = "buddy node";
  const auto buddies = options_->buddies->buddies(node);
  if (buddies.size() > 1) text += "s";
  for (std::size_t i = 0; i < buddies.size(); ++i) text += (i == 0 ? " " : ", ") + std::to_string(buddies[i]);
  return text;
}

void GlobalProtocol::saved(ProtocolContext& ctx) {
  Control done = with(saving_, ctx.epoch());
  done.count = saved_bytes_;
  saving_ = 0;
  send(ctx, ctx.coordinator(), kSaved, done);
}

void GlobalProtocol::on_storage_done(ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content) {
  if ((token & kReadTokenBit) == 0) {  // a checkpoint written
    const auto checkpoint = static_cast<std::uint32_t>(token);
    if (checkpoint == saving_) saved(ctx);
    return;
  }
  const auto epoch = static_cast<std::uint32_t>(token & ~kReadTokenBit);  // a checkpoint read back
  if (epoch != ctx.epoch() || restoring_ == 0) return;                     // an older recovery's
  if (!content) {
    ctx.fail_run("unrecoverable: checkpoint " + std::to_string(restoring_) + " of node " + std::to_string(ctx.node()) +
                 " is not on stable storage");
    return;
  }
  if (writer_) {
    // A chain of images: read back from the newest to the full one, then restored in order.
    if (!content::is_image(*content) || content::read_header(*content).checkpoint != fetch_.want()) return;
    if (const std::uint32_t next = fetch_.add(*content)) {
      ctx.storage_read(ctx.node() % std::max(1u, ctx.storage_servers()), checkpoint_key(ctx.node(), next),
                       kReadTokenBit | epoch);
      return;
    }
    const auto chain = fetch_.chain();
    restore_chain(ctx, chain);
    return;
  }
  WireReader in(*content);
  core::NodeSnapshot snapshot = core::NodeSnapshot::decode(in);
  local_[restoring_] = snapshot;
  restore(ctx, snapshot);
}

void GlobalProtocol::on_timer(ProtocolContext& ctx, std::uint64_t token) {
  if (coordinator_) {
    if (period_timer_ && token == 0 && phase_ == Phase::idle) {
      period_timer_.reset();
      start_checkpoint(ctx);
    }
    return;
  }
  if (token & (kEncodeTokenBit | kDecodeTokenBit)) {
    charged(ctx, token);
    return;
  }
  if (token == kRestartDelayToken && restarting_) {
    restarting_ = false;
    if (deferred_recover_) {
      const Message m = std::move(*deferred_recover_);
      deferred_recover_.reset();
      on_control(ctx, m);
    }
  }
}

void GlobalProtocol::on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  if (coordinator_) {
    on_coordinator_notice(ctx, notice);
    return;
  }
  // Stop at once: what runs now will be rolled back. The coordinator says to which checkpoint.
  if (notice.sequence > ctx.epoch()) ctx.set_epoch(notice.sequence);
  if (recovery_began_ < 0) recovery_began_ = ctx.now();
  checkpoint_began_ = -1;
  ctx.runtime().abort();
  ctx.runtime().pause();
  ready_for_ = save_for_ = saving_ = 0;
}

void GlobalProtocol::on_restart(ProtocolContext& ctx, const core::RestartInfo& info) {
  // A replacement holds nothing: it waits for RECOVER, after restart_cost (spawn, reconnection).
  ctx.set_epoch(info.last_sequence);
  ctx.runtime().pause();
  recovery_began_ = ctx.now();
  // It has no state to save: no checkpoint may commit before it has restored one (its failure
  // may not even be detected yet).
  unrestored_ = true;
  const double cost = options_->restart_cost;
  if (cost > 0) {
    restarting_ = true;
    ctx.set_timer(cost, kRestartDelayToken);
  }
}

void GlobalProtocol::recover(ProtocolContext& ctx, std::uint32_t epoch, std::uint32_t checkpoint,
                               const FailureNotice& cause) {
  ctx.set_epoch(epoch);
  if (recovery_began_ < 0) recovery_began_ = ctx.now();
  checkpoint_began_ = -1;
  cause_ = cause;
  core::ProtocolRuntime runtime = ctx.runtime();
  runtime.abort();
  runtime.pause();
  ready_for_ = save_for_ = saving_ = restoring_ = 0;
  pending_save_.reset();
  pending_restore_.reset();
  restored_from_ = checkpoint;
  if (checkpoint == 0) {
    if (ctx.recording()) ctx.note("epoch " + std::to_string(epoch) + ": restart from the initial state");
    restore(ctx, runtime.initial_snapshot());
    return;
  }
  if (auto it = local_.find(checkpoint); it != local_.end()) {
    if (ctx.recording()) ctx.note("epoch " + std::to_string(epoch) + ": restore checkpoint " + std::to_string(checkpoint) + " from the local copy");
    restore(ctx, it->second);  // its local copy
    return;
  }
  if (ctx.recording()) {
    ctx.note("epoch " + std::to_string(epoch) + ": fetch checkpoint " + std::to_string(checkpoint) + " from " +
            (options_->stable_storage ? std::string("stable storage") : buddy_list(ctx.node())));
  }
  // A replacement lost its local copy: fetch the one on stable storage or at its buddies, in turn.
  restoring_ = checkpoint;
  asked_buddy_ = 0;
  if (options_->stable_storage) {
    fetch_.begin(checkpoint);
    ctx.storage_read(ctx.node() % std::max(1u, ctx.storage_servers()), checkpoint_key(ctx.node(), checkpoint),
                     kReadTokenBit | epoch);
  } else {
    send(ctx, options_->buddies->buddies(ctx.node())[0], kRestoreRequest, with(checkpoint, epoch));
  }
}

void GlobalProtocol::restore(ProtocolContext& ctx, const core::NodeSnapshot& snapshot) {
  core::ProtocolRuntime runtime = ctx.runtime();
  // Work this rollback throws away: tasks done now that the restored state has not done.
  core::FailureEffect effect;
  effect.processes_rolled_back = 1;
  effect.restart_point = restored_from_ > 0 ? "checkpoint " + std::to_string(restored_from_) : "from scratch";
  const auto local = ctx.index().tasks_of(ctx.node());
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (runtime.status(local[i]) == core::TaskStatus::done && !snapshot.done[i]) {
      ++effect.tasks_reexecuted;
      effect.work_lost_seconds += ctx.task_seconds(local[i]);
    }
  }
  ctx.record_failure_effect(cause_, effect);
  runtime.restore(snapshot);
  // Its next image is a full one: the hashes it kept describe a state it has left.
  if (writer_) writer_->restart_chain();
  restoring_ = 0;
  unrestored_ = false;
  sent_.clear();
  received_ = 0;
  // Copies older than the restored checkpoint are of no use any more.
  for (auto it = local_.begin(); it != local_.end();) it = it->first < restored_from_ ? local_.erase(it) : std::next(it);
  committed_ = restored_from_;
  apply_task_limit(ctx);
  ready_for_ = 0;  // READY for the next cut only after the coordinator resumes everyone
  runtime.rebuild();
  send(ctx, ctx.coordinator(), kRestored, with(restored_from_, ctx.epoch()));
}

void GlobalProtocol::on_control(ProtocolContext& ctx, const Message& m) {
  if (coordinator_) {
    coordinator_message(ctx, m);
    return;
  }
  const Control c = Control::decode(m);
  switch (m.control_type) {
    case kRequest:
      if (c.epoch != ctx.epoch() || unrestored_) return;
      checkpoint_began_ = ctx.now();
      ctx.runtime().pause();
      ready_for_ = c.checkpoint;
      try_ready(ctx);
      break;
    case kSave:
      if (c.epoch != ctx.epoch() || unrestored_) return;
      save_for_ = c.checkpoint;
      expected_received_ = c.count;
      maybe_save(ctx);
      break;
    case kCommit:
      if (c.epoch != ctx.epoch()) return;
      if (ctx.recording()) {
        ctx.record_span("checkpoint " + std::to_string(c.checkpoint), "checkpoint",
                        checkpoint_began_ >= 0 ? checkpoint_began_ : ctx.now());
      }
      checkpoint_began_ = -1;
      committed_ = c.checkpoint;
      // Garbage collection: older copies, here, at the buddy (below) and on storage.
      for (auto it = local_.begin(); it != local_.end();) it = it->first < committed_ ? local_.erase(it) : std::next(it);
      if (writer_) {
        collect_chains(ctx);
      } else {
        ctx.checkpoint_store().erase_if([&](std::uint64_t key) { return checkpoint_of(key) < committed_; });
        if (options_->stable_storage && committed_ > 1) {
          ctx.storage_erase(ctx.node() % std::max(1u, ctx.storage_servers()), checkpoint_key(ctx.node(), committed_ - 1));
        }
      }
      ctx.runtime().resume();
      apply_task_limit(ctx);
      try_ready(ctx);
      break;
    case kRecover:
      if (c.epoch < ctx.epoch()) return;  // an older recovery's
      if (restarting_) {
        deferred_recover_ = m;
        return;
      }
      recover(ctx, c.epoch, c.checkpoint, c.cause);
      break;
    case kResume:
      if (c.epoch != ctx.epoch()) return;
      if (ctx.recording() && recovery_began_ >= 0) ctx.record_span("rollback and restore", "recovery", recovery_began_);
      recovery_began_ = -1;
      ctx.runtime().resume();
      if (restored_from_ == 0) ctx.runtime().send_initial_values();
      apply_task_limit(ctx);
      try_ready(ctx);
      break;
    case kCheckpointData: {
      // As a buddy: keep the copy (its content and the bytes it stands for) and acknowledge.
      ctx.checkpoint_store().put(checkpoint_key(m.source, c.checkpoint), c.snapshot, c.count);
      send(ctx, m.source, kCheckpointAck, with(c.checkpoint, c.epoch));
      break;
    }
    case kCheckpointAck:
      if (c.checkpoint == saving_ && c.epoch == ctx.epoch() && --acks_missing_ == 0) saved(ctx);
      break;
    case kRestoreRequest: {
      if (writer_) {
        // /checkpoint_data: the chain of that checkpoint (its full image and the incrementals after it).
        std::uint64_t bytes = 0;
        const auto find = [&](std::uint32_t id) -> const Bytes* {
          const core::ProtocolStore::Entry* e = ctx.checkpoint_store().find(checkpoint_key(m.source, id));
          if (e) bytes += e->bytes;
          return e ? &e->content : nullptr;
        };
        const auto chain = content::collect_chain(find, c.checkpoint);
        if (chain.empty()) {
          send(ctx, m.source, kNotHeld, with(c.checkpoint, c.epoch));
          break;
        }
        Control data = with(c.checkpoint, c.epoch);
        data.snapshot = content::pack(chain);
        send(ctx, m.source, kRestoreData, data, core::Traffic::restore, bytes);
        break;
      }
      const core::ProtocolStore::Entry* copy = ctx.checkpoint_store().find(checkpoint_key(m.source, c.checkpoint));
      if (!copy) {
        send(ctx, m.source, kNotHeld, with(c.checkpoint, c.epoch));
        break;
      }
      Control data = with(c.checkpoint, c.epoch);
      data.snapshot = copy->content;
      send(ctx, m.source, kRestoreData, data, core::Traffic::restore, copy->bytes);
      break;
    }
    case kRestoreData: {
      if (c.epoch != ctx.epoch() || c.checkpoint != restoring_) return;  // an older recovery's
      if (writer_) {
        const std::vector<Bytes> images = content::unpack(c.snapshot);
        std::vector<const Bytes*> chain;
        for (const Bytes& image : images) chain.push_back(&image);
        restore_chain(ctx, chain);
        break;
      }
      WireReader in(c.snapshot);
      core::NodeSnapshot snapshot = core::NodeSnapshot::decode(in);
      local_[restoring_] = snapshot;
      restore(ctx, snapshot);
      break;
    }
    case kNotHeld: {
      if (c.epoch != ctx.epoch() || c.checkpoint != restoring_) return;
      const auto buddies = options_->buddies->buddies(ctx.node());
      if (++asked_buddy_ < buddies.size()) {  // another buddy may still hold a replica
        send(ctx, buddies[asked_buddy_], kRestoreRequest, with(c.checkpoint, c.epoch));
        return;
      }
      ctx.fail_run("unrecoverable: node " + std::to_string(ctx.node()) + " and its " + buddy_list(ctx.node()) +
                   (buddies.size() > 1 ? " all" : " both") + " lost checkpoint " + std::to_string(c.checkpoint) +
                   " (more failures than buddy checkpointing can survive)");
      break;
    }
    default: break;
  }
}

// ============================================================================ coordinator side

void GlobalProtocol::arm_period_timer(ProtocolContext& ctx) {
  if (options_->at_cuts || options_->period <= 0) return;
  if (period_timer_) ctx.cancel_timer(*period_timer_);
  period_timer_ = ctx.set_timer(options_->period, 0);
}

void GlobalProtocol::start_checkpoint(ProtocolContext& ctx) {
  phase_ = Phase::gathering_ready;
  answers_ = 0;
  std::fill(expected_.begin(), expected_.end(), 0);
  record_ = core::CheckpointRecord{};
  record_.id = next_checkpoint_;
  record_.started = ctx.now();
  ctx.record_checkpoint(record_);
  if (ctx.recording()) ctx.note("checkpoint " + std::to_string(next_checkpoint_) + ": every node stops");
  for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kRequest, with(next_checkpoint_, ctx.epoch()));
}

void GlobalProtocol::on_coordinator_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  ctx.set_epoch(notice.sequence);
  recovery_epoch_ = notice.sequence;
  // Counted here once per failure, then kept up to date per answer (not a scan per answer).
  restored_count_ = static_cast<std::uint32_t>(std::count(restored_epoch_.begin(), restored_epoch_.end(), recovery_epoch_));
  if ((phase_ == Phase::gathering_ready && answers_ > 0) || phase_ == Phase::gathering_saved ||
      (phase_ == Phase::gathering_ready && !options_->at_cuts)) {
    record_.aborted = true;
    ctx.record_checkpoint(record_);
    if (ctx.recording()) ctx.note("checkpoint " + std::to_string(record_.id) + " aborted");
  }
  phase_ = Phase::recovering;
  answers_ = 0;
  if (period_timer_) {  // no checkpoint until the recovery is over
    ctx.cancel_timer(*period_timer_);
    period_timer_.reset();
  }
  unrecovered_.push_back(notice);
  // Every rank restores the last committed checkpoint; a rank being replaced gets this when
  // its replacement is up.
  Control recover = with(committed_, recovery_epoch_);
  recover.cause = notice;
  if (ctx.recording()) {
    ctx.note("epoch " + std::to_string(recovery_epoch_) + ": every node restores " +
            (recover.checkpoint > 0 ? "checkpoint " + std::to_string(recover.checkpoint) : std::string("the initial state")));
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kRecover, recover);
}

void GlobalProtocol::maybe_resume(ProtocolContext& ctx) {
  if (phase_ != Phase::recovering || restored_count_ != ctx.node_count()) return;
  // Every node is back at the restart point: resume.
  for (const FailureNotice& notice : unrecovered_) {
    core::FailureEffect effect;
    effect.restart_point = committed_ > 0 ? "checkpoint " + std::to_string(committed_) : "from scratch";
    ctx.record_failure_effect(notice, effect);
    ctx.record_recovered(notice);
  }
  unrecovered_.clear();
  next_checkpoint_ = committed_ + 1;
  answers_ = 0;
  std::fill(expected_.begin(), expected_.end(), 0);
  phase_ = options_->at_cuts && next_checkpoint_ <= options_->cut_positions.size() ? Phase::gathering_ready : Phase::idle;
  if (ctx.recording()) ctx.note("epoch " + std::to_string(recovery_epoch_) + ": every node restored, resume");
  for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kResume, with(committed_, recovery_epoch_));
  arm_period_timer(ctx);
  ctx.check_completion();
}

void GlobalProtocol::coordinator_message(ProtocolContext& ctx, const Message& m) {
  const Control c = Control::decode(m);
  switch (m.control_type) {
    case kReady:
      if (c.epoch != ctx.epoch() || c.checkpoint != next_checkpoint_ || phase_ != Phase::gathering_ready) return;
      if (answers_ == 0 && options_->at_cuts) {
        // At cuts the first node to reach the cut starts the checkpoint.
        record_ = core::CheckpointRecord{};
        record_.id = c.checkpoint;
        record_.started = ctx.now();
        ctx.record_checkpoint(record_);
      }
      for (auto [node, count] : c.sent) {
        if (node < expected_.size()) expected_[node] += count;
      }
      if (++answers_ == ctx.node_count()) {
        phase_ = Phase::gathering_saved;
        answers_ = 0;
        for (NodeId n = 0; n < ctx.node_count(); ++n) {
          Control save = with(c.checkpoint, ctx.epoch());
          save.count = expected_[n];
          send(ctx, n, kSave, save);
        }
      }
      break;
    case kSaved:
      if (c.epoch != ctx.epoch() || c.checkpoint != next_checkpoint_ || phase_ != Phase::gathering_saved) return;
      record_.bytes += c.count;
      if (++answers_ == ctx.node_count()) {
        // Commit: the saved states become the restart point.
        committed_ = c.checkpoint;
        if (ctx.recording()) ctx.note("checkpoint " + std::to_string(committed_) + " committed (" + std::to_string(record_.bytes) + " B)");
        record_.saved = record_.committed = ctx.now();
        ctx.record_checkpoint(record_);
        ++next_checkpoint_;
        answers_ = 0;
        std::fill(expected_.begin(), expected_.end(), 0);
        phase_ = options_->at_cuts && next_checkpoint_ <= options_->cut_positions.size() ? Phase::gathering_ready
                                                                                         : Phase::idle;
        for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kCommit, with(committed_, ctx.epoch()));
        arm_period_timer(ctx);
      }
      break;
    case kRestored:
      // Messages of two recoveries may cross: keep the latest epoch a node restored for.
      if (c.epoch > restored_epoch_[m.source]) {
        if (restored_epoch_[m.source] == recovery_epoch_) --restored_count_;
        restored_epoch_[m.source] = c.epoch;
        if (c.epoch == recovery_epoch_) ++restored_count_;
      }
      maybe_resume(ctx);
      break;
    default: break;
  }
}

std::string GlobalProtocol::phase(ProtocolContext& ctx) {
  if (coordinator_) {
    switch (phase_) {
      case Phase::idle: return {};
      case Phase::gathering_ready:
        return "checkpoint " + std::to_string(next_checkpoint_) + ": waiting for READY (" + std::to_string(answers_) +
               " of " + std::to_string(ctx.node_count()) + " nodes)";
      case Phase::gathering_saved:
        return "checkpoint " + std::to_string(next_checkpoint_) + ": waiting for SAVED (" + std::to_string(answers_) +
               " of " + std::to_string(ctx.node_count()) + " nodes)";
      case Phase::recovering:
        return "recovery of epoch " + std::to_string(recovery_epoch_) + ": waiting for the nodes to restore";
    }
    return {};
  }
  if (restoring_ != 0) return "restoring checkpoint " + std::to_string(restoring_);
  if (restarting_) return "restarting (paying the restart cost)";
  if (saving_ != 0) return "checkpoint " + std::to_string(saving_) + ": saved, waiting for its acknowledgements";
  if (save_for_ != 0) return "checkpoint " + std::to_string(save_for_) + ": flushing its channels before the save";
  if (ready_for_ != 0) return "checkpoint " + std::to_string(ready_for_) + ": paused, waiting for SAVE";
  return {};
}

}  // namespace ftsim::protocols
