#pragma once
// Summary statistics of a task graph (what `ftsim graph --stats` prints).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graphs/cost_model.hpp"
#include "graphs/task_graph.hpp"

namespace ftsim::graphs {

struct GraphStats {
  std::uint64_t tasks = 0, edges = 0, handles = 0, data_bytes = 0;
  std::vector<std::pair<std::string, std::uint64_t>> tasks_per_kernel;
  std::uint64_t transfers = 0, transfer_bytes = 0, cache_hits = 0;
  std::vector<std::uint64_t> tasks_per_node, sent_bytes_per_node, received_bytes_per_node,
      sent_count_per_node;
  // Longest dependency chain, by flops and (with kernel speeds) by seconds on one core each.
  double critical_path_flops = 0;
  std::optional<double> critical_path_seconds;
  double total_flops = 0;
  std::optional<double> total_seconds;  // sequential time on one core
  // Tasks per section when every candidate cut is a checkpoint (index = cuts before the task).
  std::vector<std::uint64_t> tasks_per_section;
};

GraphStats compute_stats(const TaskGraph& graph, const CostModel& cost);

// Longest path through the DAG where each task weighs weight(t); tasks are in topological order.
template <class Weight>
double longest_path(const TaskGraph& graph, Weight&& weight) {
  std::vector<double> finish(graph.task_count(), 0.0);
  double longest = 0;
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    double start = 0;
    for (TaskId p : graph.predecessors(t)) start = std::max(start, finish[p]);
    finish[t] = start + weight(t);
    longest = std::max(longest, finish[t]);
  }
  return longest;
}

}  // namespace ftsim::graphs
