#include "sim/node/run_metrics.hpp"

#include <algorithm>

namespace ftsim::node {

void add_effect(FailureRecord& record, const FailureEffect& effect) {
  if (!effect.restart_point.empty()) record.restart_point = effect.restart_point;
  record.tasks_reexecuted += effect.tasks_reexecuted;
  record.work_lost_seconds += effect.work_lost_seconds;
  record.processes_rolled_back += effect.processes_rolled_back;
  record.messages_replayed += effect.messages_replayed;
  record.bytes_replayed += effect.bytes_replayed;
}

void update_checkpoints(RunMetrics& metrics, const CheckpointRecord& record) {
  auto& checkpoints = metrics.checkpoints;
  const std::uint64_t key = (std::uint64_t(record.process + 1) << 32) | record.id;
  auto latest = metrics.checkpoint_latest.find(key);
  CheckpointRecord* existing = latest == metrics.checkpoint_latest.end() ? nullptr : &checkpoints[latest->second];
  if (record.partial && existing && existing->partial) {
    // One node's share of a checkpoint of the job: merged with the other shares.
    auto earliest = [](double a, double b) { return a < 0 ? b : (b < 0 ? a : std::min(a, b)); };
    existing->started = earliest(existing->started, record.started);
    existing->saved = std::max(existing->saved, record.saved);
    existing->committed = std::max(existing->committed, record.committed);
    existing->bytes += record.bytes;
    return;
  }
  // A committed checkpoint taken again under its number (global with levels: a fallback to an
  // older checkpoint voids the ones after it, and their numbers are taken again) is a new record.
  const bool taken_again = existing && existing->committed >= 0 && record.committed < 0;
  if (!record.partial && existing && !existing->aborted && !existing->partial && !taken_again) {
    *existing = record;  // the latest state of the checkpoint in progress
    return;
  }
  metrics.checkpoint_latest[key] = checkpoints.size();
  checkpoints.push_back(record);
}

void fold_process_metrics(RunMetrics& metrics, const std::vector<NodeMetrics>& processes, NodeId node_count,
                          const std::vector<MetricDefinition>& definitions) {
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
  metrics.protocol_metrics.clear();
  for (std::size_t i = 0; i < definitions.size() && i < kMaxProtocolMetrics; ++i) {
    RunMetrics::NamedValue named{definitions[i].name, definitions[i].unit, 0};
    for (const NodeMetrics& m : processes) {
      const std::uint64_t value = m.counters.named[i];
      named.value = definitions[i].fold == MetricFold::sum ? named.value + value : std::max(named.value, value);
    }
    metrics.protocol_metrics.push_back(std::move(named));
  }
}

}  // namespace ftsim::node
