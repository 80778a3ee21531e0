#include "protocols/uncoordinated/unco_recovery.hpp"

#include <stdexcept>

#include "protocols/uncoordinated/unco_metrics.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;

void Recovery::transition(RecoveryState next) {
  using S = RecoveryState;
  bool legal = false;
  switch (state_) {
    case S::running: legal = next == S::stopped || next == S::restarted; break;
    case S::restarted: legal = next == S::reloading; break;
    case S::reloading: legal = next == S::stopped; break;  // read back: it reports as restarted
    case S::stopped: legal = next == S::applied || next == S::restoring; break;
    case S::restoring: legal = next == S::applied || next == S::stopped; break;  // stopped: a newer round overtook it
    case S::applied: legal = next == S::released || next == S::stopped; break;
    case S::released: legal = next == S::running || next == S::stopped; break;
  }
  if (!legal) {
    throw std::logic_error("uncoordinated: protocol bug: node " + std::to_string(node_) + " recovery state " +
                           std::to_string(int(state_)) + " -> " + std::to_string(int(next)));
  }
  state_ = next;
}

void Recovery::stop(node::ProtocolContext& ctx) {
  // l. 55: blocked. What runs now is thrown away (it may be rolled back); data waits.
  if (state_ == RecoveryState::running) began_ = ctx.now();
  checkpointer_.stop();  // a save in progress is abandoned
  node::ProtocolRuntime runtime = ctx.runtime();
  runtime.abort();
  runtime.pause();
  runtime.rebuild();  // what abort() took off the ready queue is ready again (it starts on resume)
  // A replacement waiting for ROUND or reading its checkpoint, or a rollback under way, goes on.
  if (state_ == RecoveryState::running || state_ == RecoveryState::applied || state_ == RecoveryState::released) {
    transition(RecoveryState::stopped);
  }
}

void Recovery::on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) {
  // A failed node's new process holds nothing: it waits for ROUND (with its last checkpoint).
  transition(RecoveryState::restarted);
  checkpointer_.stop();
  began_ = ctx.now();
  cause_ = {node_, info.incarnation - 1, info.last_sequence};
  ctx.runtime().pause();
}

void Recovery::on_round(node::ProtocolContext& ctx, const messages::Round& round) {
  if (round.round <= round_) return;
  round_ = round.round;
  line_.reset();
  replays_.begin_round();
  stop(ctx);
  if (state_ == RecoveryState::reloading || state_ == RecoveryState::restoring) return;  // reports once its checkpoint is read back
  if (state_ == RecoveryState::restarted) {
    // l. 48: its last checkpoint; the coordinator may not know the very last one yet.
    transition(RecoveryState::reloading);
    store_.probe(ctx, round.latest);
    return;
  }
  report(ctx);
}

void Recovery::report(node::ProtocolContext& ctx) {
  messages::Report report;
  report.round = round_;
  report.incarnation = ctx.incarnation();
  report.restart_epoch = restart_epoch_;
  report.epoch = clock_.epoch();
  report.first_epoch = options_.first_epoch[node_];
  report.epoch_dates = clock_.epoch_dates();
  report.dependencies = log_.dependencies();
  messages::send(ctx, ctx.coordinator(), report);
}

void Recovery::on_line(node::ProtocolContext& ctx, messages::Line line) {
  if (line.round != round_ || state_ != RecoveryState::stopped) return;
  line_ = std::move(line);
  apply_line(ctx);
}

void Recovery::apply_line(node::ProtocolContext& ctx) {
  const messages::Line& line = *line_;
  log_.apply_line(line);
  const std::uint32_t restart = line.epochs[node_];
  if (restart == kNoEpoch) {  // l. 73: not rolled back, blocked in its phase
    replays_.set_status(Replays::Status::blocked);
    restored(ctx);
    return;
  }
  replays_.set_status(Replays::Status::rolled_back);
  restart_epoch_ = restart;
  ctx.set_epoch(line.round);  // its messages from now on are of a new generation
  if (checkpointer_.at_restored(restart)) {  // still exactly at the checkpoint it restored (nothing received or run since)
    restored(ctx);
    return;
  }
  transition(RecoveryState::restoring);
  const std::uint32_t first = options_.first_epoch[node_];
  if (restart == first) {  // the job's input
    install(ctx, Saved{ctx.runtime().initial_snapshot(), Tables::start(first)});
    return;
  }
  store_.read(ctx, restart - first);  // l. 60: that checkpoint, from stable storage
}

void Recovery::on_read(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (state_ != RecoveryState::reloading && state_ != RecoveryState::restoring) return;
  if (std::optional<Saved> saved = store_.on_read(ctx, token, content)) install(ctx, std::move(*saved));
}

void Recovery::on_decoded(node::ProtocolContext& ctx) {
  if (state_ != RecoveryState::reloading && state_ != RecoveryState::restoring) return;
  if (std::optional<Saved> saved = store_.take_decoded()) install(ctx, std::move(*saved));
}

void Recovery::install(node::ProtocolContext& ctx, Saved saved) {
  const bool replacement = state_ == RecoveryState::reloading;
  // What this rollback undoes (a replacement had nothing: the world counts its re-executions).
  if (!replacement) {
    node::ProtocolRuntime runtime = ctx.runtime();
    node::FailureEffect effect;
    const auto local = ctx.index().tasks_of(node_);
    for (std::size_t i = 0; i < local.size(); ++i) {
      if (runtime.status(local[i]) == node::TaskStatus::done && !saved.snapshot.done[i]) {
        ++effect.tasks_reexecuted;
        effect.work_lost_seconds += ctx.task_seconds(local[i]);
      }
    }
    ctx.counters().add(kTasksUndone, effect.tasks_reexecuted);
    ctx.record_failure_effect(cause_, effect);
  }
  const std::uint32_t checkpoint = checkpointer_.restore(ctx, std::move(saved), !replacement);
  replays_.restored_to(checkpoint);
  if (ctx.recording()) {
    ctx.note(std::string(replacement ? "restored" : "rolled back to") + " checkpoint " + std::to_string(checkpoint) + " (epoch " +
                 std::to_string(clock_.epoch()) + ")",
             "recovery");
  }
  if (replacement || !line_ || line_->round != round_) {
    // l. 48-52: a replacement back at its last checkpoint reports as restarted; so does a process
    // whose rollback a newer round overtook (its restart is part of the recovery under way).
    restart_epoch_ = clock_.epoch();
    transition(RecoveryState::stopped);
    line_.reset();
    report(ctx);
    return;
  }
  restored(ctx);
}

void Recovery::restored(node::ProtocolContext& ctx) {
  transition(RecoveryState::applied);
  // The phase it is blocked (or rolled back) in: what it receives while it waits does not move it.
  replays_.block(clock_.phase());
  ctx.redeliver_deferred();  // what arrived meanwhile, judged against the line
  replays_.send_lists(ctx, *line_, round_);
}

void Recovery::on_lists(node::ProtocolContext& ctx, node::NodeId from, messages::Lists lists) {
  if (lists.round != round_) return;
  if (waits_for_line()) {
    replays_.hold_lists(from, std::move(lists));  // judged once this process is restored
    return;
  }
  replays_.on_lists(ctx, from, lists);
}

void Recovery::serve_replays(node::ProtocolContext& ctx) {
  if (!waits_for_line()) replays_.serve(ctx);
}

void Recovery::on_ready(node::ProtocolContext& ctx, const messages::Ready& ready) {
  if (ready.round != round_ || !line_) return;
  replays_.on_ready(ready.phase);
  serve_replays(ctx);
  maybe_run(ctx);
  if (ready.phase == kNoEpoch) end_recovery(ctx);
}

void Recovery::maybe_run(node::ProtocolContext& ctx) {
  if (state_ != RecoveryState::applied || !replays_.may_run()) return;
  transition(RecoveryState::released);
  checkpointer_.left_restored();
  ctx.runtime().resume();
  replays_.resumed(ctx);
}

void Recovery::end_recovery(node::ProtocolContext& ctx) {
  maybe_run(ctx);
  if (state_ != RecoveryState::released) return;
  if (ctx.recording()) ctx.record_span("recovery round " + std::to_string(round_), "recovery", began_);
  transition(RecoveryState::running);
  restart_epoch_ = kNoEpoch;
  replays_.end();
  checkpointer_.resume();
  for (const auto& [from, ack] : log_.end_recovery(ctx)) {
    if (log_.on_ack(ctx, from, ack)) checkpointer_.acknowledged(ctx);
  }
  serve_replays(ctx);
  checkpointer_.restart_timer(ctx);
  ctx.check_completion();
}

std::string Recovery::phase() const {
  const std::string round = "recovery round " + std::to_string(round_) + ": ";
  switch (state_) {
    case RecoveryState::running: return {};
    case RecoveryState::restarted: return round + "restarted, waiting for ROUND";
    case RecoveryState::stopped: return round + (line_ ? "applying the line" : "stopped, waiting for the recovery line");
    case RecoveryState::reloading:
    case RecoveryState::restoring: return round + "reading checkpoint " + std::to_string(store_.reading()) + " back";
    case RecoveryState::applied: return round + replays_.phase();
    case RecoveryState::released: return round + "running again, waiting for the end of the phases";
  }
  return {};
}

}  // namespace ftsim::protocols::uncoordinated
