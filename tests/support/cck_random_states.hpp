#pragma once
// Random CCK restart states for the planning tests (tests/unit/cck_minimality_test.cpp,
// tests/unit/cck_reference_plan_test.cpp): a small random task graph (≤ 200 tasks, 2 to 8 nodes), a
// random execution, a random checkpoint date, a random failure date and one or two failed nodes.
// The node states come from a model of the runtime's memory written here, not from the protocol.
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "graphs/stf_builder.hpp"
#include "protocols/cck/cck_planning.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/version_store.hpp"

namespace ftsim::testing::cck_states {

using graphs::NodeId;
using graphs::TaskId;
using protocols::cck::LocalState;

inline std::uint64_t key(graphs::HandleId h, graphs::Version v) { return node::VersionStore::key(h, v); }

inline graphs::TaskGraph random_graph(std::mt19937_64& random, NodeId nodes, std::size_t tasks) {
  graphs::StfBuilder builder(nodes);
  const graphs::KernelId kernel = builder.kernel("f", 1e3);
  const std::size_t handles = nodes + random() % (3 * nodes);
  std::vector<graphs::HandleId> data;
  for (std::size_t h = 0; h < handles; ++h) data.push_back(builder.data(8, NodeId(random() % nodes)));
  for (std::size_t t = 0; t < tasks; ++t) {
    std::vector<graphs::AccessSpec> accesses;
    std::set<graphs::HandleId> used;
    const std::size_t count = 1 + random() % 3;
    for (std::size_t a = 0; a < count; ++a) {
      const graphs::HandleId h = data[random() % data.size()];
      if (!used.insert(h).second) continue;
      const int mode = int(random() % 4);
      accesses.push_back(mode < 2 ? graphs::R(h) : mode == 2 ? graphs::RW(h) : graphs::W(h));
    }
    builder.task(kernel, accesses, NodeId(random() % nodes), 0);
  }
  return builder.finish();
}

// A model of each node's memory under the runtime's rules (sim/node/version_store.cpp): own
// versions live until the next version of the handle is produced there; a copy lives while local
// readers still need it; a node receives a version once.
struct Memory {
  const graphs::TaskGraph& graph;
  const node::RuntimeIndex& index;
  std::vector<std::map<std::uint64_t, std::uint32_t>> held;  // per node: key -> readers left (own: none)
  std::vector<std::vector<std::uint8_t>> done;              // per node, per local task

  Memory(const graphs::TaskGraph& g, const node::RuntimeIndex& i) : graph(g), index(i), held(g.node_count()) {
    for (NodeId n = 0; n < g.node_count(); ++n) done.emplace_back(i.tasks_of(n).size(), 0);
    for (graphs::HandleId h = 0; h < g.handle_count(); ++h) held[g.owner(h)][key(h, 0)] = 0;
    for (NodeId n = 0; n < g.node_count(); ++n) {
      for (std::uint32_t id : i.initial_sends(n)) deliver(g.transfers()[id]);
    }
  }
  std::uint32_t readers_left(NodeId n, graphs::HandleId h, graphs::Version v) const {
    std::uint32_t count = 0;
    for (TaskId r : index.readers(h, v)) count += graph.node(r) == n && !done[n][index.local_slot(r)];
    return count;
  }
  void deliver(const graphs::Transfer& x) {
    const std::uint64_t k = key(x.handle, x.version);
    if (held[x.destination].count(k)) return;
    const bool own = graph.version_node(x.handle, x.version) == x.destination;
    const std::uint32_t readers = readers_left(x.destination, x.handle, x.version);
    if (own || readers > 0) held[x.destination][k] = own ? 0 : readers;
  }
  void run(TaskId t) {
    const NodeId n = graph.node(t);
    done[n][index.local_slot(t)] = 1;
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      auto it = held[n].find(key(a.handle, graphs::version_read(a)));
      const bool copy = graph.version_node(a.handle, graphs::version_read(a)) != n;
      if (it != held[n].end() && copy && --it->second == 0) held[n].erase(it);
    }
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::writes(a.mode)) continue;
      held[n].erase(key(a.handle, a.version - 1));
      held[n][key(a.handle, a.version)] = 0;
    }
    for (std::uint32_t id : index.sends_after(t)) deliver(graph.transfers()[id]);
  }
};

// A random topological order of the whole graph: an execution with instant deliveries.
inline std::vector<TaskId> random_execution(std::mt19937_64& random, const graphs::TaskGraph& graph) {
  std::vector<std::size_t> waiting(graph.task_count());
  std::vector<TaskId> ready, order;
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    waiting[t] = graph.predecessor_count(t);
    if (waiting[t] == 0) ready.push_back(t);
  }
  while (!ready.empty()) {
    std::swap(ready[random() % ready.size()], ready.back());
    const TaskId t = ready.back();
    ready.pop_back();
    order.push_back(t);
    for (TaskId s : graph.successors(t)) {
      if (--waiting[s] == 0) ready.push_back(s);
    }
  }
  return order;
}

struct Scenario {
  std::vector<LocalState> states;
  std::vector<std::uint8_t> failed;
  std::size_t at_checkpoint = 0, at_failure = 0, executed = 0;  // dates, in tasks of the execution
};

// A random execution of `graph` stopped by a failure of one or two nodes after a checkpoint.
inline Scenario random_scenario(std::mt19937_64& random, const graphs::TaskGraph& graph, const node::RuntimeIndex& index) {
  const NodeId nodes = graph.node_count();
  const std::vector<TaskId> order = random_execution(random, graph);
  Scenario scenario;
  scenario.executed = order.size();
  // Checkpoint date and failure date (the checkpoint 0 is the job's input).
  const std::size_t at_checkpoint = random() % 4 == 0 ? 0 : random() % (order.size() + 1);
  const std::size_t at_failure = at_checkpoint + random() % (order.size() - at_checkpoint + 1);
  scenario.at_checkpoint = at_checkpoint;
  scenario.at_failure = at_failure;
  Memory memory(graph, index);
  scenario.states.resize(nodes);
  scenario.failed.assign(nodes, 0);
  scenario.failed[random() % nodes] = 1;
  if (nodes > 2 && random() % 3 == 0) scenario.failed[random() % nodes] = 1;
  for (std::size_t k = 0; k <= order.size(); ++k) {
    if (k == at_checkpoint) {
      for (NodeId n = 0; n < nodes; ++n) {
        LocalState& s = scenario.states[n];
        s.checkpoint = at_checkpoint == 0 ? 0 : 1;
        s.at_checkpoint = memory.done[n];
        for (const auto& [v, readers] : memory.held[n]) s.checkpoint_versions.insert(v);
      }
      if (at_checkpoint == 0) {  // checkpoint 0 is the input: the owned initial values only
        for (NodeId n = 0; n < nodes; ++n) scenario.states[n].checkpoint_versions.clear();
        for (graphs::HandleId h = 0; h < graph.handle_count(); ++h) scenario.states[graph.owner(h)].checkpoint_versions.insert(key(h, 0));
      }
    }
    if (k == at_failure) {
      for (NodeId n = 0; n < nodes; ++n) {
        LocalState& s = scenario.states[n];
        s.restoring = scenario.failed[n] != 0;
        s.executed = s.done = memory.done[n];
        for (const auto& [v, readers] : memory.held[n]) s.held.insert(v);
      }
      break;
    }
    memory.run(order[k]);
  }
  return scenario;
}

}  // namespace ftsim::testing::cck_states
