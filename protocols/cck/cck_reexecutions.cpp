#include "protocols/cck/cck_reexecutions.hpp"

#include "protocols/cck/cck_metrics.hpp"

namespace ftsim::protocols::cck {

void Reexecutions::owe(std::uint64_t round, std::uint64_t tasks, std::uint64_t resends, bool restored) {
  owed_ = Done{round, tasks, resends, restored};
}

void Reexecutions::report_if_done(node::ProtocolContext& ctx) {
  if (!pending_.empty() || !owed_) return;
  Control done;
  done.round = owed_->round;
  done.tasks = owed_->tasks;
  done.messages = owed_->resends;
  done.restored = owed_->restored;
  owed_.reset();
  post_.to_coordinator(ctx, kDone, done);
}

void Reexecutions::on_completed(node::ProtocolContext& ctx, TaskId task, const node::FailureNotice& cause) {
  if (pending_.empty() || pending_.erase(task) == 0) return;
  ctx.counters().add(kSurvivorReexecutions);
  node::FailureEffect effect;
  effect.tasks_reexecuted = 1;
  effect.work_lost_seconds = ctx.task_seconds(task);
  ctx.record_failure_effect(cause, effect);
  report_if_done(ctx);
}

}  // namespace ftsim::protocols::cck
