#include "sim/core/run_metrics.hpp"

#include <algorithm>

namespace ftsim::core {

void fold_process_metrics(RunMetrics& metrics, const std::vector<NodeMetrics>& processes, NodeId node_count) {
  metrics.nodes.assign(processes.begin(), processes.begin() + std::min<std::size_t>(node_count, processes.size()));
  metrics.cp_data_normal_count = metrics.cp_data_normal_total_size = 0;
  metrics.cp_data_cached_count = metrics.cp_data_cached_size = 0;
  metrics.ft_service_msgs_count = metrics.ft_service_msgs_total_size = 0;
  metrics.in_mem_cp_data_total = metrics.in_mem_cp_data_max_at_t = 0;
  metrics.log_bytes = metrics.log_peak_bytes = 0;
  for (const NodeMetrics& m : processes) {
    metrics.cp_data_normal_count += m.counters.cp_data_normal_count;
    metrics.cp_data_normal_total_size += m.counters.cp_data_normal_total_size;
    metrics.cp_data_cached_count += m.counters.cp_data_cached_count;
    metrics.cp_data_cached_size += m.counters.cp_data_cached_size;
    metrics.ft_service_msgs_count += m.service_messages;
    metrics.ft_service_msgs_total_size += m.service_bytes;
    metrics.in_mem_cp_data_total += m.checkpoint_store_total;
    metrics.in_mem_cp_data_max_at_t = std::max(metrics.in_mem_cp_data_max_at_t, m.checkpoint_store_peak);
    metrics.log_bytes += m.log_store_total;
    metrics.log_peak_bytes = std::max(metrics.log_peak_bytes, m.log_store_peak);
  }
}

}  // namespace ftsim::core
