// CCK, the restart on an application node (Besseron 2006 §3.5.5): stop and flush (1), build the
// communication-restricted graph (2), all-gather the graphs (3), compute C_perdues, C_total and
// T_a_re-executer (4-6, cck_planning.cpp), restart the tasks (7). A replacement restores its
// checkpoint K from its server; a survivor keeps its state and re-executes T^p from its own copy.
#include "protocols/cck/cck_restart.hpp"

#include <stdexcept>

#include "protocols/cck/cck_metrics.hpp"
#include "protocols/cck/cck_neighbours.hpp"
#include "protocols/mutants.hpp"

namespace ftsim::protocols::cck {

namespace {

const char* name(RestartState state) {
  switch (state) {
    case RestartState::running: return "running";
    case RestartState::replacement: return "replacement";
    case RestartState::stopping: return "stopping";
    case RestartState::flushing: return "flushing";
    case RestartState::gathering: return "gathering";
    case RestartState::gathered: return "gathered";
  }
  return "?";
}

// What the node knows of itself as round r starts (it is stopped): Ḡ^p is built from it.
// `lost_receives`: it restored K in a round not followed by a completed one: the survivors'
// re-sends of that round may never have left (it was superseded before they applied it).
LocalState local_state(node::ProtocolContext& ctx, NodeId self, std::uint32_t checkpoint, bool restoring,
                       bool lost_receives, const LocalCheckpoints& local) {
  LocalState state;
  state.checkpoint = checkpoint;
  state.restoring = restoring;
  state.lost_receives = lost_receives;
  if (state.restoring) return state;
  node::ProtocolRuntime runtime = ctx.runtime();
  const node::NodeSnapshot initial = checkpoint == 0 ? runtime.initial_snapshot() : node::NodeSnapshot{};
  const node::NodeSnapshot& copy = checkpoint == 0 ? initial : local.copy(checkpoint);
  const auto tasks = ctx.index().tasks_of(self);
  state.executed.resize(tasks.size());
  state.done.resize(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    state.executed[i] = runtime.executed_once(tasks[i]) ? 1 : 0;
    state.done[i] = runtime.status(tasks[i]) == node::TaskStatus::done ? 1 : 0;
  }
  state.at_checkpoint = copy.done;
  for (const auto& [key, entry] : copy.store) state.checkpoint_versions.insert(key);
  for (std::uint64_t key : runtime.inventory().held) state.held.insert(key);
  return state;
}

}  // namespace

RestartSession::RestartSession(const CckOptions& options, NodeId self, Post& post, LocalCheckpoints& local,
                               CheckpointSession& checkpoint)
    : options_(options), self_(self), post_(post), local_(local), checkpoint_(checkpoint), reexecutions_(post) {}

void RestartSession::enter(RestartState next) {
  using S = RestartState;
  bool legal = false;
  switch (state_) {
    case S::running: legal = next == S::stopping || next == S::replacement; break;
    case S::replacement: legal = next == S::stopping; break;
    case S::stopping: legal = next == S::flushing || next == S::stopping; break;
    case S::flushing: legal = next == S::gathering || next == S::stopping; break;
    case S::gathering: legal = next == S::gathered || next == S::stopping; break;
    case S::gathered: legal = next == S::running || next == S::stopping; break;
  }
  if (!legal) {
    throw std::logic_error(std::string("cck protocol bug: node ") + std::to_string(self_) + "'s restart goes from " +
                           name(state_) + " to " + name(next));
  }
  state_ = next;
}

bool RestartSession::restored() const {
  return state_ == RestartState::running || (active() && !current_.restoring);
}

void RestartSession::become_replacement() { enter(RestartState::replacement); }

void RestartSession::on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) {
  if (!restored() || notice.sequence <= round_sequence(round_)) return;
  // Stop starting tasks: the coordinator's RESTART says what to do (§3.5.5 step 1). (A notice
  // that a round this node has joined already covers changes nothing: on MPI a coordinator on
  // a node may send its RESTART before the driver's notice arrives.)
  ctx.runtime().pause();
  if (notice.sequence > cause_.sequence) cause_ = notice;
}

void RestartSession::on_restart(node::ProtocolContext& ctx, const Control& c) {
  if (c.round <= round_) return;  // an older round, or one it has joined
  round_ = c.round;
  completed_ = c.completed;
  if (c.cause.sequence >= cause_.sequence) cause_ = c.cause;
  checkpoint_.abandon(ctx);
  // Checkpoint K is the restart point: copies newer than K were never validated.
  local_.restart_from(c.checkpoint);
  checkpoint_.set_next_cut(c.valid);
  const bool restoring = !restored();
  current_ = Round{};
  current_.checkpoint = c.checkpoint;
  current_.restoring = restoring;
  current_.began = ctx.now();
  enter(RestartState::stopping);
  reexecutions_.supersede();
  node::ProtocolRuntime runtime = ctx.runtime();
  runtime.pause();
  if (current_.restoring) {
    if (c.checkpoint == 0) {
      current_.state = runtime.initial_snapshot();
    } else {
      local_.request(ctx, c.checkpoint);
    }
  } else if (c.checkpoint > 0 && !local_.has_copy(c.checkpoint)) {
    ctx.fail_run("cck: node " + std::to_string(self_) + " has no local copy of the valid checkpoint " +
                 std::to_string(c.checkpoint) + " (a protocol bug)");
    return;
  }
  if (ctx.recording()) {
    ctx.note("restart round " + std::to_string(round_sequence(round_)) + " from checkpoint " + std::to_string(c.checkpoint) +
                 (current_.restoring ? ": restores it" : ": keeps its state"),
             "recovery");
  }
  for (auto it = early_pings_.begin(); it != early_pings_.end();) {
    if (it->first == round_) current_.pings = it->second;
    it = it->first <= round_ ? early_pings_.erase(it) : std::next(it);
  }
  try_stop(ctx);
}

void RestartSession::try_stop(node::ProtocolContext& ctx) {
  if (state_ != RestartState::stopping) return;
  if (!current_.restoring && !ctx.runtime().quiescent()) return;
  // Step 1: stopped; flush the channels from V (a replacement expects nothing yet: what it needs
  // comes again once the round is planned).
  enter(RestartState::flushing);
  if (!current_.restoring) current_.expect_from = expected_senders(ctx, options_, self_);
  current_.pongs_expected = current_.expect_from.size();
  Control pong;
  pong.round = round_;
  pong.session = Session::restart;
  for (NodeId n : current_.pings.members()) post_.to_node(ctx, n, kPong, pong);
  for (NodeId n : current_.expect_from) post_.to_node(ctx, n, kPing, pong);
  if (current_.expect_from.empty()) start_gather(ctx);
}

void RestartSession::on_ping(node::ProtocolContext& ctx, NodeId from, const Control& c) {
  Control pong;
  pong.round = c.round;
  pong.session = Session::restart;
  if (c.round == round_ && active()) {
    current_.pings.insert(from);
    if (state_ != RestartState::stopping) post_.to_node(ctx, from, kPong, pong);  // stopped
  } else if (c.round > round_) {
    early_pings_[c.round].insert(from);
  } else if (c.round == round_) {
    post_.to_node(ctx, from, kPong, pong);  // its part of the round is over
  }
}

void RestartSession::on_pong(node::ProtocolContext& ctx, NodeId from, const Control& c) {
  if (c.round != round_ || state_ != RestartState::flushing) return;
  if (!current_.pongs.insert(from) || --current_.pongs_expected > 0) return;
  start_gather(ctx);
}

void RestartSession::start_gather(node::ProtocolContext& ctx) {
  // Step 2: Ḡ^p from its own state; step 3: the all-gather.
  enter(RestartState::gathering);
  const bool lost_receives = last_restore_.round > completed_ && last_restore_.checkpoint == current_.checkpoint;
  current_.local = local_state(ctx, self_, current_.checkpoint, current_.restoring, lost_receives, local_);
  const PlanningContext planning{ctx.graph(), ctx.index(), options_.transfers, options_.keep_in_memory};
  current_.own = build_restricted_graph(planning, self_, current_.local);
  current_.gather.emplace(self_, ctx.node_count(), std::make_shared<const node::Bytes>(current_.own.encode()));
  if (auto it = early_gathers_.find(round_); it != early_gathers_.end()) {
    for (auto& [step, blocks] : it->second) current_.gather->receive(step, blocks);
  }
  for (auto it = early_gathers_.begin(); it != early_gathers_.end();) it = it->first <= round_ ? early_gathers_.erase(it) : std::next(it);
  pump_gather(ctx);
}

void RestartSession::on_gather(node::ProtocolContext& ctx, const Control& c) {
  if (c.round == round_ && state_ == RestartState::gathered) return;  // complete: nothing more is awaited
  if (c.round == round_ && state_ == RestartState::gathering) {
    current_.gather->receive(c.step, c.blocks);
    pump_gather(ctx);
  } else if (c.round > round_ || (c.round == round_ && active())) {
    early_gathers_[c.round].emplace_back(c.step, c.blocks);  // before this node's own turn
  }
}

void RestartSession::pump_gather(node::ProtocolContext& ctx) {
  const std::uint64_t round = round_;
  while (state_ == RestartState::gathering && round_ == round) {
    auto out = current_.gather->send();
    if (!out) break;
    Control gather;
    gather.round = round;
    gather.step = out->step;
    gather.blocks = std::move(out->blocks);
    post_.to_node(ctx, out->to, kGather, gather);
  }
  if (state_ != RestartState::gathering || round_ != round || !current_.gather->complete()) return;
  // Steps 4-5 from the N blocks it received: each node computes them itself. A replacement needs
  // none of it (it restores K and re-executes nothing). The blocks are then no longer needed.
  std::optional<GatheredRound> gathered;
  if (!current_.restoring) {
    const PlanningContext planning{ctx.graph(), ctx.index(), options_.transfers, options_.keep_in_memory};
    gathered = gathered_round(planning, current_.gather->blocks());
  }
  current_.gather.reset();
  enter(RestartState::gathered);
  if (current_.restoring) {
    if (current_.state) apply_restore(ctx);
    return;
  }
  apply_plan(ctx, *gathered);
}

void RestartSession::on_checkpoint_read(node::ProtocolContext& ctx, std::uint32_t checkpoint, const node::Bytes* content) {
  if (!active() || !current_.restoring || current_.checkpoint != checkpoint || current_.state) return;
  if (!content) {
    ctx.fail_run("unrecoverable: checkpoint " + std::to_string(checkpoint) + " of node " + std::to_string(self_) +
                 " is not on its checkpoint server");
    return;
  }
  std::optional<node::NodeSnapshot> state = local_.read_back(ctx, *content, checkpoint);
  if (!state) return;  // more images to read, or its decoding to charge
  current_.state = std::move(*state);
  if (state_ == RestartState::gathered) apply_restore(ctx);
}

void RestartSession::on_decoded(node::ProtocolContext& ctx) {
  if (!active() || !current_.restoring || current_.state) return;
  std::optional<node::NodeSnapshot> state = local_.take_decoded();
  if (!state) return;
  current_.state = std::move(*state);
  if (state_ == RestartState::gathered) apply_restore(ctx);
}

void RestartSession::apply_plan(node::ProtocolContext& ctx, const GatheredRound& round) {
  // Step 6 (T^p, C_total^p), then 7.
  const PlanningContext planning{ctx.graph(), ctx.index(), options_.transfers, options_.keep_in_memory};
  const NodePlan plan = plan_node(planning, self_, current_.local, current_.own, round);
  if (!plan.missing.empty()) {
    const std::uint64_t key = plan.missing.front();
    ctx.fail_run("cck: node " + std::to_string(self_) + " finds no way to provide " +
                 ctx.graph().handle_name(node::VersionStore::handle_of(key)) + " v" +
                 std::to_string(node::VersionStore::version_of(key)) + " for its re-executions (a protocol bug)");
    return;
  }
  node::ProtocolRuntime runtime = ctx.runtime();
  node::ProtocolCounters& counters = ctx.counters();
  std::uint64_t marked = 0;
  for (TaskId t : plan.reexecute) {
    if (runtime.status(t) == node::TaskStatus::done) {
      runtime.mark_for_reexecution(t);
      ++marked;
    }
    reexecutions_.add(t);
  }
  const std::uint32_t k = current_.checkpoint;
  const node::NodeSnapshot initial = k == 0 ? runtime.initial_snapshot() : node::NodeSnapshot{};
  const node::NodeSnapshot& checkpoint = k == 0 ? initial : local_.copy(k);
  for (std::uint64_t key : plan.reloads) {
    if (!runtime.reload_version(checkpoint, node::VersionStore::handle_of(key), node::VersionStore::version_of(key))) {
      ctx.fail_run("cck: node " + std::to_string(self_) + "'s copy of checkpoint " + std::to_string(k) +
                   " lacks a version its re-executions read (a protocol bug)");
      return;
    }
  }
  const auto& transfers = ctx.graph().transfers();
  for (std::size_t i = 0; i < plan.resends.size(); ++i) {
    if (i + 1 == plan.resends.size() && FTSIM_MUTANT(last_resend_dropped)) break;  // planted: never re-sent
    const graphs::Transfer& x = transfers[plan.resends[i]];
    runtime.subscribe(x.handle, x.version, x.destination, node::Traffic::recovery);
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
    ctx.record_span("restart round " + std::to_string(round_sequence(round_)), "recovery", current_.began);
  }
  reexecutions_.owe(round_, plan.reexecute.size(), plan.resends.size(), false);
  enter(RestartState::running);
  if (options_.at_cuts) runtime.set_task_limit(checkpoint_.task_limit());
  // The ready queue first (tasks ready before the marks may now wait for a re-execution: a write
  // after it reads), then resume: resuming first would start them from the stale queue.
  runtime.rebuild();
  runtime.resume();
  ctx.redeliver_deferred();
  reexecutions_.report_if_done(ctx);
}

void RestartSession::apply_restore(node::ProtocolContext& ctx) {
  node::ProtocolRuntime runtime = ctx.runtime();
  runtime.restore(*current_.state);
  if (current_.checkpoint > 0) local_.keep(current_.checkpoint, std::move(*current_.state));
  current_.state.reset();
  last_restore_ = {round_, current_.checkpoint};
  if (ctx.recording()) ctx.record_span("restore checkpoint " + std::to_string(current_.checkpoint), "recovery", current_.began);
  reexecutions_.owe(round_, 0, 0, true);
  enter(RestartState::running);
  runtime.set_task_limit(checkpoint_.task_limit());
  runtime.rebuild();
  runtime.resume();
  // Restarting from the job's input: the initial values leave again (for the other restarting
  // nodes; survivors drop them as duplicates).
  if (current_.checkpoint == 0) runtime.send_initial_values();
  ctx.redeliver_deferred();
  reexecutions_.report_if_done(ctx);
}

std::string RestartSession::phase() const {
  if (active()) {
    const std::string round = "restart round " + std::to_string(round_sequence(round_)) + ": ";
    switch (state_) {
      case RestartState::stopping: return round + "waiting for its running tasks to end";
      case RestartState::flushing: {
        std::vector<NodeId> missing;
        for (NodeId n : current_.expect_from) {
          if (current_.pongs.count(n) == 0) missing.push_back(n);
        }
        return round + "flushing, waiting for PONG from nodes " + node_list(missing);
      }
      case RestartState::gathering:
        return round + "all-gather step " + std::to_string(current_.gather->step()) + ", waiting for node " +
               std::to_string(current_.gather->waiting_for());
      case RestartState::gathered:
        if (current_.restoring && !current_.state) {
          return round + "reading checkpoint " + std::to_string(current_.checkpoint) + " back from its server";
        }
        return {};
      default: return {};
    }
  }
  if (state_ == RestartState::replacement) return "a replacement waiting for RESTART";
  if (reexecutions_.pending() > 0) return "re-executing " + std::to_string(reexecutions_.pending()) + " tasks of T_a_re-executer";
  return {};
}

}  // namespace ftsim::protocols::cck
