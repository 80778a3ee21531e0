#pragma once
// NodeObserver: what the observer of a run keeps about one node, outside its process (it outlives
// the node's incarnations), the same in the simulated world (one per node) and on an MPI rank
// (its own node): how many times each task ran over the whole run, which finished tasks died with
// a failed incarnation and are being redone (lost work, per failure), and the node's share of the
// oracle at the end. Protocols never see it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "graphs/task_graph.hpp"
#include "sim/node/digest.hpp"
#include "sim/node/node_runtime.hpp"
#include "sim/node/runtime_index.hpp"

namespace ftsim::world {

using graphs::HandleId;
using graphs::NodeId;
using graphs::TaskId;

// What the oracle found wrong (the first few of each kind are described).
struct OracleFindings {
  static constexpr std::size_t kDescribed = 20;
  std::size_t missing = 0, wrong = 0;
  std::vector<std::string> missing_lines, wrong_lines;

  void add_missing(std::string line) {
    if (missing++ < kDescribed) missing_lines.push_back(std::move(line));
  }
  void add_wrong(std::string line) {
    if (wrong++ < kDescribed) wrong_lines.push_back(std::move(line));
  }
  bool ok() const { return missing == 0 && wrong == 0; }
};

class NodeObserver {
public:
  NodeObserver(NodeId node, const node::RuntimeIndex& index);

  // An execution of one of the node's tasks completed.
  struct Execution {
    bool again = false;             // the task had completed before in the run (a re-execution)
    bool redoes_lost_work = false;  // it redoes work a failure of this node destroyed...
    std::size_t failure = 0;        // ...the failure of this index (the run's failure records)
  };
  Execution observe(TaskId task);
  // A cache hint before observe(task) (BackendEvents::hint, the task_end stage).
  void prefetch(TaskId task) const { __builtin_prefetch(&runs_[index_.local_slot(task)]); }
  // Task executions of the node so far, over all its incarnations (failures "after N tasks").
  std::uint64_t executions() const { return executions_; }
  bool ran(TaskId task) const { return runs_[index_.local_slot(task)] != 0; }

  // The node's process died in failure `failure`: what it had finished is lost (until redone).
  void lose(const node::NodeRuntime& runtime, std::size_t failure);

  // The node's share of the oracle: the final versions it must hold, with the failure-free digest
  // (`final_handles`: those whose final version is this node's), and every task done and run at
  // least once in the run (values are not executions). `runtime` is null if the node is down.
  void check_oracle(const graphs::TaskGraph& graph, const node::NodeRuntime* runtime, const std::vector<HandleId>& final_handles,
                    const std::vector<node::Digest>& expected, OracleFindings& findings) const;
  // One line of a stall report for the node (empty if it has nothing left to do).
  std::string stall_line(const node::NodeRuntime* runtime) const;

private:
  NodeId node_;
  const node::RuntimeIndex& index_;
  std::vector<std::uint16_t> runs_;      // per local task: executions over the whole run
  std::vector<std::uint8_t> lost_done_;  // per local task: done by a dead incarnation, not redone yet
  std::size_t lost_failure_ = 0;         // the failure those belong to
  std::uint64_t executions_ = 0;
};

// The digest every handle's final version has in a failure-free run (see digest.hpp).
// `interruptible`: a stop request (Ctrl-C) ends it with Interrupted.
std::vector<node::Digest> failure_free_digests(const graphs::TaskGraph& graph, bool interruptible = true);

// The handles whose final version each node must hold at the end (one pass over the handles).
std::vector<std::vector<HandleId>> final_handles_by_node(const graphs::TaskGraph& graph);

}  // namespace ftsim::world
