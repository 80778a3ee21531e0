// The linear Ḡ^p (protocols/cck/cck_restricted_graph.cpp) against the paper's definition of it,
// kept here as a reference: for every send executed since K, the receives of its own local
// transitive closure (§3.5.2: one walk per send, what ftsim built until the linear Ḡ; quadratic in
// the work since K on iterative codes). On random states (tests/support/cck_random_states.hpp,
// with pending re-executions and lost receives of earlier rounds added at random), every node's
// plan is the same from both definitions (T^p, C_total^p, reloads, |C_perdues^p|, missing
// versions), and in the linear Ḡ^p each send reaches exactly the receives of its closure.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <unordered_set>

#include "protocols/cck/cck_planning.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/version_store.hpp"
#include "tests/support/cck_random_states.hpp"

using namespace ftsim;
using graphs::NodeId;
using graphs::TaskId;
using protocols::cck::LocalState;
using protocols::cck::NodePlan;
using protocols::cck::PlanningContext;
using protocols::cck::RestrictedGraph;

namespace {

using node::VersionStore;

// The reference closure: what makes (h, v) available on `node` again (§3.5.2 and §3.5.4, with
// §3.7.1 when `keep_in_memory`), written out on its own.
struct ReferenceClosure {
  const PlanningContext& context;
  NodeId node;
  const LocalState& state;
  std::set<TaskId> tasks;
  std::set<std::uint64_t> reloads;
  std::set<std::uint32_t> receives;
  std::vector<std::uint64_t> missing;
  std::unordered_set<std::uint64_t> visited;

  bool since(TaskId t) const {
    const std::uint32_t slot = context.index.local_slot(t);
    return state.executed[slot] && !state.at_checkpoint[slot];
  }
  void need(std::uint64_t first) {
    std::vector<std::uint64_t> stack{first};
    while (!stack.empty()) {
      const std::uint64_t key = stack.back();
      stack.pop_back();
      if (!visited.insert(key).second) continue;
      const bool held = state.held.count(key) != 0;
      if (context.keep_in_memory && held) continue;
      const graphs::TaskGraph& graph = context.graph;
      const graphs::HandleId h = VersionStore::handle_of(key);
      const graphs::Version v = VersionStore::version_of(key);
      const bool own = v == 0 ? graph.owner(h) == node : graph.node(graph.writer(h, v)) == node;
      if (own && v > 0 && since(graph.writer(h, v))) {
        tasks.insert(graph.writer(h, v));
        for (const graphs::Access& a : graph.accesses(graph.writer(h, v))) {
          if (graphs::reads(a.mode)) stack.push_back(VersionStore::key(a.handle, graphs::version_read(a)));
        }
        continue;
      }
      if (state.checkpoint_versions.count(key) != 0) {
        if (!held) reloads.insert(key);
        continue;
      }
      if (!own && context.transfers.find(h, v, node) != graphs::kNone) {
        receives.insert(context.transfers.find(h, v, node));
        continue;
      }
      if (!held) missing.push_back(key);
    }
  }
  void need_pending_inputs() {
    const auto local = context.index.tasks_of(node);
    for (std::size_t i = 0; i < local.size(); ++i) {
      if (!state.executed[i] || state.done[i]) continue;
      tasks.insert(local[i]);
      for (const graphs::Access& a : context.graph.accesses(local[i])) {
        const std::uint64_t key = VersionStore::key(a.handle, graphs::version_read(a));
        if (graphs::reads(a.mode) && state.held.count(key) == 0) need(key);
      }
    }
  }
};

// The paper's Ḡ^p: per send executed since K, the receives of its closure.
struct ReferenceGraph {
  bool restoring = false;
  bool lost_receives = false;
  std::vector<std::uint32_t> sends;
  std::vector<std::set<std::uint32_t>> deps;
  std::set<std::uint32_t> required;
  std::uint64_t bytes = 1 + 8 + 8;  // its block as ftsim encoded it: flags, counts, then 4 bytes a number
};

ReferenceGraph reference_graph(const PlanningContext& context, NodeId node, const LocalState& state) {
  ReferenceGraph g;
  g.restoring = state.restoring;
  g.lost_receives = state.restoring || state.lost_receives;
  if (state.restoring) return g;
  const auto local = context.index.tasks_of(node);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!state.executed[i] || state.at_checkpoint[i]) continue;
    for (std::uint32_t id : context.index.sends_after(local[i])) g.sends.push_back(id);
  }
  if (state.checkpoint == 0) {
    for (std::uint32_t id : context.index.initial_sends(node)) g.sends.push_back(id);
  }
  for (std::uint32_t id : g.sends) {
    const graphs::Transfer& x = context.graph.transfers()[id];
    ReferenceClosure closure{context, node, state, {}, {}, {}, {}, {}};
    closure.need(VersionStore::key(x.handle, x.version));
    g.deps.push_back(closure.receives);
    g.bytes += 8 + 4 * closure.receives.size();
  }
  ReferenceClosure pending{context, node, state, {}, {}, {}, {}, {}};
  pending.need_pending_inputs();
  g.required = pending.receives;
  g.bytes += 4 * g.required.size();
  return g;
}

// Definition 5 on the reference graphs.
std::set<std::uint32_t> reference_total(const graphs::TaskGraph& graph, const std::vector<ReferenceGraph>& graphs) {
  std::map<std::uint32_t, const std::set<std::uint32_t>*> deps;
  for (const ReferenceGraph& g : graphs) {
    for (std::size_t i = 0; i < g.sends.size(); ++i) deps.emplace(g.sends[i], &g.deps[i]);
  }
  std::set<std::uint32_t> total;
  std::vector<std::uint32_t> queue;
  auto add = [&](std::uint32_t id) {
    if (deps.count(id) != 0 && total.insert(id).second) queue.push_back(id);
  };
  for (const ReferenceGraph& g : graphs) {
    for (std::uint32_t id : g.sends) {
      if (graphs[graph.transfers()[id].destination].lost_receives) add(id);
    }
    for (std::uint32_t id : g.required) add(id);
  }
  while (!queue.empty()) {
    const std::uint32_t id = queue.back();
    queue.pop_back();
    for (std::uint32_t r : *deps.at(id)) add(r);
  }
  return total;
}

NodePlan reference_plan(const PlanningContext& context, NodeId node, const LocalState& state,
                        const std::vector<ReferenceGraph>& graphs, const std::set<std::uint32_t>& total) {
  NodePlan plan;
  for (NodeId q = 0; q < graphs.size(); ++q) {
    if (graphs[q].restoring) plan.restoring.push_back(q);
  }
  if (state.restoring) return plan;
  for (std::size_t i = 0; i < state.executed.size(); ++i) plan.executed_since_checkpoint += state.executed[i] && !state.at_checkpoint[i];
  ReferenceClosure closure{context, node, state, {}, {}, {}, {}, {}};
  for (std::uint32_t id : graphs[node].sends) {
    const graphs::Transfer& x = context.graph.transfers()[id];
    plan.lost_sends += graphs[x.destination].lost_receives;
    if (total.count(id) == 0) continue;
    plan.resends.push_back(id);
    closure.need(VersionStore::key(x.handle, x.version));
  }
  closure.need_pending_inputs();
  std::sort(plan.resends.begin(), plan.resends.end());
  plan.reexecute.assign(closure.tasks.begin(), closure.tasks.end());
  plan.reloads.assign(closure.reloads.begin(), closure.reloads.end());
  plan.missing = closure.missing;
  return plan;
}

// The receives reachable in g from the given dependencies.
std::set<std::uint32_t> reachable(const RestrictedGraph& g, std::vector<std::uint32_t> stack) {
  std::set<std::uint32_t> receives;
  std::set<std::uint32_t> seen;
  while (!stack.empty()) {
    const std::uint32_t d = stack.back();
    stack.pop_back();
    if ((d & RestrictedGraph::kLocal) == 0) {
      receives.insert(d);
      continue;
    }
    const std::uint32_t v = d & ~RestrictedGraph::kLocal;
    REQUIRE(v >= g.sends.size());  // a dependency on a vertex is one on a shared task, never on a send
    REQUIRE(v < g.vertex_count());
    if (!seen.insert(v).second) continue;
    stack.insert(stack.end(), g.deps.begin() + g.dep_offsets[v], g.deps.begin() + g.dep_offsets[v + 1]);
  }
  return receives;
}

}  // namespace

TEST_CASE("cck: the linear Ḡ gives the plans of the closure-per-send Ḡ on random states", "[cck][planning]") {
  std::uint64_t old_bytes = 0, new_bytes = 0;
  std::size_t with_pending = 0, with_resends = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    std::mt19937_64 random(seed * 7919);
    const NodeId nodes = 2 + NodeId(random() % 7);
    const graphs::TaskGraph graph = testing::cck_states::random_graph(random, nodes, 30 + random() % 371);
    const node::RuntimeIndex index(graph);
    const protocols::cck::TransferLookup transfers(graph);
    testing::cck_states::Scenario scenario = testing::cck_states::random_scenario(random, graph, index);
    // A later round of the same recovery: some survivors have re-executions pending, or lost what
    // was sent to them since K (restored in a round no completed round has followed).
    if (random() % 2 == 0) {
      for (NodeId n = 0; n < nodes; ++n) {
        LocalState& s = scenario.states[n];
        if (s.restoring) continue;
        s.lost_receives = random() % 4 == 0;
        for (std::size_t i = 0; i < s.done.size(); ++i) {
          if (s.executed[i] && !s.at_checkpoint[i] && random() % 5 == 0) s.done[i] = 0;
        }
      }
    }
    for (bool keep : {false, true}) {
      const PlanningContext context{graph, index, transfers, keep};
      std::vector<RestrictedGraph> linear;
      std::vector<ReferenceGraph> reference;
      for (NodeId n = 0; n < nodes; ++n) {
        linear.push_back(build_restricted_graph(context, n, scenario.states[n]));
        reference.push_back(reference_graph(context, n, scenario.states[n]));
        new_bytes += linear.back().encode().size();
        old_bytes += reference.back().bytes;
      }
      const std::set<std::uint32_t> total = reference_total(graph, reference);
      for (NodeId n = 0; n < nodes; ++n) {
        INFO("seed " << seed << ", node " << n << (keep ? ", keep in memory" : ""));
        const RestrictedGraph& g = linear[n];
        const ReferenceGraph& r = reference[n];
        REQUIRE(g.sends == r.sends);
        CHECK(g.lost_receives == r.lost_receives);
        for (std::size_t i = 0; i < g.sends.size(); ++i) {
          const std::vector<std::uint32_t> first(g.deps.begin() + g.dep_offsets[i], g.deps.begin() + g.dep_offsets[i + 1]);
          CHECK(reachable(g, first) == r.deps[i]);
        }
        CHECK(reachable(g, g.required) == r.required);
        const NodePlan plan = plan_node(context, n, scenario.states[n], linear);
        const NodePlan expected = reference_plan(context, n, scenario.states[n], reference, total);
        CHECK(plan.reexecute == expected.reexecute);
        CHECK(plan.resends == expected.resends);
        CHECK(plan.reloads == expected.reloads);
        CHECK(plan.lost_sends == expected.lost_sends);
        CHECK(plan.executed_since_checkpoint == expected.executed_since_checkpoint);
        CHECK(plan.restoring == expected.restoring);
        CHECK(std::multiset<std::uint64_t>(plan.missing.begin(), plan.missing.end()) ==
              std::multiset<std::uint64_t>(expected.missing.begin(), expected.missing.end()));
        with_resends += !plan.resends.empty();
        with_pending += !r.required.empty();
      }
    }
  }
  WARN("cck linear Ḡ: " << with_resends << " node plans with re-sends, " << with_pending
                         << " with pending re-executions' receives; blocks " << old_bytes << " bytes as closures, "
                         << new_bytes << " linear");
  CHECK(with_resends >= 200);
  CHECK(with_pending >= 50);
}
