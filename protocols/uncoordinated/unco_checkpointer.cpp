#include "protocols/uncoordinated/unco_checkpointer.hpp"

#include <stdexcept>

#include "protocols/uncoordinated/unco_metrics.hpp"

namespace ftsim::protocols::uncoordinated {

void Checkpointer::transition(CheckpointState next) {
  using S = CheckpointState;
  bool legal = false;
  switch (state_) {
    case S::idle: legal = next == S::due || next == S::stopped; break;
    case S::due: legal = next == S::idle || next == S::draining || next == S::stopped_due; break;  // idle: nothing left to protect
    case S::draining: legal = next == S::encoding || next == S::writing || next == S::stopped_due; break;
    case S::encoding: legal = next == S::writing || next == S::stopped_due; break;
    case S::writing: legal = next == S::idle || next == S::stopped_due; break;
    case S::stopped: legal = next == S::stopped_due || next == S::idle; break;
    case S::stopped_due: legal = next == S::due; break;
  }
  if (!legal) {
    throw std::logic_error("uncoordinated: protocol bug: node " + std::to_string(node_) + " checkpoint state " +
                           std::to_string(int(state_)) + " -> " + std::to_string(int(next)));
  }
  state_ = next;
}

void Checkpointer::on_timer(node::ProtocolContext& ctx, std::uint64_t token) {
  if (!timer_.fired(token)) return;
  if (ctx.runtime().remaining_tasks() == 0) return;  // nothing left to protect
  if (progress_ == 0 && state_ == CheckpointState::idle) {
    timer_.arm(ctx);  // nothing ran and nothing came since its last checkpoint: the same state
    return;
  }
  // Its timer runs only while none is due (idle, or stopped by a recovery).
  transition(state_ == CheckpointState::idle ? CheckpointState::due : CheckpointState::stopped_due);
  try_checkpoint(ctx);
}

void Checkpointer::try_checkpoint(node::ProtocolContext& ctx) {
  if ((state_ != CheckpointState::due && state_ != CheckpointState::draining) || abandoned_write_ != 0) return;
  node::ProtocolRuntime runtime = ctx.runtime();
  if (state_ == CheckpointState::due) {
    if (runtime.remaining_tasks() == 0) {
      transition(CheckpointState::idle);
      return;
    }
    // Blocking: no task starts, those running finish, every message sent leaves and, under the
    // send rule, is acknowledged (its SPE entry or log entry belongs to this checkpoint).
    transition(CheckpointState::draining);
    save_began_ = ctx.now();
    runtime.pause();
  }
  if (!runtime.quiescent()) return;
  if (options_.logging == Logging::send_deterministic && !log_.all_acked()) return;
  save(ctx);
}

void Checkpointer::acknowledged(node::ProtocolContext& ctx) {
  if (state_ == CheckpointState::draining) try_checkpoint(ctx);
  if (ctx.runtime().remaining_tasks() == 0) ctx.check_completion();  // the last acknowledgement may end the run
}

void Checkpointer::save(node::ProtocolContext& ctx) {
  writing_ = checkpoints_ + 1;
  progress_ = 0;
  node::NodeSnapshot snapshot = ctx.runtime().snapshot();
  log_.add_logged_versions(ctx, snapshot);
  node::Bytes tables;
  node::WireWriter t(tables);
  log_.write_tables(t);
  CheckpointStore::Encoded encoded = store_.encode(ctx, writing_, snapshot, tables);
  // Data arriving now waits: it belongs to the next epoch.
  transition(encoded.charge > 0 ? CheckpointState::encoding : CheckpointState::writing);
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += encoded.bytes;
  save_bytes_ = encoded.bytes;
  if (ctx.recording()) {
    ctx.note("checkpoint " + std::to_string(writing_) + " (epoch " + std::to_string(clock_.epoch()) + "): " + std::to_string(encoded.bytes) +
                 " B to stable storage",
             "checkpoint");
  }
  store_.write(ctx, writing_, std::move(encoded.content), encoded.bytes, encoded.charge);
}

void Checkpointer::on_encoded(node::ProtocolContext& ctx) {
  auto image = store_.take_encoded();
  if (!image) return;
  if (state_ != CheckpointState::encoding || image->first != writing_ || abandoned_write_ != 0) return;  // abandoned since
  transition(CheckpointState::writing);
  store_.write(ctx, image->first, std::move(image->second), save_bytes_, 0);
}

void Checkpointer::on_written(node::ProtocolContext& ctx, std::uint32_t checkpoint) {
  if (state_ == CheckpointState::writing && checkpoint == writing_ && abandoned_write_ == 0) {
    saved(ctx);
  } else if (checkpoint == abandoned_write_) {
    // A save a recovery abandoned: not a checkpoint. No save started since (same number).
    store_.erase(ctx, checkpoint);
    abandoned_write_ = 0;
    try_checkpoint(ctx);
  }
}

void Checkpointer::saved(node::ProtocolContext& ctx) {
  // The state it saved is its state now (nothing happened since: paused, data deferred).
  checkpoints_ = writing_;
  writing_ = 0;
  ctx.record_local_checkpoint(checkpoints_);
  node::CheckpointRecord record;
  record.id = checkpoints_;
  record.process = node_;
  record.started = save_began_;
  record.saved = record.committed = ctx.now();
  record.bytes = save_bytes_;
  ctx.record_checkpoint(record);
  if (ctx.recording()) ctx.record_span("checkpoint " + std::to_string(checkpoints_), "checkpoint", save_began_);
  clock_.next_epoch(options_.logging == Logging::send_deterministic);
  ctx.counters().add(kCheckpoints);
  messages::send(ctx, ctx.coordinator(), messages::Checkpointed{checkpoints_, clock_.epoch()});
  transition(CheckpointState::idle);
  ctx.runtime().resume();
  ctx.redeliver_deferred();
  timer_.arm(ctx);
  ctx.check_completion();
}

// ----------------------------------------------------------------------------- recovery

void Checkpointer::stop() {
  if (state_ == CheckpointState::writing) abandoned_write_ = writing_;  // its completion is then erased
  if (state_ == CheckpointState::encoding || state_ == CheckpointState::writing) store_.abandon(checkpoints_);
  writing_ = 0;
  switch (state_) {
    case CheckpointState::idle: transition(CheckpointState::stopped); break;
    case CheckpointState::stopped:
    case CheckpointState::stopped_due: break;
    default: transition(CheckpointState::stopped_due); break;  // a save in progress is abandoned; it is still due
  }
}

void Checkpointer::resume() { transition(state_ == CheckpointState::stopped_due ? CheckpointState::due : CheckpointState::idle); }

void Checkpointer::restart_timer(node::ProtocolContext& ctx) {
  if (state_ != CheckpointState::idle) {
    try_checkpoint(ctx);
  } else if (!timer_.armed()) {
    timer_.arm(ctx);
  }
}

std::uint32_t Checkpointer::restore(node::ProtocolContext& ctx, Saved saved, bool keep_memory) {
  const std::uint32_t checkpoint = saved.tables.epoch - options_.first_epoch[node_];
  log_.restore(ctx, saved, keep_memory);
  // Checkpoints after this one belong to an execution that no longer exists.
  store_.restored(ctx, checkpoint, checkpoints_);
  checkpoints_ = checkpoint;
  writing_ = 0;
  clock_.restore(saved.tables);
  ctx.runtime().rebuild();  // still paused
  fresh_ = true;
  return checkpoint;
}

std::string Checkpointer::phase(node::ProtocolContext& ctx) const {
  switch (state_) {
    case CheckpointState::draining:
      return ctx.runtime().quiescent() ? "checkpoint: waiting for acknowledgements" : "checkpoint: waiting for its tasks and sends";
    case CheckpointState::encoding:
    case CheckpointState::writing: return "checkpoint " + std::to_string(writing_) + ": writing to stable storage";
    default: return {};
  }
}

}  // namespace ftsim::protocols::uncoordinated
