// CCK, the restart on an application node (Besseron 2006 §3.5.5): stop and flush (1), build the
// communication-restricted graph (2), all-gather the graphs (3), compute C_perdues, C_total and
// T_a_re-executer (4-6, cck_planning.cpp), restart the tasks (7). A replacement restores its
// checkpoint K from its server; a survivor keeps its state and re-executes T^p from its own copy.
#include "protocols/cck/cck_metrics.hpp"
#include "protocols/cck/cck_protocol.hpp"
#include "protocols/mutants.hpp"

namespace ftsim::protocols::cck {

void CckProtocol::on_restart_order(ProtocolContext& ctx, const Control& c) {
  if (c.round <= round_) return;  // an older round, or one it has joined
  round_ = c.round;
  completed_ = c.completed;
  if (c.cause.sequence >= cause_.sequence) cause_ = c.cause;
  abandon_checkpoint(ctx);
  // Checkpoint K is the restart point: copies newer than K were never validated.
  valid_ = c.checkpoint;
  for (auto it = copies_.begin(); it != copies_.end();) it = it->first != valid_ ? copies_.erase(it) : std::next(it);
  next_cut_ = c.valid;
  restart_ = RestartSession{};
  restart_.active = true;
  restart_.round = c.round;
  restart_.checkpoint = c.checkpoint;
  restart_.restoring = !restored_;
  restart_.began = ctx.now();
  done_sent_ = true;  // a DONE owed for an older round is superseded by this round's
  core::ProtocolRuntime runtime = ctx.runtime();
  runtime.pause();
  if (writer_) {
    // /checkpoint_data: its next image is a full one (a replacement lost its hashes; a survivor
    // re-executes from its copy of K, and its later images were never validated).
    writer_->restart_chain();
    pending_restore_.reset();
    fetch_.begin(0);
  }
  if (restart_.restoring) {
    if (c.checkpoint == 0) {
      restart_.state = runtime.initial_snapshot();
    } else {
      ctx.storage_read(self_ % options_->servers, checkpoint_key(self_, c.checkpoint), kReadToken | c.checkpoint);
    }
  } else if (c.checkpoint > 0 && copies_.count(c.checkpoint) == 0) {
    ctx.fail_run("cck: node " + std::to_string(self_) + " has no local copy of the valid checkpoint " +
                 std::to_string(c.checkpoint) + " (a protocol bug)");
    return;
  }
  if (ctx.recording()) {
    ctx.note("restart round " + std::to_string(round_sequence(round_)) + " from checkpoint " + std::to_string(c.checkpoint) +
                 (restart_.restoring ? ": restores it" : ": keeps its state"),
             "recovery");
  }
  for (auto it = early_restart_pings_.begin(); it != early_restart_pings_.end();) {
    if (it->first == round_) restart_.pings = it->second;
    it = it->first <= round_ ? early_restart_pings_.erase(it) : std::next(it);
  }
  try_restart_stop(ctx);
}

void CckProtocol::try_restart_stop(ProtocolContext& ctx) {
  if (!node_ || !restart_.active || restart_.stopped) return;
  if (!restart_.restoring && !ctx.runtime().quiescent()) return;
  // Step 1: stopped; flush the channels from V (a replacement expects nothing yet: what it needs
  // comes again once the round is planned).
  restart_.stopped = true;
  if (!restart_.restoring) restart_.expect_from = expected_senders(ctx);
  restart_.pongs_expected = restart_.expect_from.size();
  Control pong;
  pong.round = round_;
  pong.session = Session::restart;
  for (NodeId n : restart_.pings.members()) to_node(ctx, n, kPong, pong);
  for (NodeId n : restart_.expect_from) to_node(ctx, n, kPing, pong);
  if (restart_.expect_from.empty()) {
    restart_.flushed = true;
    start_gather(ctx);
  }
}

void CckProtocol::on_restart_ping(ProtocolContext& ctx, NodeId from, const Control& c) {
  Control pong;
  pong.round = c.round;
  pong.session = Session::restart;
  if (c.round == round_ && restart_.active) {
    restart_.pings.insert(from);
    if (restart_.stopped) to_node(ctx, from, kPong, pong);
  } else if (c.round > round_) {
    early_restart_pings_[c.round].insert(from);
  } else if (c.round == round_) {
    to_node(ctx, from, kPong, pong);  // its part of the round is over
  }
}

void CckProtocol::on_restart_pong(ProtocolContext& ctx, NodeId from, const Control& c) {
  if (c.round != round_ || !restart_.active || !restart_.stopped || restart_.flushed) return;
  if (!restart_.pongs.insert(from) || --restart_.pongs_expected > 0) return;
  restart_.flushed = true;
  start_gather(ctx);
}

LocalState CckProtocol::local_state(ProtocolContext& ctx) const {
  LocalState state;
  state.checkpoint = restart_.checkpoint;
  state.restoring = restart_.restoring;
  // Restored from K in a round not followed by a completed one: the survivors' re-sends of that
  // round may never have left (it was superseded before they applied it).
  state.lost_receives = restored_round_ > completed_ && restored_from_ == restart_.checkpoint;
  if (state.restoring) return state;
  core::ProtocolRuntime runtime = ctx.runtime();
  const core::NodeSnapshot initial = restart_.checkpoint == 0 ? runtime.initial_snapshot() : core::NodeSnapshot{};
  const core::NodeSnapshot& checkpoint = restart_.checkpoint == 0 ? initial : copies_.at(restart_.checkpoint);
  const auto local = ctx.index().tasks_of(self_);
  state.executed.resize(local.size());
  state.done.resize(local.size());
  for (std::size_t i = 0; i < local.size(); ++i) {
    state.executed[i] = runtime.executed_once(local[i]) ? 1 : 0;
    state.done[i] = runtime.status(local[i]) == core::TaskStatus::done ? 1 : 0;
  }
  state.at_checkpoint = checkpoint.done;
  for (const auto& [key, entry] : checkpoint.store) state.checkpoint_versions.insert(key);
  for (std::uint64_t key : runtime.inventory().held) state.held.insert(key);
  return state;
}

void CckProtocol::start_gather(ProtocolContext& ctx) {
  // Step 2: Ḡ^p from its own state; step 3: the all-gather.
  restart_.local = local_state(ctx);
  const PlanningContext planning{ctx.graph(), ctx.index(), options_->transfers, options_->keep_in_memory};
  restart_.own = build_restricted_graph(planning, self_, restart_.local);
  restart_.gather.emplace(self_, ctx.node_count(), std::make_shared<const core::Bytes>(restart_.own.encode()));
  if (auto it = early_gathers_.find(round_); it != early_gathers_.end()) {
    for (auto& [step, blocks] : it->second) restart_.gather->receive(step, blocks);
  }
  for (auto it = early_gathers_.begin(); it != early_gathers_.end();) it = it->first <= round_ ? early_gathers_.erase(it) : std::next(it);
  pump_gather(ctx);
}

void CckProtocol::on_gather(ProtocolContext& ctx, const Control& c) {
  if (c.round == round_ && restart_.active && restart_.gathered) return;  // complete: nothing more is awaited
  if (c.round == round_ && restart_.active && restart_.gather) {
    restart_.gather->receive(c.step, c.blocks);
    pump_gather(ctx);
  } else if (c.round > round_ || (c.round == round_ && restart_.active)) {
    early_gathers_[c.round].emplace_back(c.step, c.blocks);  // before this node's own turn
  }
}

void CckProtocol::pump_gather(ProtocolContext& ctx) {
  const std::uint64_t round = round_;
  while (restart_.active && round_ == round && restart_.gather) {
    auto out = restart_.gather->send();
    if (!out) break;
    Control gather;
    gather.round = round;
    gather.step = out->step;
    gather.blocks = std::move(out->blocks);
    to_node(ctx, out->to, kGather, gather);
  }
  if (!restart_.active || round_ != round || !restart_.gather || !restart_.gather->complete() || restart_.gathered) return;
  // Steps 4-5 from the N blocks it received (each node computes them from its own blocks). The
  // blocks are then no longer needed.
  const PlanningContext planning{ctx.graph(), ctx.index(), options_->transfers, options_->keep_in_memory};
  restart_.gathered = std::make_shared<const GatheredRound>(gathered_round(planning, restart_.gather->blocks()));
  restart_.gather.reset();
  finish_restart(ctx);
}

void CckProtocol::finish_restart(ProtocolContext& ctx) {
  if (!restart_.active || !restart_.gathered) return;
  if (restart_.restoring) {
    if (restart_.state) apply_restore(ctx);
    return;
  }
  apply_plan(ctx, *restart_.gathered);
}

void CckProtocol::apply_plan(ProtocolContext& ctx, const GatheredRound& round) {
  // Step 6 (T^p, C_total^p), then 7.
  const PlanningContext planning{ctx.graph(), ctx.index(), options_->transfers, options_->keep_in_memory};
  const NodePlan plan = plan_node(planning, self_, restart_.local, restart_.own, round);
  if (!plan.missing.empty()) {
    const std::uint64_t key = plan.missing.front();
    ctx.fail_run("cck: node " + std::to_string(self_) + " finds no way to provide " +
                 ctx.graph().handle_name(core::VersionStore::handle_of(key)) + " v" +
                 std::to_string(core::VersionStore::version_of(key)) + " for its re-executions (a protocol bug)");
    return;
  }
  core::ProtocolRuntime runtime = ctx.runtime();
  core::ProtocolCounters& counters = ctx.counters();
  std::uint64_t marked = 0;
  for (TaskId t : plan.reexecute) {
    if (runtime.status(t) == core::TaskStatus::done) {
      runtime.mark_for_reexecution(t);
      ++marked;
    }
    pending_.insert(t);
  }
  const core::NodeSnapshot initial = restart_.checkpoint == 0 ? runtime.initial_snapshot() : core::NodeSnapshot{};
  const core::NodeSnapshot& checkpoint = restart_.checkpoint == 0 ? initial : copies_.at(restart_.checkpoint);
  for (std::uint64_t key : plan.reloads) {
    if (!runtime.reload_version(checkpoint, core::VersionStore::handle_of(key), core::VersionStore::version_of(key))) {
      ctx.fail_run("cck: node " + std::to_string(self_) + "'s copy of checkpoint " + std::to_string(restart_.checkpoint) +
                   " lacks a version its re-executions read (a protocol bug)");
      return;
    }
  }
  const auto& transfers = ctx.graph().transfers();
  for (std::size_t i = 0; i < plan.resends.size(); ++i) {
    if (i + 1 == plan.resends.size() && FTSIM_MUTANT(last_resend_dropped)) break;  // planted: never re-sent
    const graphs::Transfer& x = transfers[plan.resends[i]];
    runtime.subscribe(x.handle, x.version, x.destination, core::Traffic::recovery);
  }
  counters.add(kPlannedReexecutions, marked);
  counters.add(kExecutedSinceCheckpoint, plan.executed_since_checkpoint);
  counters.raise_to(kReexecutionsMaxNode, plan.reexecute.size());
  counters.add(kLostSends, plan.lost_sends);
  counters.add(kResends, plan.resends.size());
  counters.add(kReloadedVersions, plan.reloads.size());
  if (ctx.recording()) {
    ctx.note("restart round " + std::to_string(round_sequence(round_)) + ": " + std::to_string(plan.restoring.size()) +
                 " restarting, C_perdues " + std::to_string(plan.lost_sends) + ", C_total " +
                 std::to_string(plan.resends.size()) + ", T " + std::to_string(plan.reexecute.size()) + " of " +
                 std::to_string(plan.executed_since_checkpoint) + " executed since the checkpoint",
             "recovery");
    ctx.record_span("restart round " + std::to_string(round_sequence(round_)), "recovery", restart_.began);
  }
  planned_ = plan.reexecute.size();
  planned_resends_ = plan.resends.size();
  done_restored_ = false;
  done_round_ = round_;
  done_sent_ = false;
  restart_.active = false;
  if (options_->at_cuts) runtime.set_task_limit(cut_limit(next_cut_));
  // The ready queue first (tasks ready before the marks may now wait for a re-execution: a write
  // after it reads), then resume: resuming first would start them from the stale queue.
  runtime.rebuild();
  runtime.resume();
  ctx.redeliver_deferred();
  if (pending_.empty()) report_done(ctx);
}

void CckProtocol::apply_restore(ProtocolContext& ctx) {
  core::ProtocolRuntime runtime = ctx.runtime();
  runtime.restore(*restart_.state);
  if (restart_.checkpoint > 0) copies_[restart_.checkpoint] = std::move(*restart_.state);
  restart_.state.reset();
  restored_ = true;
  restored_round_ = round_;
  restored_from_ = restart_.checkpoint;
  if (ctx.recording()) ctx.record_span("restore checkpoint " + std::to_string(restart_.checkpoint), "recovery", restart_.began);
  planned_ = 0;
  planned_resends_ = 0;
  done_restored_ = true;
  done_round_ = round_;
  done_sent_ = false;
  restart_.active = false;
  runtime.set_task_limit(cut_limit(next_cut_));
  runtime.rebuild();
  runtime.resume();
  // Restarting from the job's input: the initial values leave again (for the other restarting
  // nodes; survivors drop them as duplicates).
  if (restart_.checkpoint == 0) runtime.send_initial_values();
  ctx.redeliver_deferred();
  report_done(ctx);
}

void CckProtocol::report_done(ProtocolContext& ctx) {
  if (done_sent_) return;
  done_sent_ = true;
  Control done;
  done.round = done_round_;
  done.tasks = planned_;
  done.messages = planned_resends_;
  done.restored = done_restored_;
  to_coordinator(ctx, kDone, done);
}

}  // namespace ftsim::protocols::cck
