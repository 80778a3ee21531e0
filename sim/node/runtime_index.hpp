#pragma once
// Read-only indexes over a task graph that every node runtime needs, built once per run:
//   - the readers of each version of each handle (who consumes (h, v));
//   - the tasks of each node and each task's position among them;
//   - the application sends each task triggers when it completes (the transfer plan grouped by
//     producer), and the sends of initial values grouped by owner.
#include <algorithm>
#include <span>
#include <vector>

#include "graphs/task_graph.hpp"

namespace ftsim::node {

using graphs::HandleId;
using graphs::NodeId;
using graphs::TaskGraph;
using graphs::TaskId;
using graphs::Version;

class RuntimeIndex {
public:
  explicit RuntimeIndex(const TaskGraph& graph);

  // Tasks that read version v of h (R of v, or RW writing v + 1), grouped by node in node order,
  // in submission order within a node.
  std::span<const TaskId> readers(HandleId h, Version v) const {
    const std::size_t slot = version_slot_[h] + v;
    return {readers_.data() + reader_offset_[slot], readers_.data() + reader_offset_[slot + 1]};
  }
  // The readers of (h, v) that run on `node`, in submission order.
  std::span<const TaskId> readers_on(const TaskGraph& graph, HandleId h, Version v, NodeId node) const {
    const std::span<const TaskId> all = readers(h, v);
    const auto first = std::partition_point(all.begin(), all.end(), [&](TaskId r) { return graph.node(r) < node; });
    const auto last = std::partition_point(first, all.end(), [&](TaskId r) { return graph.node(r) == node; });
    return {first, last};
  }
  // Transfer-plan entries whose version task t produces.
  std::span<const std::uint32_t> sends_after(TaskId t) const {
    return {send_ids_.data() + send_offset_[t], send_ids_.data() + send_offset_[t + 1]};
  }
  // Transfer-plan entries of initial values owned by `node`.
  std::span<const std::uint32_t> initial_sends(NodeId node) const {
    return {initial_send_ids_.data() + initial_offset_[node], initial_send_ids_.data() + initial_offset_[node + 1]};
  }
  // The tasks of a node, in submission order.
  std::span<const TaskId> tasks_of(NodeId node) const {
    return {node_tasks_.data() + node_task_offset_[node], node_tasks_.data() + node_task_offset_[node + 1]};
  }
  // Position of a task among the tasks of its node (where the node keeps its state).
  std::uint32_t local_slot(TaskId t) const { return local_slot_[t]; }
  // A cache hint for a task about to be handled (its slot and sends entries).
  void prefetch_task(TaskId t) const {
    __builtin_prefetch(&local_slot_[t]);
    __builtin_prefetch(&send_offset_[t]);
  }
  // The handles a node owns (holds the initial value of), in id order: a node's start-up reads
  // its own data, not a scan of every handle (which made starting N nodes O(N x handles)).
  std::span<const HandleId> owned_handles(NodeId node) const {
    return {owned_handles_.data() + owned_offset_[node], owned_handles_.data() + owned_offset_[node + 1]};
  }

private:
  void index_readers(const TaskGraph& graph, std::size_t slots);
  void index_sends_and_slots(const TaskGraph& graph);  // sends, owned handles, local slots

  std::vector<std::uint64_t> version_slot_;   // first slot of handle h (one slot per version 0..final)
  std::vector<std::uint32_t> reader_offset_;  // per slot
  std::vector<TaskId> readers_;
  std::vector<std::uint32_t> send_offset_;    // per task
  std::vector<std::uint32_t> send_ids_;
  std::vector<std::uint32_t> initial_offset_; // per node
  std::vector<std::uint32_t> initial_send_ids_;
  std::vector<std::uint32_t> node_task_offset_;
  std::vector<TaskId> node_tasks_;
  std::vector<std::uint32_t> local_slot_;
  std::vector<std::uint32_t> owned_offset_;  // per node
  std::vector<HandleId> owned_handles_;
};

}  // namespace ftsim::node
