#include "protocols/cck/cck_planning.hpp"

#include <algorithm>
#include <unordered_map>

#include "sim/node/version_store.hpp"

namespace ftsim::protocols::cck {

using core::VersionStore;
using graphs::Access;

namespace {

// The local transitive closure of §3.5.2 and §3.5.4 on one node: what makes (h, v) available
// there again. A version is produced again by re-executing its writer if that writer ran since
// checkpoint K; read back from the node's copy of K if K holds it; received again (a receive
// task executed since K: its send must be replayed) if it came from another node since K. With
// `cut_held` (§3.7.1) a version still in memory ends the walk.
class Closure {
public:
  Closure(const PlanningContext& context, NodeId node, const LocalState& state, bool cut_held)
      : context_(context), node_(node), state_(state), cut_held_(cut_held) {}

  void need(HandleId h, Version v) {
    stack_.push_back(VersionStore::key(h, v));
    while (!stack_.empty()) {
      const std::uint64_t key = stack_.back();
      stack_.pop_back();
      visit(key);
    }
  }
  bool since_checkpoint(TaskId t) const {
    const std::uint32_t slot = context_.index.local_slot(t);
    return state_.executed[slot] && !state_.at_checkpoint[slot];
  }

  std::unordered_set<TaskId> tasks;
  std::unordered_set<std::uint64_t> reloads;
  std::unordered_set<std::uint32_t> receives;
  std::vector<std::uint64_t> missing;  // a version none of the rules provides (an inconsistent state)

private:
  void visit(std::uint64_t key) {
    if (!visited_.insert(key).second) return;
    const bool held = state_.held.count(key) != 0;
    if (cut_held_ && held) return;
    const graphs::TaskGraph& graph = context_.graph;
    const HandleId h = VersionStore::handle_of(key);
    const Version v = VersionStore::version_of(key);
    const bool own = v == 0 ? graph.owner(h) == node_ : graph.node(graph.writer(h, v)) == node_;
    if (own && v > 0) {
      const TaskId writer = graph.writer(h, v);
      if (since_checkpoint(writer)) {
        tasks.insert(writer);
        for (const Access& a : graph.accesses(writer)) {
          if (graphs::reads(a.mode)) stack_.push_back(VersionStore::key(a.handle, graphs::version_read(a)));
        }
        return;
      }
    }
    if (state_.checkpoint_versions.count(key) != 0) {
      if (!held) reloads.insert(key);
      return;
    }
    if (!own) {
      const std::uint32_t transfer = context_.transfers.find(h, v, node_);
      if (transfer != graphs::kNone) {
        receives.insert(transfer);
        return;
      }
    }
    if (!held) missing.push_back(key);
  }

  const PlanningContext& context_;
  NodeId node_;
  const LocalState& state_;
  bool cut_held_;
  std::unordered_set<std::uint64_t> visited_;
  std::vector<std::uint64_t> stack_;
};

template <class Set> std::vector<typename Set::value_type> sorted(const Set& set) {
  std::vector<typename Set::value_type> out(set.begin(), set.end());
  std::sort(out.begin(), out.end());
  return out;
}

// Re-executions already pending on the node (an earlier round of the same recovery marked them):
// their inputs not in memory must be provided again.
void need_pending_inputs(const PlanningContext& context, NodeId node, const LocalState& state, Closure& closure) {
  const auto local = context.index.tasks_of(node);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!state.executed[i] || state.done[i]) continue;
    closure.tasks.insert(local[i]);
    for (const Access& a : context.graph.accesses(local[i])) {
      if (!graphs::reads(a.mode)) continue;
      const Version v = graphs::version_read(a);
      if (state.held.count(VersionStore::key(a.handle, v)) == 0) closure.need(a.handle, v);
    }
  }
}

}  // namespace

// ----------------------------------------------------------------------------- Ḡ^p

core::Bytes RestrictedGraph::encode() const {
  core::Bytes out;
  core::WireWriter w(out);
  w.u8((restoring ? 1 : 0) | (lost_receives ? 2 : 0));
  w.u64(sends.size());
  for (std::size_t i = 0; i < sends.size(); ++i) {
    w.u32(sends[i]);
    w.u32(dep_offsets[i + 1] - dep_offsets[i]);
    for (std::uint32_t k = dep_offsets[i]; k < dep_offsets[i + 1]; ++k) w.u32(deps[k]);
  }
  w.u64(required.size());
  for (std::uint32_t id : required) w.u32(id);
  return out;
}

RestrictedGraph RestrictedGraph::decode(core::WireReader& in) {
  RestrictedGraph g;
  const std::uint8_t flags = in.u8();
  g.restoring = (flags & 1) != 0;
  g.lost_receives = (flags & 2) != 0;
  g.sends.resize(in.count(8));
  g.dep_offsets.assign(1, 0);
  for (std::uint32_t& send : g.sends) {
    send = in.u32();
    const std::uint32_t count = in.u32();
    for (std::uint32_t k = 0; k < count; ++k) g.deps.push_back(in.u32());
    g.dep_offsets.push_back(static_cast<std::uint32_t>(g.deps.size()));
  }
  g.required.resize(in.count(4));
  for (std::uint32_t& id : g.required) id = in.u32();
  return g;
}

RestrictedGraph build_restricted_graph(const PlanningContext& context, NodeId node, const LocalState& state) {
  RestrictedGraph g;
  g.dep_offsets.assign(1, 0);
  g.restoring = state.restoring;
  g.lost_receives = state.restoring || state.lost_receives;
  if (state.restoring) return g;  // restored at K: it has executed nothing since
  const auto local = context.index.tasks_of(node);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!state.executed[i] || state.at_checkpoint[i]) continue;
    for (std::uint32_t id : context.index.sends_after(local[i])) g.sends.push_back(id);
  }
  // Checkpoint 0 is the job's input: the initial values were sent after it.
  if (state.checkpoint == 0) {
    for (std::uint32_t id : context.index.initial_sends(node)) g.sends.push_back(id);
  }
  for (std::uint32_t id : g.sends) {
    const graphs::Transfer& x = context.graph.transfers()[id];
    Closure closure(context, node, state, context.keep_in_memory);
    closure.need(x.handle, x.version);
    for (std::uint32_t r : sorted(closure.receives)) g.deps.push_back(r);
    g.dep_offsets.push_back(static_cast<std::uint32_t>(g.deps.size()));
  }
  Closure pending(context, node, state, context.keep_in_memory);
  need_pending_inputs(context, node, state, pending);
  g.required = sorted(pending.receives);
  return g;
}

// ----------------------------------------------------------------------------- C_total

std::unordered_set<std::uint32_t> total_communications(const PlanningContext& context,
                                                       const std::vector<RestrictedGraph>& graphs) {
  const auto& plan = context.graph.transfers();
  // Where each send executed since K is described: (node, index among its sends).
  std::unordered_map<std::uint32_t, std::pair<NodeId, std::uint32_t>> described;
  for (NodeId q = 0; q < graphs.size(); ++q) {
    for (std::uint32_t i = 0; i < graphs[q].sends.size(); ++i) described.emplace(graphs[q].sends[i], std::pair(q, i));
  }
  std::unordered_set<std::uint32_t> total;
  std::vector<std::uint32_t> queue;
  auto add = [&](std::uint32_t id) {
    // A receive whose send is not among the sends executed since K (its sender restarts from K,
    // or has not run it yet) is sent again the usual way: nothing to replay.
    if (described.count(id) != 0 && total.insert(id).second) queue.push_back(id);
  };
  // C_perdues: sends of survivors to the processes that restart.
  for (NodeId q = 0; q < graphs.size(); ++q) {
    for (std::uint32_t id : graphs[q].sends) {
      if (graphs[plan[id].destination].lost_receives) add(id);
    }
    for (std::uint32_t id : graphs[q].required) add(id);
  }
  while (!queue.empty()) {
    const std::uint32_t id = queue.back();
    queue.pop_back();
    const auto [q, i] = described.at(id);
    const RestrictedGraph& g = graphs[q];
    for (std::uint32_t k = g.dep_offsets[i]; k < g.dep_offsets[i + 1]; ++k) add(g.deps[k]);
  }
  return total;
}

// ----------------------------------------------------------------------------- T^p

GatheredRound gathered_round(const PlanningContext& context, const std::vector<RestrictedGraph>& graphs) {
  GatheredRound round;
  round.lost_receives.resize(graphs.size());
  for (NodeId q = 0; q < graphs.size(); ++q) {
    round.lost_receives[q] = graphs[q].lost_receives ? 1 : 0;
    if (graphs[q].restoring) round.restoring.push_back(q);
  }
  round.total = total_communications(context, graphs);
  return round;
}

NodePlan plan_node(const PlanningContext& context, NodeId node, const LocalState& state, const RestrictedGraph& own,
                   const GatheredRound& round) {
  NodePlan plan;
  plan.restoring = round.restoring;
  if (state.restoring) return plan;
  const auto& transfers = context.graph.transfers();
  const std::unordered_set<std::uint32_t>& total = round.total;
  for (std::size_t i = 0; i < state.executed.size(); ++i) {
    if (state.executed[i] && !state.at_checkpoint[i]) ++plan.executed_since_checkpoint;
  }
  Closure closure(context, node, state, context.keep_in_memory);
  for (std::uint32_t id : own.sends) {
    if (round.lost_receives[transfers[id].destination]) ++plan.lost_sends;
    if (total.count(id) == 0) continue;
    plan.resends.push_back(id);
    closure.need(transfers[id].handle, transfers[id].version);
  }
  need_pending_inputs(context, node, state, closure);
  std::sort(plan.resends.begin(), plan.resends.end());
  plan.reexecute = sorted(closure.tasks);
  plan.reloads = sorted(closure.reloads);
  plan.missing = closure.missing;
  return plan;
}

NodePlan plan_node(const PlanningContext& context, NodeId node, const LocalState& state,
                   const std::vector<RestrictedGraph>& graphs) {
  return plan_node(context, node, state, graphs[node], gathered_round(context, graphs));
}

}  // namespace ftsim::protocols::cck
