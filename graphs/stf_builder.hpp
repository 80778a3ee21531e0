#pragma once
// StfBuilder: the sequential task flow (StarPU / Kaapi) model. An application declares data
// and submits tasks in a sequential order; the builder infers, as StarPU-MPI does on every
// node:
//   - RAW / WAR / WAW dependencies between tasks,
//   - data versions (each write of a handle makes version v + 1),
//   - candidate checkpoint cuts (checkpoint()) and, per cut, the last writer of each handle,
//   - the transfer plan with the StarPU-MPI cache rule.
// finish() freezes everything into an immutable TaskGraph.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphs/background_prefault.hpp"
#include "graphs/task_graph.hpp"

namespace ftsim::graphs {

// Invalid use of the builder (unknown handle, node out of range, ...).
class GraphError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// a x b for data sizes; throws GraphError rather than wrapping around 2^64.
std::uint64_t checked_product(std::uint64_t a, std::uint64_t b);

class StfBuilder {
public:
  explicit StfBuilder(NodeId node_count);

  // Registers a kernel and its flops per execution; the same name returns the same id.
  KernelId kernel(std::string_view name, double flops);
  // Declares a data handle of `bytes` owned by `owner` (its initial value lives there).
  HandleId data(std::uint64_t bytes, NodeId owner);
  // A family names the handle ("A" with label {m, n} prints "A[m][n]"); a family without a label
  // is the handle's own name (names of a user's graph file).
  HandleId data(std::uint64_t bytes, NodeId owner, std::string_view family, Label label);
  // Submits a task executed on `node`. A handle listed twice gets the union of its modes.
  // `flops` overrides the kernel's flops for this task (e.g. a smaller last block).
  TaskId task(KernelId kernel, std::span<const AccessSpec> accesses, NodeId node,
              std::int32_t priority, Label label = {}, std::optional<double> flops = {});
  TaskId task(KernelId kernel, std::initializer_list<AccessSpec> accesses, NodeId node,
              std::int32_t priority, Label label = {}, std::optional<double> flops = {}) {
    return task(kernel, std::span<const AccessSpec>(accesses.begin(), accesses.size()), node,
                priority, label, flops);
  }
  // Marks a candidate checkpoint cut between the tasks submitted so far and the next ones.
  void checkpoint();

  std::size_t task_count() const { return graph_.task_kernel_.size(); }
  std::size_t handle_count() const { return graph_.handle_bytes_.size(); }

  // Reserves memory when the application knows its sizes (optional, for speed): exact counts or
  // close upper bounds. The reserved tasks, accesses and edges are faulted in on the second core
  // as the graph is built (BackgroundPrefault), so a loose bound costs memory, not only address
  // space. `transfers` bounds the transfers, which is also the number of cached copies recorded.
  void reserve(std::size_t tasks, std::size_t accesses, std::size_t edges, std::size_t transfers = 0);

  // Freezes the graph. The builder must not be used afterwards.
  TaskGraph finish();

private:
  struct HandleState {
    TaskId last_writer = kNone;
    Version version = 0;
    std::uint32_t readers_head = kNone;   // readers since the last write (list through reader_next_)
    // Nodes holding a cached copy of the current version: nodes 0..63 as bits (walking a pooled
    // list missed the caches at every read), larger ids in a list through holder_next_.
    std::uint64_t holder_bits = 0;
    std::uint32_t holders_head = kNone;
    // Where the current version lives: the owner, then the last writer's node. Kept here since
    // looking it up in task_node_ (tens of MB, an old task) missed the caches on every read.
    NodeId version_node = 0;
  };

  void add_edge(TaskId from);  // an in-edge of the task being submitted
  // A pooled list: its new head holding `value` before `head` (a free entry if any), and a whole
  // list given back to the free entries.
  static std::uint32_t push_entry(std::vector<std::uint32_t>& values, std::vector<std::uint32_t>& next,
                                  std::uint32_t& free, std::uint32_t value, std::uint32_t head);
  static void release_list(std::vector<std::uint32_t>& next, std::uint32_t& free, std::uint32_t head);

  TaskGraph graph_;
  std::vector<HandleState> state_;
  // Linked lists in pools: no allocation per task or per handle. A write ends its handle's lists,
  // whose entries go to a free list for the next ones: the pools hold the lists alive at once, not
  // one entry per access ever made (two arrays of 110 MB each for the 9.2 M-task Lion graph,
  // memory that costs its first touch and is thrown away).
  std::vector<TaskId> reader_task_;
  std::vector<std::uint32_t> reader_next_;
  std::uint32_t reader_free_ = kNone;
  std::vector<NodeId> holder_node_;
  std::vector<std::uint32_t> holder_next_;
  std::uint32_t holder_free_ = kNone;
  // Edges grouped by target (tasks come in id order), each group sorted by source: these
  // arrays are already the predecessors' CSR; finish() moves them into the graph.
  std::vector<TaskId> edge_source_;
  std::vector<std::uint32_t> in_edge_offset_;  // task_count + 1: task t's in-edges start here
  std::size_t reserved_tasks_ = 0;  // reserve()'s task count
  std::vector<AccessSpec> merged_;        // scratch for one task's accesses
  std::unordered_map<std::string, std::uint32_t> family_index_;
  // Last: destroyed first, so that its thread stops before the arrays it faults could be freed.
  BackgroundPrefault prefault_;  // faults the reserved arrays in on the second core
};

}  // namespace ftsim::graphs
