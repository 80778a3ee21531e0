// Step 6 of §3.5.5 (Besseron et al. 2006): T^p and C_total^p of a node. Ḡ^p is built in
// cck_restricted_graph.cpp, C_total read from the gathered blocks in cck_gathered_round.cpp.
#include "protocols/cck/cck_planning.hpp"

#include <algorithm>
#include <memory>

#include "protocols/cck/cck_version_source.hpp"
#include "sim/node/version_store.hpp"

namespace ftsim::protocols::cck {

using node::VersionStore;
using graphs::Access;

namespace {

// The local transitive closure of §3.5.2 and §3.5.4 on one node: what makes (h, v) available
// there again (cck_version_source.hpp). One Closure serves every send of C_total^p: each version
// is visited once, so T^p costs O(the node's tasks executed since K), however many sends.
class Closure {
public:
  Closure(const PlanningContext& context, NodeId node, const LocalState& state)
      : context_(context), node_(node), state_(state) {}

  void need(HandleId h, Version v) {
    stack_.push_back(VersionStore::key(h, v));
    while (!stack_.empty()) {
      const std::uint64_t key = stack_.back();
      stack_.pop_back();
      visit(key);
    }
  }

  std::unordered_set<TaskId> tasks;
  std::unordered_set<std::uint64_t> reloads;
  std::vector<std::uint64_t> missing;  // a version none of the rules provides (an inconsistent state)

private:
  void visit(std::uint64_t key) {
    if (!visited_.insert(key).second) return;
    const VersionSource source = version_source(context_, node_, state_, key);
    switch (source.kind) {
      case VersionSource::Kind::reexecute:
        tasks.insert(source.id);
        for (const Access& a : context_.graph.accesses(source.id)) {
          if (graphs::reads(a.mode)) stack_.push_back(VersionStore::key(a.handle, graphs::version_read(a)));
        }
        break;
      case VersionSource::Kind::reload: reloads.insert(key); break;
      case VersionSource::Kind::missing: missing.push_back(key); break;
      case VersionSource::Kind::receive:  // its send is in C_total: it comes again
      case VersionSource::Kind::nothing: break;
    }
  }

  const PlanningContext& context_;
  NodeId node_;
  const LocalState& state_;
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

NodePlan plan_node(const PlanningContext& context, NodeId node, const LocalState& state, const RestrictedGraph& own,
                   const GatheredRound& round) {
  NodePlan plan;
  plan.restoring = round.restoring;
  if (state.restoring) return plan;
  const auto& transfers = context.graph.transfers();
  for (std::size_t i = 0; i < state.executed.size(); ++i) {
    if (state.executed[i] && !state.at_checkpoint[i]) ++plan.executed_since_checkpoint;
  }
  Closure closure(context, node, state);
  for (std::uint32_t id : own.sends) {
    if (round.lost_receives[transfers[id].destination]) ++plan.lost_sends;
    if (!round.contains(id)) continue;
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
  std::vector<node::SharedBytes> blocks;
  blocks.reserve(graphs.size());
  for (const RestrictedGraph& g : graphs) blocks.push_back(std::make_shared<const node::Bytes>(g.encode()));
  return plan_node(context, node, state, graphs[node], gathered_round(context, blocks));
}

}  // namespace ftsim::protocols::cck
