#include "graphs/graph_stats.hpp"

namespace ftsim::graphs {

GraphStats compute_stats(const TaskGraph& graph, const CostModel& cost) {
  GraphStats s;
  s.tasks = graph.task_count();
  s.edges = graph.edge_count();
  s.handles = graph.handle_count();
  s.data_bytes = graph.total_data_bytes();
  const NodeId nodes = graph.node_count();
  s.tasks_per_node.assign(nodes, 0);
  s.sent_bytes_per_node.assign(nodes, 0);
  s.received_bytes_per_node.assign(nodes, 0);
  s.sent_count_per_node.assign(nodes, 0);

  std::vector<std::uint64_t> per_kernel(graph.kernel_count(), 0);
  s.tasks_per_section.assign(graph.cut_count() + 1, 0);
  CutId section = 0;
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    ++per_kernel[graph.kernel(t)];
    ++s.tasks_per_node[graph.node(t)];
    while (section < graph.cut_count() && graph.cut_position(section + 1) <= t) ++section;
    ++s.tasks_per_section[section];
    s.total_flops += graph.flops(t);
  }
  for (KernelId k = 0; k < graph.kernel_count(); ++k) s.tasks_per_kernel.emplace_back(graph.kernel_name(k), per_kernel[k]);

  for (const Transfer& x : graph.transfers()) {
    const std::uint64_t bytes = graph.bytes(x.handle);
    s.transfer_bytes += bytes;
    s.sent_bytes_per_node[x.source] += bytes;
    ++s.sent_count_per_node[x.source];
    s.received_bytes_per_node[x.destination] += bytes;
  }
  s.transfers = graph.transfers().size();
  s.cache_hits = graph.transfers().cache_hits();

  s.critical_path_flops = longest_path(graph, [&](TaskId t) { return graph.flops(t); });
  if (cost.has_speeds()) {
    s.critical_path_seconds = longest_path(graph, [&](TaskId t) { return cost.seconds(graph, t); });
    double total = 0;
    for (TaskId t = 0; t < graph.task_count(); ++t) total += cost.seconds(graph, t);
    s.total_seconds = total;
  }
  return s;
}

}  // namespace ftsim::graphs
