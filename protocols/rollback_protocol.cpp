#include "protocols/rollback_protocol.hpp"

#include <algorithm>

namespace ftsim::protocols {

namespace {

enum MessageType : std::uint32_t {
  kRequest = 1,      // coordinator -> nodes: stop and flush for checkpoint k
  kReady,            // node -> coordinator: nothing running, everything sent delivered
  kSave,             // coordinator -> nodes: save your state for checkpoint k
  kSaved,            // node -> coordinator: saved
  kCommit,           // coordinator -> nodes: checkpoint k is committed, resume
  kRestored,         // node -> coordinator: rolled back and restored for recovery epoch e
  kResume,           // coordinator -> nodes: every node restored, resume
  kCheckpointData,   // node -> buddy: the checkpoint data
  kCheckpointAck,    // buddy -> node: stored
  kRestoreRequest,   // replacement -> buddy: send my checkpoint back
  kRestoreData,      // buddy -> replacement: the checkpoint data
};

constexpr std::uint64_t kServiceBytes = 64;  // size of a service message
constexpr std::uint64_t kPeriodTimerBase = 1ULL << 40;
constexpr std::uint64_t kRestartDelayToken = 1;

struct CheckpointMessage : core::ControlPayload {
  explicit CheckpointMessage(std::uint32_t id) : checkpoint(id) {}
  std::uint32_t checkpoint;
};

std::uint32_t checkpoint_of(const Message& m) {
  auto* payload = dynamic_cast<const CheckpointMessage*>(m.payload.get());
  return payload ? payload->checkpoint : 0;
}

std::shared_ptr<const CheckpointMessage> with_checkpoint(std::uint32_t id) {
  return std::make_shared<CheckpointMessage>(id);
}

}  // namespace

std::shared_ptr<RollbackShared> make_rollback_shared(const config::Config& config, const graphs::TaskGraph& graph) {
  auto shared = std::make_shared<RollbackShared>();
  const NodeId nodes = graph.node_count();
  const auto& protocol = config.protocol;
  shared->checkpoints = protocol.type == config::ProtocolType::global;
  shared->period = protocol.period.value_or(0);
  shared->at_cuts = protocol.at_cuts;
  shared->stable_storage = protocol.storage == config::CheckpointStorage::stable;
  if (shared->checkpoints && (shared->at_cuts || !shared->stable_storage)) {
    const config::CheckpointConfig placement =
        config.checkpoints.empty() ? config::CheckpointConfig{} : config.checkpoints.front();
    if (shared->at_cuts) {
      const graphs::CutSelection cuts(placement, graph, config.file);
      for (graphs::CutId cut : cuts.cuts()) shared->cut_positions.push_back(graph.cut_position(cut));
    }
    if (!shared->stable_storage) shared->buddies.emplace(placement.buddy, config.distribution, nodes);
  }
  shared->committed_state.resize(nodes);
  shared->local_copy.assign(nodes, true);
  shared->pending_state.resize(nodes);
  shared->held_for_others.assign(2 * nodes, 0);  // [0, n): committed, [n, 2n): pending
  return shared;
}

RollbackProtocol::RollbackProtocol(std::shared_ptr<RollbackShared> shared, NodeId node, bool coordinator)
    : shared_(std::move(shared)), node_(node), coordinator_(coordinator) {}

// ============================================================================ node side

void RollbackProtocol::apply_task_limit(ProtocolContext& ctx) {
  if (!shared_->at_cuts) return;
  const std::uint32_t next = shared_->committed + 1;
  if (next <= shared_->cut_positions.size()) {
    ctx.runtime().set_task_limit(shared_->cut_positions[next - 1]);
    ready_for_ = next;
  } else {
    ctx.runtime().set_task_limit(graphs::kNone);
    ready_for_ = 0;
  }
}

void RollbackProtocol::on_start(ProtocolContext& ctx) {
  if (coordinator_) {
    arm_period_timer(ctx);
    if (shared_->at_cuts) phase_ = Phase::gathering_ready;
    return;
  }
  apply_task_limit(ctx);
  try_ready(ctx);
}

void RollbackProtocol::try_ready(ProtocolContext& ctx) {
  if (coordinator_ || ready_for_ == 0) return;
  core::NodeRuntime& runtime = ctx.runtime();
  if (!runtime.quiescent()) return;
  if (shared_->at_cuts && !runtime.done_before(runtime.task_limit())) return;
  if (shared_->at_cuts) checkpoint_began_ = ctx.now();  // the node reached the cut
  ctx.send_control(ctx.coordinator(), kReady, kServiceBytes, with_checkpoint(ready_for_));
  ready_for_ = 0;
}

void RollbackProtocol::on_task_completed(ProtocolContext& ctx, TaskId, bool) { try_ready(ctx); }

void RollbackProtocol::on_data_sent(ProtocolContext& ctx, const Message&) {
  if (ready_for_ != 0) try_ready(ctx);
}

void RollbackProtocol::save(ProtocolContext& ctx, std::uint32_t checkpoint) {
  core::NodeSnapshot snapshot = ctx.runtime().snapshot();
  const std::uint64_t bytes = snapshot.bytes;
  shared_->pending_state[node_] = std::move(snapshot);
  saving_ = checkpoint;
  auto& metrics = ctx.metrics();
  ++metrics.cp_data_normal_count;
  metrics.cp_data_normal_total_size += bytes;
  if (shared_->stable_storage) {
    ctx.storage_transfer(bytes, true, std::uint64_t(checkpoint) << 1);
  } else {
    ctx.send_control(shared_->buddies->first_buddy(node_), kCheckpointData, bytes, with_checkpoint(checkpoint),
                     core::Traffic::checkpoint);
  }
}

void RollbackProtocol::on_storage_done(ProtocolContext& ctx, std::uint64_t token) {
  if ((token & 1) == 0) {  // a checkpoint written
    const auto checkpoint = static_cast<std::uint32_t>(token >> 1);
    if (checkpoint == saving_) {
      saving_ = 0;
      ctx.send_control(ctx.coordinator(), kSaved, kServiceBytes, with_checkpoint(checkpoint));
    }
  } else if ((token >> 1) == ctx.epoch()) {  // a checkpoint read back
    restored(ctx);
  }
}

void RollbackProtocol::arm_period_timer(ProtocolContext& ctx) {
  if (!shared_->checkpoints || shared_->at_cuts || shared_->period <= 0) return;
  // A new generation: timers armed before a recovery no longer count.
  ++timer_generation_;
  ctx.set_timer(shared_->period, kPeriodTimerBase + timer_generation_);
}

void RollbackProtocol::on_timer(ProtocolContext& ctx, std::uint64_t token) {
  if (coordinator_) {
    if (token == kPeriodTimerBase + timer_generation_ && phase_ == Phase::idle) start_checkpoint(ctx);
    return;
  }
  if (token == kRestartDelayToken) roll_back(ctx, true, ctx.failure_record(node_));
}

void RollbackProtocol::roll_back(ProtocolContext& ctx, bool replacement, core::FailureRecord* record) {
  const std::uint32_t epoch = ctx.detections();
  if (recovery_began_ < 0) recovery_began_ = ctx.now();
  checkpoint_began_ = -1;
  ctx.set_epoch(epoch);
  core::NodeRuntime& runtime = ctx.runtime();
  if (!replacement) runtime.abort();
  runtime.pause();
  const bool from_checkpoint = shared_->checkpoints && shared_->committed > 0;
  core::NodeSnapshot initial;
  if (!from_checkpoint) initial = runtime.initial_snapshot();
  const core::NodeSnapshot& snapshot = from_checkpoint ? shared_->committed_state[node_] : initial;

  // Work this rollback throws away: tasks done now that the restored state has not done.
  if (record) {
    const auto local = ctx.index().tasks_of(node_);
    for (std::size_t i = 0; i < local.size(); ++i) {
      if (ctx.tasks().status[local[i]] == core::TaskStatus::done && !snapshot.done[i]) {
        ++record->tasks_reexecuted;
        record->work_lost_seconds += ctx.task_seconds(local[i]);
      }
    }
    ++record->processes_rolled_back;
    record->restart_point = from_checkpoint ? "checkpoint " + std::to_string(shared_->committed) : "from scratch";
  }
  runtime.restore(snapshot);
  ready_for_ = 0;
  saving_ = 0;
  apply_task_limit(ctx);
  ready_for_ = 0;  // READY for the next cut only after the coordinator resumes everyone
  runtime.rebuild();

  if (!from_checkpoint) {
    restored(ctx);
    return;
  }
  if (shared_->stable_storage) {
    ctx.storage_transfer(snapshot.bytes, false, (std::uint64_t(epoch) << 1) | 1);
    return;
  }
  if (shared_->local_copy[node_]) {
    restored(ctx);  // its local copy
    return;
  }
  // A replacement lost the local copy (and may not have received it back yet): it needs the one
  // its buddy keeps, if the buddy has not failed since the checkpoint was committed.
  const NodeId buddy = shared_->buddies->first_buddy(node_);
  double committed_at = 0;
  for (const auto& record : ctx.metrics().checkpoints) {
    if (record.id == shared_->committed) committed_at = record.committed;
  }
  for (const auto& failure : ctx.metrics().failures) {
    if (failure.node == buddy && failure.time >= committed_at) {
      ctx.fail_run("unrecoverable: node " + std::to_string(node_) + " and its buddy node " + std::to_string(buddy) +
                   " both lost checkpoint " + std::to_string(shared_->committed) +
                   " (buddy storage keeps one copy per node; use \"storage\": \"stable\" to survive this)");
      return;
    }
  }
  ctx.send_control(buddy, kRestoreRequest, kServiceBytes, with_checkpoint(shared_->committed));
}

void RollbackProtocol::restored(ProtocolContext& ctx) {
  ctx.send_control(ctx.coordinator(), kRestored, kServiceBytes, with_checkpoint(ctx.epoch()));
}

void RollbackProtocol::on_failure_detected(ProtocolContext& ctx, NodeId failed) {
  if (!coordinator_) {
    roll_back(ctx, false, ctx.failure_record(failed));
    return;
  }
  const std::uint32_t epoch = ctx.detections();
  ctx.set_epoch(epoch);
  recovery_epoch_ = epoch;
  if (phase_ == Phase::gathering_ready || phase_ == Phase::gathering_saved) {
    for (auto& record : ctx.metrics().checkpoints) {
      if (record.id == next_checkpoint_ && record.committed < 0) record.aborted = true;
    }
  }
  phase_ = Phase::recovering;
  answers_ = 0;
  ++timer_generation_;  // no checkpoint until the recovery is over
}

void RollbackProtocol::maybe_resume(ProtocolContext& ctx) {
  if (phase_ != Phase::recovering) return;
  // Every node must have restored for the latest detection (a node restores once per epoch).
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (restored_epoch_.size() <= n || restored_epoch_[n] != recovery_epoch_) return;
  }
  // Every node is back at the restart point: resume.
  for (auto& failure : ctx.metrics().failures) {
    if (failure.recovered_at < 0 && failure.detected_at >= 0) failure.recovered_at = ctx.now();
  }
  next_checkpoint_ = shared_->committed + 1;
  answers_ = 0;
  phase_ = shared_->at_cuts ? Phase::gathering_ready : Phase::idle;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    ctx.send_control(n, kResume, kServiceBytes, with_checkpoint(recovery_epoch_));
  }
  arm_period_timer(ctx);
  ctx.check_completion();
}

void RollbackProtocol::on_restart(ProtocolContext& ctx) {
  // A restarted process first needs restart_cost (spawn, reconnection) before it can restore.
  shared_->local_copy[node_] = false;
  const double cost = ctx.config().protocol.restart_cost;
  if (cost > 0) {
    ctx.runtime().pause();
    ctx.set_epoch(ctx.detections());
    ctx.set_timer(cost, kRestartDelayToken);
  } else {
    roll_back(ctx, true, ctx.failure_record(node_));
  }
}

void RollbackProtocol::on_control(ProtocolContext& ctx, const Message& m) {
  if (coordinator_) {
    coordinator_message(ctx, m);
    return;
  }
  const std::uint32_t checkpoint = checkpoint_of(m);
  switch (m.control_type) {
    case kRequest:
      if (m.epoch != ctx.epoch()) return;
      checkpoint_began_ = ctx.now();
      ctx.runtime().pause();
      ready_for_ = checkpoint;
      try_ready(ctx);
      break;
    case kSave:
      if (m.epoch != ctx.epoch()) return;
      save(ctx, checkpoint);
      break;
    case kCommit:
      if (m.epoch != ctx.epoch()) return;
      if (ctx.trace()) {
        ctx.trace()->span(node_, "checkpoint " + std::to_string(checkpoint), "checkpoint",
                          checkpoint_began_ >= 0 ? checkpoint_began_ : ctx.now(), ctx.now());
      }
      checkpoint_began_ = -1;
      ctx.runtime().resume();
      apply_task_limit(ctx);
      try_ready(ctx);
      break;
    case kResume:
      if (m.epoch != ctx.epoch()) return;
      if (ctx.trace() && recovery_began_ >= 0) {
        ctx.trace()->span(node_, "rollback and restore", "recovery", recovery_began_, ctx.now());
      }
      recovery_began_ = -1;
      ctx.runtime().resume();
      if (!shared_->checkpoints || shared_->committed == 0) ctx.runtime().send_initial_values();
      apply_task_limit(ctx);
      try_ready(ctx);
      break;
    case kCheckpointData: {
      auto& held = shared_->held_for_others;
      const NodeId nodes = ctx.node_count();
      held[nodes + node_] += m.bytes;
      auto& metrics = ctx.metrics();
      metrics.in_mem_cp_data_total += m.bytes;
      metrics.in_mem_cp_data_max_at_t = std::max(metrics.in_mem_cp_data_max_at_t, held[node_] + held[nodes + node_]);
      ctx.send_control(m.source, kCheckpointAck, kServiceBytes, with_checkpoint(checkpoint));
      break;
    }
    case kCheckpointAck:
      if (checkpoint == saving_) {
        saving_ = 0;
        ctx.send_control(ctx.coordinator(), kSaved, kServiceBytes, with_checkpoint(checkpoint));
      }
      break;
    case kRestoreRequest:
      ctx.send_control(m.source, kRestoreData, shared_->committed_state[m.source].bytes, with_checkpoint(checkpoint),
                       core::Traffic::restore);
      break;
    case kRestoreData:
      if (m.epoch != ctx.epoch() || checkpoint != shared_->committed) return;  // an older recovery's
      shared_->local_copy[node_] = true;
      restored(ctx);
      break;
    default: break;
  }
}

// ============================================================================ coordinator side

void RollbackProtocol::broadcast(ProtocolContext& ctx, std::uint32_t type, std::uint32_t checkpoint) {
  for (NodeId n = 0; n < ctx.node_count(); ++n) ctx.send_control(n, type, kServiceBytes, with_checkpoint(checkpoint));
}

void RollbackProtocol::start_checkpoint(ProtocolContext& ctx) {
  phase_ = Phase::gathering_ready;
  answers_ = 0;
  core::CheckpointRecord record;
  record.id = next_checkpoint_;
  record.started = ctx.now();
  ctx.metrics().checkpoints.push_back(record);
  broadcast(ctx, kRequest, next_checkpoint_);
}

void RollbackProtocol::coordinator_message(ProtocolContext& ctx, const Message& m) {
  const std::uint32_t value = checkpoint_of(m);
  auto& checkpoints = ctx.metrics().checkpoints;
  switch (m.control_type) {
    case kReady:
      if (m.epoch != ctx.epoch() || value != next_checkpoint_ || phase_ != Phase::gathering_ready) return;
      if (checkpoints.empty() || checkpoints.back().id != value || checkpoints.back().aborted) {
        core::CheckpointRecord record;
        record.id = value;
        record.started = ctx.now();
        checkpoints.push_back(record);
      }
      if (++answers_ == ctx.node_count()) {
        phase_ = Phase::gathering_saved;
        answers_ = 0;
        broadcast(ctx, kSave, value);
      }
      break;
    case kSaved:
      if (m.epoch != ctx.epoch() || value != next_checkpoint_ || phase_ != Phase::gathering_saved) return;
      if (++answers_ == ctx.node_count()) {
        // Commit: the saved states become the restart point.
        shared_->committed = value;
        std::swap(shared_->committed_state, shared_->pending_state);
        shared_->local_copy.assign(ctx.node_count(), true);
        const NodeId nodes = ctx.node_count();
        std::uint64_t bytes = 0;
        for (NodeId n = 0; n < nodes; ++n) {
          bytes += shared_->committed_state[n].bytes;
          shared_->held_for_others[n] = shared_->held_for_others[nodes + n];
          shared_->held_for_others[nodes + n] = 0;
        }
        auto& record = checkpoints.back();
        record.saved = record.committed = ctx.now();
        record.bytes = bytes;
        ++next_checkpoint_;
        answers_ = 0;
        phase_ = shared_->at_cuts ? Phase::gathering_ready : Phase::idle;
        broadcast(ctx, kCommit, value);
        arm_period_timer(ctx);
      }
      break;
    case kRestored:
      if (restored_epoch_.size() < ctx.node_count()) restored_epoch_.assign(ctx.node_count(), 0);
      // Messages of two recoveries may cross: keep the latest epoch a node restored for.
      restored_epoch_[m.source] = std::max(restored_epoch_[m.source], value);
      maybe_resume(ctx);
      break;
    default: break;
  }
}

}  // namespace ftsim::protocols
