#include "protocols/lineage/lineage_protocol.hpp"

#include <algorithm>
#include <deque>
#include <unordered_map>
#include <unordered_set>

#include "protocols/lineage/lineage_messages.hpp"

namespace ftsim::protocols::lineage {

using node::Message;
using node::NodeId;
using node::TaskId;
using node::TaskStatus;
using graphs::Access;
using graphs::HandleId;
using graphs::Version;

using messages::kApplied;
using messages::kGo;
using messages::kInventory;
using messages::kInventoryRequest;
using messages::kPlan;
using messages::kNeverRan;
using messages::kRecomputed;
using messages::kTaskDone;
using messages::kToRunAgain;
using messages::Plan;
using messages::Send;

namespace {

node::Bytes round_message(std::uint32_t round) { return node::encode(messages::Round{round}); }
std::uint32_t round_of(const Message& m) { return node::decode<messages::Round>(m).round; }

}  // namespace

// ============================================================================ node side

void LineageProtocol::on_restart(node::ProtocolContext& ctx, const node::RestartInfo&) {
  // A replacement holds nothing and knows nothing: it waits for its plan.
  fresh_ = true;
  ctx.runtime().pause();
}

void LineageProtocol::on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) {
  if (!coordinator_) {
    // Survivors keep computing; the planner tells them what to do. What they send the failed node
    // from now on is for its replacement (on_send).
    if (incarnation_.empty()) incarnation_.reset(ctx.node_count(), 0, 0);
    incarnation_.set(notice.node, std::max(incarnation_.get(notice.node), notice.incarnation + 1));
    return;
  }
  unrecovered_.push_back(notice);
  if (failed_.empty()) failed_.assign(ctx.node_count(), 0);
  failed_[notice.node] = 1;
  round_ = notice.sequence;
  gather(ctx);
}

void LineageProtocol::report_inventory(node::ProtocolContext& ctx, std::uint32_t round) {
  release_inventory_pins(ctx);
  inventory_round_ = std::max(inventory_round_, round);
  node::ProtocolRuntime runtime = ctx.runtime();
  messages::Inventory report;
  report.round = round;
  report.fresh = fresh_;
  if (!fresh_) {
    const auto local = ctx.index().tasks_of(ctx.node());
    for (TaskId t : local) {
      const bool done = runtime.status(t) == TaskStatus::done;
      report.state.push_back(done ? kTaskDone : runtime.executed_once(t) ? kToRunAgain : kNeverRan);
    }
    // Versions that re-executions still to run will produce: the planner counts on them too, and a
    // later re-execution could overwrite one before the plan arrives. Kept when produced.
    for (TaskId t : local) {
      if (runtime.status(t) == TaskStatus::done || !runtime.executed_once(t)) continue;
      for (const Access& a : ctx.graph().accesses(t)) {
        if (graphs::writes(a.mode)) keep_outputs_.insert(node::VersionStore::key(a.handle, a.version));
      }
    }
    report.held = runtime.inventory().held;
    for (std::uint64_t key : report.held) {
      // Kept until the plan arrives: the planner counts on it.
      runtime.pin(node::VersionStore::handle_of(key), node::VersionStore::version_of(key));
      inventory_pins_.push_back(key);
    }
  }
  ctx.send_control(ctx.coordinator(), kInventory, node::encode(report));
}

void LineageProtocol::release_inventory_pins(node::ProtocolContext& ctx) {
  for (std::uint64_t key : inventory_pins_) {
    ctx.runtime().unpin(node::VersionStore::handle_of(key), node::VersionStore::version_of(key));
  }
  inventory_pins_.clear();
  keep_outputs_.clear();
}

void LineageProtocol::apply_plan(node::ProtocolContext& ctx, const Message& m) {
  const Plan plan = node::decode<Plan>(m);
  if (plan.round < plan_round_) return;  // superseded
  if (fresh_ && !plan.replacement) return;  // a plan made before the planner knew this node failed
  plan_round_ = plan.round;
  if (ctx.recording()) {
    ctx.note("plan " + std::to_string(plan.round) + (plan.replacement ? " (replacement)" : "") + ": run " +
            std::to_string(plan.run.size()) + ", send " + std::to_string(plan.sends.size()) + ", reload " +
            std::to_string(plan.reloads.size()));
  }
  node::ProtocolRuntime runtime = ctx.runtime();
  const graphs::TaskGraph& graph = ctx.graph();
  if (plan.replacement) {
    // The planner counts this node as holding nothing (it failed, or reported itself fresh):
    // what an earlier plan gave it is superseded; only what this plan lists must run.
    for (auto& [task, pins] : reexecuting_) {
      for (std::uint64_t key : pins) runtime.unpin(node::VersionStore::handle_of(key), node::VersionStore::version_of(key));
    }
    reexecuting_.clear();
    // A fresh replacement (paused, nothing run) takes the state "every task done, holding what it
    // holds": the plan lists what must run again; the rest ran in its predecessor and is not needed.
    node::NodeSnapshot state = runtime.snapshot();
    std::fill(state.done.begin(), state.done.end(), std::uint8_t{1});
    runtime.restore(state);
    fresh_ = false;
  }
  for (HandleId h : plan.reloads) runtime.reload_initial(h);
  for (TaskId t : plan.run) {
    if (runtime.status(t) != TaskStatus::done) continue;
    runtime.mark_for_reexecution(t);
    // Its inputs held now stay until it has run (a writer running now may overwrite one in place).
    auto& pins = reexecuting_[t];
    for (const Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const Version v = version_read(a);
      if (!runtime.holds(a.handle, v)) continue;
      runtime.pin(a.handle, v);
      pins.push_back(node::VersionStore::key(a.handle, v));
    }
  }
  // The re-sends leave once every node has applied its plan (GO): a version that arrived before
  // its receiver marked the tasks that read it again would be dropped as needed by nobody. They
  // are taken now (or when produced) and held (on_send), so that a later writer cannot take away
  // a version the plan counted on.
  holding_recovery_sends_ = true;
  for (const Send& s : plan.sends) runtime.subscribe(s.handle, s.version, s.to, node::Traffic::recovery);
  release_inventory_pins(ctx);
  runtime.resume();
  runtime.rebuild();
  ctx.send_control(ctx.coordinator(), kApplied, round_message(plan_round_));
}

std::uint32_t LineageProtocol::address(NodeId node) const {
  const std::uint32_t known = incarnation_.get(node);
  return known > 0 ? known : node::kAnyIncarnation;
}

node::SendVerdict LineageProtocol::on_send(node::ProtocolContext&, node::Message& m) {
  // Data for a node heard failed is its replacement's. On MPI the victim runs on until its fail
  // order arrives (docs/mpi.md), and would take with it, e.g., the transfer of a writer that had
  // not run at the inventory, which the plan counts on to reach the replacement (plan(), step 3).
  m.destination_incarnation = address(m.destination);
  return holding_recovery_sends_ && m.traffic == node::Traffic::recovery ? node::SendVerdict::hold : node::SendVerdict::send;
}

void LineageProtocol::start_sends(node::ProtocolContext& ctx) {
  holding_recovery_sends_ = false;
  ctx.release_held_sends();
  done_sent_ = false;
  maybe_done(ctx);
}

void LineageProtocol::maybe_done(node::ProtocolContext& ctx) {
  if (done_sent_ || !reexecuting_.empty()) return;
  done_sent_ = true;
  ctx.send_control(ctx.coordinator(), kRecomputed, round_message(plan_round_));
}

void LineageProtocol::on_task_completed(node::ProtocolContext& ctx, TaskId task, bool) {
  if (!keep_outputs_.empty()) {
    for (const Access& a : ctx.graph().accesses(task)) {
      if (!graphs::writes(a.mode) || keep_outputs_.erase(node::VersionStore::key(a.handle, a.version)) == 0) continue;
      ctx.runtime().pin(a.handle, a.version);
      inventory_pins_.push_back(node::VersionStore::key(a.handle, a.version));
    }
  }
  if (reexecuting_.empty()) return;
  auto it = reexecuting_.find(task);
  if (it == reexecuting_.end()) return;
  for (std::uint64_t key : it->second) {
    ctx.runtime().unpin(node::VersionStore::handle_of(key), node::VersionStore::version_of(key));
  }
  reexecuting_.erase(it);
  maybe_done(ctx);
}

bool LineageProtocol::finished(node::ProtocolContext&) {
  if (coordinator_) return !gathering_ && done_waiting_ == 0;
  return reexecuting_.empty();
}

void LineageProtocol::on_control(node::ProtocolContext& ctx, const Message& m) {
  if (!coordinator_) {
    switch (m.control_type) {
      case kInventoryRequest: report_inventory(ctx, round_of(m)); break;
      case kPlan: apply_plan(ctx, m); break;
      case kGo:
        // Only for the plan in force: after reporting for a newer round, this node's pins belong
        // to that round's planner.
        if (round_of(m) == plan_round_ && inventory_round_ <= plan_round_ && !fresh_) start_sends(ctx);
        break;
      default: break;
    }
    return;
  }
  switch (m.control_type) {
    case kInventory: {
      auto report = node::decode<messages::Inventory>(m);
      if (!gathering_ || report.round != round_ || inventories_[m.source].received) return;
      Inventory& inventory = inventories_[m.source];
      inventory.received = true;
      inventory.fresh = report.fresh;
      if (inventory.fresh) {
        failed_[m.source] = 1;  // a replacement the planner has not heard of yet
      } else {
        inventory.state = std::move(report.state);
        inventory.held = std::move(report.held);
      }
      if (--waiting_ == 0) plan(ctx);
      break;
    }
    case kApplied:
      if (round_of(m) == planned_round_ && !gathering_ && applied_waiting_ > 0 && --applied_waiting_ == 0) {
        for (NodeId d = 0; d < ctx.node_count(); ++d) ctx.send_control(d, kGo, round_message(planned_round_));
      }
      break;
    case kRecomputed:
      if (round_of(m) == planned_round_ && done_waiting_ > 0 && --done_waiting_ == 0) {
        // Only the failures this plan covered: a notice heard since (a newer round now gathering)
        // is recovered when its own plan is done, not before its node is even replaced.
        const auto covered = [&](const node::FailureNotice& n) { return n.sequence <= planned_round_; };
        for (const node::FailureNotice& notice : unrecovered_) {
          if (covered(notice)) ctx.record_recovered(notice);
        }
        std::erase_if(unrecovered_, covered);
        if (ctx.recording()) ctx.note("round " + std::to_string(planned_round_) + ": every node has recomputed what it was given");
        ctx.check_completion();
      }
      break;
    default: break;
  }
}

// ============================================================================ coordinator side

void LineageProtocol::gather(node::ProtocolContext& ctx) {
  const NodeId nodes = ctx.node_count();
  inventories_.assign(nodes, Inventory{});
  waiting_ = 0;
  gathering_ = true;
  for (NodeId d = 0; d < nodes; ++d) {
    if (failed_[d]) continue;  // it holds nothing: no need to ask
    ctx.send_control(d, kInventoryRequest, round_message(round_));
    ++waiting_;
  }
  if (ctx.recording()) ctx.note("round " + std::to_string(round_) + ": inventories asked of " + std::to_string(waiting_) + " nodes");
  if (waiting_ == 0) plan(ctx);
}

void LineageProtocol::plan(node::ProtocolContext& ctx) {
  gathering_ = false;
  const graphs::TaskGraph& graph = ctx.graph();
  const node::RuntimeIndex& index = ctx.index();
  const NodeId nodes = ctx.node_count();

  // What the planner knows, from the inventories only.
  std::vector<std::unordered_set<std::uint64_t>> held(nodes);
  // The lowest node holding each version: a source found in one lookup, not a scan of every node.
  std::unordered_map<std::uint64_t, NodeId> first_holder;
  for (NodeId d = 0; d < nodes; ++d) {
    if (failed_[d]) continue;
    held[d].insert(inventories_[d].held.begin(), inventories_[d].held.end());
    for (std::uint64_t key : inventories_[d].held) first_holder.try_emplace(key, d);
  }
  auto holds = [&](NodeId d, HandleId h, Version v) { return held[d].count(node::VersionStore::key(h, v)) != 0; };
  auto state = [&](TaskId t) -> std::uint8_t {
    const NodeId d = graph.node(t);
    return failed_[d] ? std::uint8_t{kTaskDone} : inventories_[d].state[index.local_slot(t)];
  };
  std::vector<Plan> plans(nodes);
  std::unordered_set<TaskId> to_run;  // on any node, in this plan
  auto will_run = [&](TaskId t) { return state(t) != kTaskDone || to_run.count(t) != 0; };
  // Will (h, v) be produced on d by a task of d that is still to run (its edges order it)?
  auto produced_later_on = [&](HandleId h, Version v, NodeId d) {
    if (v == 0) return false;
    const TaskId w = graph.writer(h, v);
    return graph.node(w) == d && will_run(w);
  };

  struct Need {
    HandleId handle;
    Version version;
    NodeId node;
  };
  std::deque<Need> queue;
  std::unordered_set<std::uint64_t> seen;
  auto need = [&](HandleId h, Version v, NodeId d) {
    const std::uint64_t key = node::VersionStore::key(h, v) * (std::uint64_t(nodes) + 1) + d;
    if (seen.insert(key).second) queue.push_back({h, v, d});
  };

  // 1. What the remaining tasks of the survivors need and nobody will provide the usual way.
  for (NodeId d = 0; d < nodes; ++d) {
    if (failed_[d]) continue;
    for (TaskId t : index.tasks_of(d)) {
      if (state(t) == kTaskDone) continue;
      for (const Access& a : graph.accesses(t)) {
        if (!graphs::reads(a.mode)) continue;
        const Version v = version_read(a);
        if (produced_later_on(a.handle, v, d) || holds(d, a.handle, v)) continue;
        // A writer that never ran sends it with the transfer plan when it runs.
        if (v > 0) {
          const TaskId w = graph.writer(a.handle, v);
          if (!failed_[graph.node(w)] && state(w) == kNeverRan) continue;
        }
        need(a.handle, v, d);
      }
    }
  }
  // 2. Final results that are lost.
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    const Version v = graph.final_version(h);
    const NodeId holder = graph.version_node(h, v);
    if (holds(holder, h, v) || (!failed_[holder] && produced_later_on(h, v, holder))) continue;
    need(h, v, holder);
  }

  // 3. Provide each need: re-send from a holder, read an initial value again, or re-execute.
  node::FailureEffect effect;
  effect.restart_point = "lineage";
  effect.processes_rolled_back = 1;
  while (!queue.empty()) {
    const Need n = queue.front();
    queue.pop_front();
    NodeId source = graphs::kNone;
    const NodeId home = graph.version_node(n.handle, n.version);
    if (holds(home, n.handle, n.version)) source = home;
    if (source == graphs::kNone) {
      auto first = first_holder.find(node::VersionStore::key(n.handle, n.version));
      if (first != first_holder.end()) source = first->second;
    }
    if (source != graphs::kNone) {
      plans[source].sends.push_back({n.handle, n.version, n.node});
      ++effect.messages_replayed;
      effect.bytes_replayed += graph.bytes(n.handle);
      continue;
    }
    if (n.version == 0) {
      // An initial value is the job's input: its owner reads it again.
      const NodeId owner = graph.owner(n.handle);
      plans[owner].reloads.push_back(n.handle);
      held[owner].insert(node::VersionStore::key(n.handle, 0));
      auto [first, added] = first_holder.try_emplace(node::VersionStore::key(n.handle, 0), owner);
      if (!added) first->second = std::min(first->second, owner);
      if (owner != n.node) plans[owner].sends.push_back({n.handle, 0, n.node});
      continue;
    }
    const TaskId writer = graph.writer(n.handle, n.version);
    const NodeId p = graph.node(writer);
    const bool failed = failed_[p] != 0;
    if (failed || state(writer) == kTaskDone) {
      if (to_run.insert(writer).second) {
        plans[p].run.push_back(writer);
        if (!failed) {  // (what the failed node redoes, the driver counts as it happens)
          ++effect.tasks_reexecuted;
          effect.work_lost_seconds += ctx.task_seconds(writer);
        }
        // Its inputs must be at p when it runs again.
        for (const Access& a : graph.accesses(writer)) {
          if (!graphs::reads(a.mode)) continue;
          const Version v = version_read(a);
          if (!failed && (produced_later_on(a.handle, v, p) || holds(p, a.handle, v))) continue;
          need(a.handle, v, p);
        }
      }
    } else if (state(writer) == kNeverRan && n.node != p) {
      continue;  // its first execution sends it with the transfer plan
    }
    if (n.node != p) plans[p].sends.push_back({n.handle, n.version, n.node});
  }

  if (!unrecovered_.empty()) ctx.record_failure_effect(unrecovered_.back(), effect);
  if (ctx.recording()) {
    std::size_t run = 0, sends = 0;
    for (const Plan& p : plans) {
      run += p.run.size();
      sends += p.sends.size();
    }
    ctx.note("lineage recovery plan, round " + std::to_string(round_) + ": " + std::to_string(run) + " executions, " +
                 std::to_string(sends) + " re-sends",
             "recovery");
  }
  // 4. Tell every node its part; each answers DONE once its re-executions have run.
  planned_round_ = round_;
  applied_waiting_ = nodes;
  done_waiting_ = nodes;
  for (NodeId d = 0; d < nodes; ++d) {
    plans[d].round = round_;
    plans[d].replacement = failed_[d] != 0;
    std::sort(plans[d].run.begin(), plans[d].run.end());
    ctx.send_control(d, kPlan, node::encode(plans[d]));
  }
  std::fill(failed_.begin(), failed_.end(), 0);
}

std::string LineageProtocol::phase(node::ProtocolContext&) {
  const std::string round = " (round " + std::to_string(coordinator_ ? round_ : plan_round_) + ")";
  if (coordinator_) {
    if (gathering_) return "waiting for " + std::to_string(waiting_) + " inventories" + round;
    if (applied_waiting_ > 0) return "waiting for " + std::to_string(applied_waiting_) + " nodes to apply the plan" + round;
    if (done_waiting_ > 0) return "waiting for " + std::to_string(done_waiting_) + " nodes to finish the plan's work" + round;
    return {};
  }
  if (fresh_) return "a replacement waiting for its plan";
  if (holding_recovery_sends_) return "holding its recovery sends until the plan's GO" + round;
  return {};
}

}  // namespace ftsim::protocols::lineage
