#include "sim/core/run_metrics.hpp"

#include <algorithm>

namespace ftsim::core {

void add_effect(FailureRecord& record, const FailureEffect& effect) {
  if (!effect.restart_point.empty()) record.restart_point = effect.restart_point;
  record.tasks_reexecuted += effect.tasks_reexecuted;
  record.work_lost_seconds += effect.work_lost_seconds;
  record.processes_rolled_back += effect.processes_rolled_back;
  record.messages_replayed += effect.messages_replayed;
  record.bytes_replayed += effect.bytes_replayed;
}

void update_checkpoints(std::vector<CheckpointRecord>& checkpoints, const CheckpointRecord& record) {
  if (record.partial) {
    for (auto it = checkpoints.rbegin(); it != checkpoints.rend(); ++it) {
      if (it->id != record.id || !it->partial) continue;
      auto earliest = [](double a, double b) { return a < 0 ? b : (b < 0 ? a : std::min(a, b)); };
      it->started = earliest(it->started, record.started);
      it->saved = std::max(it->saved, record.saved);
      it->committed = std::max(it->committed, record.committed);
      it->bytes += record.bytes;
      return;
    }
    checkpoints.push_back(record);
    return;
  }
  if (!checkpoints.empty() && checkpoints.back().id == record.id && !checkpoints.back().aborted) {
    checkpoints.back() = record;
  } else {
    checkpoints.push_back(record);
  }
}

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
    metrics.log_copies_peak_bytes = std::max(metrics.log_copies_peak_bytes, m.log_copies_peak);
  }
}

}  // namespace ftsim::core
