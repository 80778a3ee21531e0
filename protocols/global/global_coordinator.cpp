#include "protocols/global/global_coordinator.hpp"

#include <algorithm>
#include <stdexcept>

namespace ftsim::protocols::global {

using namespace messages;

void GlobalCoordinator::enter(CoordinatorState to) {
  using S = CoordinatorState;
  const S from = state_;
  bool legal = false;
  switch (to) {
    case S::idle:  // a commit or a recovery with no checkpoint to gather next (periodic, or no cut left)
      legal = from == S::gathering_saved || from == S::recovering;
      break;
    case S::gathering_ready:  // the period timer, the run's start at cuts, a commit or a recovery at cuts
      legal = from == S::idle || from == S::gathering_saved || from == S::recovering;
      break;
    case S::gathering_saved:  // every READY in
      legal = from == S::gathering_ready;
      break;
    case S::recovering:  // a failure notice, in any state (a second one restarts the recovery)
      legal = true;
      break;
  }
  if (!legal) {
    throw std::logic_error("protocol bug: global coordinator: no transition from state " +
                           std::to_string(static_cast<int>(from)) + " to " + std::to_string(static_cast<int>(to)));
  }
  state_ = to;
}

CoordinatorState GlobalCoordinator::between_checkpoints() const {
  return options_.at_cuts && next_checkpoint_ <= options_.cut_positions.size() ? CoordinatorState::gathering_ready
                                                                                : CoordinatorState::idle;
}

void GlobalCoordinator::on_start(ProtocolContext& ctx) {
  expected_.assign(ctx.node_count(), 0);
  restored_epoch_.assign(ctx.node_count(), 0);
  restored_checkpoint_.assign(ctx.node_count(), 0);
  arm_period_timer(ctx);
  if (options_.at_cuts && !options_.cut_positions.empty()) enter(CoordinatorState::gathering_ready);
}

void GlobalCoordinator::arm_period_timer(ProtocolContext& ctx) {
  if (options_.at_cuts || options_.period <= 0) return;
  if (period_timer_) ctx.cancel_timer(*period_timer_);
  period_timer_ = ctx.set_timer(options_.period, 0);
}

void GlobalCoordinator::on_timer(ProtocolContext& ctx, std::uint64_t token) {
  if (period_timer_ && token == 0 && state_ == CoordinatorState::idle) {
    period_timer_.reset();
    start_checkpoint(ctx);
  }
}

void GlobalCoordinator::start_checkpoint(ProtocolContext& ctx) {
  enter(CoordinatorState::gathering_ready);
  answers_ = 0;
  std::fill(expected_.begin(), expected_.end(), 0);
  record_ = node::CheckpointRecord{};
  record_.id = next_checkpoint_;
  record_.started = ctx.now();
  ctx.record_checkpoint(record_);
  if (ctx.recording()) ctx.note("checkpoint " + std::to_string(next_checkpoint_) + ": every node stops");
  for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kRequest, with(next_checkpoint_, ctx.epoch()));
}

void GlobalCoordinator::on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  ctx.set_epoch(notice.sequence);
  recovery_epoch_ = notice.sequence;
  // Counted here once per failure, then kept up to date per answer (not a scan per answer).
  restored_count_ = 0;
  for (NodeId n = 0; n < restored_epoch_.size(); ++n) restored_count_ += restored_now(n) ? 1 : 0;
  const bool gathering_ready = state_ == CoordinatorState::gathering_ready;
  if ((gathering_ready && answers_ > 0) || state_ == CoordinatorState::gathering_saved ||
      (gathering_ready && !options_.at_cuts)) {
    record_.aborted = true;
    ctx.record_checkpoint(record_);
    if (ctx.recording()) ctx.note("checkpoint " + std::to_string(record_.id) + " aborted");
  }
  enter(CoordinatorState::recovering);
  answers_ = 0;
  if (period_timer_) {  // no checkpoint until the recovery is over
    ctx.cancel_timer(*period_timer_);
    period_timer_.reset();
  }
  unrecovered_.push_back(notice);
  send_recover(ctx, notice);
}

void GlobalCoordinator::send_recover(ProtocolContext& ctx, const FailureNotice& cause) {
  // Every rank restores the last committed checkpoint; a rank being replaced gets this when
  // its replacement is up.
  Control recover = with(committed_, recovery_epoch_);
  recover.cause = cause;
  if (ctx.recording()) {
    ctx.note("epoch " + std::to_string(recovery_epoch_) + ": every node restores " +
            (recover.checkpoint > 0 ? "checkpoint " + std::to_string(recover.checkpoint) : std::string("the initial state")));
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kRecover, recover);
}

void GlobalCoordinator::on_lost(ProtocolContext& ctx, NodeId from, const Control& c) {
  if (state_ != CoordinatorState::recovering || c.epoch != recovery_epoch_ || c.checkpoint != committed_) return;
  // A level failed this recovery: back to the latest checkpoint on the next more durable level,
  // which every node can restore (its local copy, or that level). The checkpoints after it are void.
  const std::optional<std::uint32_t> back = options_.fallback(committed_);
  if (!back) {
    ctx.fail_run("unrecoverable: checkpoint " + std::to_string(committed_) + " of node " + std::to_string(from) +
                 " is lost at every level it was saved on (more failures at once than " +
                 level_name(options_.levels[options_.top_level(committed_)].storage) + " can survive)");
    return;
  }
  const std::uint32_t fallback = *back;
  if (ctx.recording()) {
    const LevelStorage next = options_.levels[options_.top_level(committed_) + 1].storage;
    ctx.note("checkpoint " + std::to_string(committed_) + " is lost: every node falls back to " +
             (fallback > 0 ? "checkpoint " + std::to_string(fallback) + " on " + level_name(next) : std::string("the initial state")));
  }
  committed_ = fallback;
  restored_count_ = 0;
  for (NodeId n = 0; n < restored_epoch_.size(); ++n) restored_count_ += restored_now(n) ? 1 : 0;
  send_recover(ctx, unrecovered_.back());
}

void GlobalCoordinator::maybe_resume(ProtocolContext& ctx) {
  if (state_ != CoordinatorState::recovering || restored_count_ != ctx.node_count()) return;
  // Every node is back at the restart point: resume.
  for (const FailureNotice& notice : unrecovered_) {
    node::FailureEffect effect;
    effect.restart_point = committed_ > 0 ? "checkpoint " + std::to_string(committed_) : "from scratch";
    ctx.record_failure_effect(notice, effect);
    ctx.record_recovered(notice);
  }
  unrecovered_.clear();
  next_checkpoint_ = committed_ + 1;
  answers_ = 0;
  std::fill(expected_.begin(), expected_.end(), 0);
  enter(between_checkpoints());
  if (ctx.recording()) ctx.note("epoch " + std::to_string(recovery_epoch_) + ": every node restored, resume");
  for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kResume, with(committed_, recovery_epoch_));
  arm_period_timer(ctx);
  ctx.check_completion();
}

void GlobalCoordinator::on_message(ProtocolContext& ctx, const Message& m) {
  const Control c = node::decode<Control>(m);
  switch (m.control_type) {
    case kReady: on_ready(ctx, c); break;
    case kSaved: on_saved(ctx, c); break;
    case kRestored: on_restored(ctx, m.source, c); break;
    case kLost: on_lost(ctx, m.source, c); break;
    default: break;
  }
}

void GlobalCoordinator::on_ready(ProtocolContext& ctx, const Control& c) {
  if (c.epoch != ctx.epoch() || c.checkpoint != next_checkpoint_ || state_ != CoordinatorState::gathering_ready) return;
  if (answers_ == 0 && options_.at_cuts) {
    // At cuts the first node to reach the cut starts the checkpoint.
    record_ = node::CheckpointRecord{};
    record_.id = c.checkpoint;
    record_.started = ctx.now();
    ctx.record_checkpoint(record_);
  }
  for (auto [node, count] : c.sent) {
    if (node < expected_.size()) expected_[node] += count;
  }
  if (++answers_ == ctx.node_count()) {
    enter(CoordinatorState::gathering_saved);
    answers_ = 0;
    for (NodeId n = 0; n < ctx.node_count(); ++n) {
      Control save = with(c.checkpoint, ctx.epoch());
      save.count = expected_[n];
      send(ctx, n, kSave, save);
    }
  }
}

void GlobalCoordinator::on_saved(ProtocolContext& ctx, const Control& c) {
  if (c.epoch != ctx.epoch() || c.checkpoint != next_checkpoint_ || state_ != CoordinatorState::gathering_saved) return;
  record_.bytes += c.count;
  if (++answers_ != ctx.node_count()) return;
  // Commit: the saved states become the restart point.
  committed_ = c.checkpoint;
  if (ctx.recording()) ctx.note("checkpoint " + std::to_string(committed_) + " committed (" + std::to_string(record_.bytes) + " B)");
  record_.saved = record_.committed = ctx.now();
  ctx.record_checkpoint(record_);
  ++next_checkpoint_;
  answers_ = 0;
  std::fill(expected_.begin(), expected_.end(), 0);
  enter(between_checkpoints());
  for (NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kCommit, with(committed_, ctx.epoch()));
  arm_period_timer(ctx);
}

void GlobalCoordinator::on_restored(ProtocolContext& ctx, NodeId from, const Control& c) {
  // Messages of two recoveries may cross: keep the latest epoch a node restored for.
  // (With levels a node may restore twice in one epoch: the second time, the fallback.)
  if (c.epoch > restored_epoch_[from] || (c.epoch == restored_epoch_[from] && c.checkpoint != restored_checkpoint_[from])) {
    if (restored_now(from)) --restored_count_;
    restored_epoch_[from] = c.epoch;
    restored_checkpoint_[from] = c.checkpoint;
    if (restored_now(from)) ++restored_count_;
  }
  maybe_resume(ctx);
}

std::string GlobalCoordinator::phase(ProtocolContext& ctx) const {
  switch (state_) {
    case CoordinatorState::idle: return {};
    case CoordinatorState::gathering_ready:
      return "checkpoint " + std::to_string(next_checkpoint_) + ": waiting for READY (" + std::to_string(answers_) +
             " of " + std::to_string(ctx.node_count()) + " nodes)";
    case CoordinatorState::gathering_saved:
      return "checkpoint " + std::to_string(next_checkpoint_) + ": waiting for SAVED (" + std::to_string(answers_) +
             " of " + std::to_string(ctx.node_count()) + " nodes)";
    case CoordinatorState::recovering:
      return "recovery of epoch " + std::to_string(recovery_epoch_) + ": waiting for the nodes to restore";
  }
  return {};
}

}  // namespace ftsim::protocols::global
