// CCK's T_a_re-executer is the smallest set of survivor tasks that lets every lost send be made
// again (Besseron 2006 §3.5.6: "le calcul strictement nécessaire"). On small random task graphs
// (≤ 200 tasks, 2 to 8 nodes) with a random execution, a random checkpoint date, a random failure
// date and one or two failed nodes, the planner's T (protocols/cck/cck_planning.hpp) is compared
// with an independent brute-force search: a fixpoint simulation of what a set S of re-executions
// makes available again (on every node: what its copy of the checkpoint holds, with §3.7.1 what
// its memory holds, what re-executed tasks produce, what senders can send again; the failed nodes
// re-run everything after the checkpoint), over every subset S of the tasks executed since the
// checkpoint when there are at most 14 of them (else: S = T must work and T minus any one task
// must not). The node states come from a model of the runtime's memory
// (tests/support/cck_random_states.hpp), not from the protocol. On the same scenarios, C_total as
// each node reads it from the encoded blocks of the all-gather (gathered_round) equals Definition 5
// computed here on the graphs (following their shared-task vertices).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <set>

#include "graphs/stf_builder.hpp"
#include "protocols/cck/cck_planning.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/version_store.hpp"
#include "tests/support/cck_random_states.hpp"

using namespace ftsim;
using graphs::NodeId;
using graphs::TaskId;
using protocols::cck::LocalState;
using protocols::cck::PlanningContext;
using protocols::cck::RestrictedGraph;

namespace {

using testing::cck_states::key;
using testing::cck_states::Scenario;

// C_total (Besseron 2006 Definition 5) by its definition: the sends executed since K to a node
// that lost its receives, the receives pending re-executions need, and every send executed since K
// that a send of C_total depends on.
std::set<std::uint32_t> total_communications(const graphs::TaskGraph& graph, const std::vector<RestrictedGraph>& graphs) {
  std::map<std::uint32_t, std::pair<NodeId, std::size_t>> described;  // send -> (node, vertex)
  for (NodeId q = 0; q < graphs.size(); ++q) {
    for (std::size_t i = 0; i < graphs[q].sends.size(); ++i) described.emplace(graphs[q].sends[i], std::pair(q, i));
  }
  std::set<std::uint32_t> total;
  std::set<std::pair<NodeId, std::size_t>> followed;
  std::vector<std::pair<NodeId, std::size_t>> queue;
  auto follow = [&](NodeId q, std::size_t v) {
    if (followed.insert({q, v}).second) queue.emplace_back(q, v);
  };
  auto add = [&](std::uint32_t id) {
    if (described.count(id) != 0 && total.insert(id).second) follow(described.at(id).first, described.at(id).second);
  };
  // A dependency of node q's graph: a receive, or one of q's shared tasks (followed, not a send).
  auto dependency = [&](NodeId q, std::uint32_t d) {
    if ((d & RestrictedGraph::kLocal) != 0) {
      follow(q, d & ~RestrictedGraph::kLocal);
    } else {
      add(d);
    }
  };
  for (NodeId q = 0; q < graphs.size(); ++q) {
    for (std::uint32_t id : graphs[q].sends) {
      if (graphs[graph.transfers()[id].destination].lost_receives) add(id);
    }
    for (std::uint32_t d : graphs[q].required) dependency(q, d);
  }
  while (!queue.empty()) {
    const auto [q, v] = queue.back();
    queue.pop_back();
    const RestrictedGraph& g = graphs[q];
    for (std::uint32_t k = g.dep_offsets[v]; k < g.dep_offsets[v + 1]; ++k) dependency(q, g.deps[k]);
  }
  return total;
}

// The independent search: may the re-executions S make every lost send possible again?
struct BruteForce {
  const graphs::TaskGraph& graph;
  const node::RuntimeIndex& index;
  const Scenario& scenario;
  bool keep_in_memory;
  std::vector<TaskId> candidates;    // survivor tasks executed since the checkpoint
  std::vector<std::uint32_t> lost;   // C_perdues

  bool since(TaskId t) const {
    const LocalState& s = scenario.states[graph.node(t)];
    const std::uint32_t i = index.local_slot(t);
    return s.executed[i] && !s.at_checkpoint[i];
  }
  // The transfers a sender can make again: survivors, those they made since the checkpoint;
  // failed nodes, those their re-run makes.
  bool replayable(const graphs::Transfer& x) const {
    const bool failed = scenario.failed[x.source];
    const LocalState& s = scenario.states[x.source];
    const std::uint32_t checkpoint = s.checkpoint;
    if (x.version == 0) return checkpoint == 0;
    const TaskId w = graph.writer(x.handle, x.version);
    return failed ? !s.at_checkpoint[index.local_slot(w)] : since(w);
  }
  bool feasible(const std::set<TaskId>& chosen) const {
    const NodeId nodes = graph.node_count();
    std::vector<std::set<std::uint64_t>> avail(nodes);
    std::vector<TaskId> runnable(chosen.begin(), chosen.end());
    for (NodeId n = 0; n < nodes; ++n) {
      const LocalState& s = scenario.states[n];
      avail[n].insert(s.checkpoint_versions.begin(), s.checkpoint_versions.end());
      if (!scenario.failed[n] && keep_in_memory) avail[n].insert(s.held.begin(), s.held.end());
      if (!scenario.failed[n]) continue;
      const auto local = index.tasks_of(n);
      for (std::size_t i = 0; i < local.size(); ++i) {
        if (!s.at_checkpoint[i]) runnable.push_back(local[i]);
      }
    }
    std::vector<std::uint8_t> ran(graph.task_count(), 0);
    for (bool changed = true; changed;) {
      changed = false;
      for (TaskId t : runnable) {
        if (ran[t]) continue;
        const NodeId n = graph.node(t);
        bool inputs = true;
        for (const graphs::Access& a : graph.accesses(t)) {
          if (graphs::reads(a.mode) && !avail[n].count(key(a.handle, graphs::version_read(a)))) inputs = false;
        }
        if (!inputs) continue;
        ran[t] = 1;
        changed = true;
        for (const graphs::Access& a : graph.accesses(t)) {
          if (graphs::writes(a.mode)) avail[n].insert(key(a.handle, a.version));
        }
      }
      for (const graphs::Transfer& x : graph.transfers()) {
        if (avail[x.source].count(key(x.handle, x.version)) && replayable(x) &&
            avail[x.destination].insert(key(x.handle, x.version)).second) {
          changed = true;
        }
      }
    }
    for (std::uint32_t id : lost) {
      const graphs::Transfer& x = graph.transfers()[id];
      if (!avail[x.source].count(key(x.handle, x.version))) return false;
    }
    return true;
  }
};

struct Outcome {
  std::size_t lost = 0, planned = 0, candidates = 0;
  bool exhaustive = false;
};

Outcome check_one(std::uint64_t seed, bool keep_in_memory) {
  std::mt19937_64 random(seed);
  const NodeId nodes = 2 + NodeId(random() % 7);
  const graphs::TaskGraph graph = testing::cck_states::random_graph(random, nodes, 30 + random() % 171);
  const node::RuntimeIndex index(graph);
  const protocols::cck::TransferLookup transfers(graph);
  const Scenario scenario = testing::cck_states::random_scenario(random, graph, index);
  const std::size_t at_checkpoint = scenario.at_checkpoint, at_failure = scenario.at_failure;
  // The planner, as every process runs it: Ḡ^p of each, then each survivor's T^p.
  const PlanningContext context{graph, index, transfers, keep_in_memory};
  std::vector<RestrictedGraph> restricted;
  for (NodeId n = 0; n < nodes; ++n) restricted.push_back(build_restricted_graph(context, n, scenario.states[n]));
  {
    // What each node reads from the encoded blocks the all-gather delivers is Definition 5 computed
    // here on the graphs themselves.
    std::vector<node::SharedBytes> blocks;
    for (const RestrictedGraph& g : restricted) blocks.push_back(std::make_shared<const node::Bytes>(g.encode()));
    const protocols::cck::GatheredRound round = protocols::cck::gathered_round(context, blocks);
    INFO("seed " << seed);
    const std::set<std::uint32_t> total(round.total.begin(), round.total.end());
    CHECK(total == total_communications(graph, restricted));
    CHECK(total.size() == round.total.size());
    for (std::uint32_t id = 0; id < graph.transfers().size(); ++id) CHECK(round.contains(id) == (total.count(id) != 0));
    for (NodeId n = 0; n < nodes; ++n) CHECK(round.lost_receives[n] == (restricted[n].lost_receives ? 1 : 0));
  }
  std::set<TaskId> planned;
  for (NodeId n = 0; n < nodes; ++n) {
    const protocols::cck::NodePlan plan = plan_node(context, n, scenario.states[n], restricted);
    INFO("seed " << seed << ", node " << n);
    REQUIRE(plan.missing.empty());
    if (scenario.failed[n]) REQUIRE(plan.reexecute.empty());
    planned.insert(plan.reexecute.begin(), plan.reexecute.end());
  }

  BruteForce search{graph, index, scenario, keep_in_memory, {}, {}};
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    if (!scenario.failed[graph.node(t)] && search.since(t)) search.candidates.push_back(t);
  }
  for (std::uint32_t id = 0; id < graph.transfers().size(); ++id) {
    const graphs::Transfer& x = graph.transfers()[id];
    if (!scenario.failed[x.source] && scenario.failed[x.destination] && search.replayable(x)) search.lost.push_back(id);
  }
  Outcome outcome{search.lost.size(), planned.size(), search.candidates.size(), false};
  INFO("seed " << seed << ": " << nodes << " nodes, " << graph.task_count() << " tasks, checkpoint after "
                << at_checkpoint << ", failure after " << at_failure << " of " << scenario.executed << ", "
                << search.candidates.size() << " candidates, " << search.lost.size() << " lost sends, T = "
                << planned.size() << (keep_in_memory ? " (keep in memory)" : ""));
  for (TaskId t : planned) REQUIRE(std::count(search.candidates.begin(), search.candidates.end(), t) == 1);
  REQUIRE(search.feasible(planned));
  if (search.candidates.size() <= 14) {
    // Every subset, smallest first: the first that works is the minimum, and it must be T.
    outcome.exhaustive = true;
    const std::size_t c = search.candidates.size();
    std::vector<std::set<TaskId>> smallest;
    for (std::size_t size = 0; size <= c && smallest.empty(); ++size) {
      for (std::uint32_t mask = 0; mask < (1u << c); ++mask) {
        if (std::size_t(__builtin_popcount(mask)) != size) continue;
        std::set<TaskId> subset;
        for (std::size_t i = 0; i < c; ++i) {
          if (mask & (1u << i)) subset.insert(search.candidates[i]);
        }
        if (search.feasible(subset)) smallest.push_back(subset);
      }
    }
    REQUIRE(smallest.size() == 1);
    CHECK(smallest.front() == planned);
  } else {
    for (TaskId t : planned) {
      std::set<TaskId> fewer = planned;
      fewer.erase(t);
      INFO("without task " << t);
      CHECK_FALSE(search.feasible(fewer));
    }
  }
  return outcome;
}

}  // namespace

TEST_CASE("cck: T_a_re-executer is the minimal set a brute-force search finds", "[cck][minimality]") {
  std::size_t exhaustive = 0, with_lost = 0, nonempty = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    for (bool keep : {false, true}) {
      const Outcome outcome = check_one(seed, keep);
      exhaustive += outcome.exhaustive;
      with_lost += outcome.lost > 0;
      nonempty += outcome.planned > 0;
    }
  }
  WARN("cck minimality: 600 scenarios, " << exhaustive << " searched exhaustively, " << with_lost
                                          << " with lost sends, " << nonempty << " with re-executions");
  // The scenarios must exercise the planner.
  CHECK(exhaustive >= 150);
  CHECK(nonempty >= 150);
}
