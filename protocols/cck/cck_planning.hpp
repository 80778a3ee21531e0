#pragma once
// CCK's restart planning (Besseron et al. 2006 §3.5), as pure functions of what each process
// knows: its own state (task states, the versions in its memory, its local copy of the last
// valid checkpoint K) and, after the all-gather, every process's communication-restricted graph.
// The protocol runs them on each process (protocols/cck/cck_restart.cpp); the tests run them on
// states they build themselves and compare with a brute-force search.
//
// In ftsim's terms (docs/protocols.md, "CCK"): a process is a node; a *send task* is a transfer
// of the transfer plan leaving the node (executed when its version's writer completes, or at the
// start for an initial value); a *receive task* is a transfer arriving at the node; a computation
// task is a task of the graph. A task is *executed since the checkpoint* when it has run in this
// process and is not done in checkpoint K.
//
//  Ḡ^p (build_restricted_graph): for every send executed since K, what it depends on through the
//      node's own tasks executed since K (cut at versions that checkpoint K holds and, with §3.7.1,
//      at versions still in memory): the paper lists the receives of the local transitive closure;
//      ftsim lists the same reachability in linear size (see RestrictedGraph); plus what the
//      re-executions already pending (from an earlier round of the same recovery) still need.
//  C_perdues: the sends of the survivors executed since K to a restarting process (or to one that
//      restarted in an earlier round of the same recovery, which did not complete).
//  C_total:   C_perdues and every send executed since K that a send of C_total depends on
//      (receives from a restarting process, or whose send has not run, come the usual way).
//  T^p (plan_node): the tasks of p executed since K that the sends of C_total^p need.
#include <cstdint>
#include <unordered_set>
#include <vector>

#include "graphs/task_graph.hpp"
#include "protocols/cck/cck_options.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::protocols::cck {

// What a node knows of itself when a restart round starts (it is stopped: nothing runs).
struct LocalState {
  bool restoring = false;                 // a replacement: it restores checkpoint K, holds nothing yet
  // It restored K in a round of this recovery that no completed round has followed: what was sent
  // to it since K may not have been sent again yet (a restoring node is such a node too).
  bool lost_receives = false;
  std::uint32_t checkpoint = 0;           // K (0: the job's input)
  // Per task of the node, in RuntimeIndex::tasks_of order:
  std::vector<std::uint8_t> executed;     // has run in this process or is done in what it restored
  std::vector<std::uint8_t> done;         // done now (executed but not done: a pending re-execution)
  std::vector<std::uint8_t> at_checkpoint;  // done in checkpoint K
  std::unordered_set<std::uint64_t> checkpoint_versions;  // VersionStore keys of checkpoint K
  std::unordered_set<std::uint64_t> held;                 // VersionStore keys in memory now
};

// Ḡ^p, what node p contributes to the all-gather: a graph whose vertices are p's sends executed
// since K (vertices 0 to |sends| - 1), then some of p's tasks executed since K (`shared`), each
// vertex with its direct dependencies: receives (transfers to p executed since K, by transfer id)
// and shared tasks (kLocal | the task's vertex). The receives a send depends on (§3.5.2: those
// of its local transitive closure) are exactly those reachable from its vertex. A task is a vertex
// when more than one place (a send, a task, the pending re-executions) reaches it directly and it
// has at least two dependencies: its inputs are then listed once, however many later sends depend
// on it; a task reached from one place only is listed in that place, and a task with one
// dependency (or none) is replaced by it. The paper's closure lists, for a send at sweep i of an
// iterative code, every receive of the i sweeps before it (O(i²) in all); this graph has at most
// a vertex per task and a dependency per input (linear in the work since K), and gives the same
// C_total and T^p (tests/unit/cck_reference_plan_test.cpp). A shared task's vertex never enters
// C_total: only sends are sent again.
struct RestrictedGraph {
  static constexpr std::uint32_t kLocal = 0x80000000u;        // a dependency on vertex (d & ~kLocal)
  static constexpr std::uint32_t kSharedTask = 0xFFFFFFFFu;  // the wire id of a vertex that is no send

  bool restoring = false;
  bool lost_receives = false;              // the sends to it since K are lost (C_perdues)
  std::vector<std::uint32_t> sends;        // transfers from p executed since K: the first vertices
  std::vector<TaskId> shared;              // the tasks of the next vertices (not on the wire)
  std::vector<std::uint32_t> dep_offsets;  // vertex_count() + 1 offsets into deps
  std::vector<std::uint32_t> deps;         // per vertex: receive ids and kLocal | vertex, ascending
  std::vector<std::uint32_t> required;     // what pending re-executions need, in the same terms

  // The all-gather's block; the nodes read it where it is (gathered_round).
  node::Bytes encode() const;
  std::size_t vertex_count() const { return dep_offsets.size() - 1; }
  std::uint64_t edge_count() const { return deps.size(); }
};

// A node's part of the plan.
struct NodePlan {
  std::vector<TaskId> reexecute;       // T^p, ascending (with the re-executions already pending)
  std::vector<std::uint32_t> resends;  // C_total^p: transfers to send again, ascending
  std::vector<std::uint64_t> reloads;  // versions read back from its copy of checkpoint K
  std::uint64_t lost_sends = 0;        // |C_perdues^p|
  std::uint64_t executed_since_checkpoint = 0;  // tasks of p executed since K
  std::vector<NodeId> restoring;       // the processes that restart from K in this round
  std::vector<std::uint64_t> missing;  // versions no rule provides (an inconsistent state: a bug)
};

struct PlanningContext {
  const graphs::TaskGraph& graph;
  const node::RuntimeIndex& index;
  const TransferLookup& transfers;
  bool keep_in_memory;
};

RestrictedGraph build_restricted_graph(const PlanningContext& context, NodeId node, const LocalState& state);

// What a node takes from the N gathered graphs for its plan (§3.5.5 steps 4-5): each node's
// flags and C_total. Every node computes it itself from the blocks its own messages delivered (the
// same value on every node, as every process of the paper computes it); nothing is shared between
// nodes.
struct GatheredRound {
  std::vector<std::uint8_t> lost_receives;  // per node: the sends to it since K are lost
  std::vector<NodeId> restoring;            // the processes that restart from K in this round
  std::vector<std::uint32_t> total;         // C_total, in the order it was reached
  std::vector<std::uint8_t> in_total;       // per transfer of the plan: it is in C_total

  bool contains(std::uint32_t id) const { return id < in_total.size() && in_total[id] != 0; }
};
// From the gathered blocks (node q's Ḡ^q encoded, at q), read where they are: every block's flags,
// sends and required dependencies once, and the dependencies of only the vertices C_total reaches
// (a shared task's vertex is followed without entering C_total). Throws node::WireError if a block
// is malformed.
GatheredRound gathered_round(const PlanningContext& context, const std::vector<node::SharedBytes>& blocks);

// T^p and C_total^p of node p from its own Ḡ^p and the round's C_total (step 6).
NodePlan plan_node(const PlanningContext& context, NodeId node, const LocalState& state, const RestrictedGraph& own,
                   const GatheredRound& round);
// The same from every node's Ḡ (encoded, as the all-gather carries them): for the tests.
NodePlan plan_node(const PlanningContext& context, NodeId node, const LocalState& state,
                   const std::vector<RestrictedGraph>& graphs);

}  // namespace ftsim::protocols::cck
