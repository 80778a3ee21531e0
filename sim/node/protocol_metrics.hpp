#pragma once
// Named protocol metrics: what a protocol counts on its own process besides what every run counts
// (messages, bytes, executions). A protocol module declares its metrics (name, unit, how the
// processes' values combine) in a table; a process adds to them by index through its context
// (ProtocolContext::counters()); the world folds them over the processes and writes them, by
// name, into results.json ("protocol_metrics", and per node), the run summary and sweep rows.
// No string and no allocation on the counting path: an index into a fixed array.
#include <array>
#include <cstddef>
#include <cstdint>

namespace ftsim::core {

enum class MetricFold : std::uint8_t {
  sum,  // the run's value is the sum over processes (a count, bytes sent)
  max,  // the run's value is the largest (a peak)
};

struct MetricDefinition {
  const char* name;         // snake_case, the key in results.json (e.g. "control_messages")
  const char* unit;         // "messages", "bytes", "tasks", "s" ...
  MetricFold fold;
  const char* description;  // one line, for docs and --help
};

// How many named metrics a protocol may declare.
inline constexpr std::size_t kMaxProtocolMetrics = 24;

// What a protocol counts on its own process.
struct ProtocolCounters {
  // StarPU-MPI's starpu_mpi_ft_stats, for the protocols that save data (global, buddy, ...).
  std::uint64_t cp_data_normal_count = 0, cp_data_normal_total_size = 0;
  std::uint64_t cp_data_cached_count = 0, cp_data_cached_size = 0;
  // The protocol's own named metrics, by index in its module's table.
  std::array<std::uint64_t, kMaxProtocolMetrics> named{};

  void add(std::size_t metric, std::uint64_t amount = 1) { named[metric] += amount; }
  void raise_to(std::size_t metric, std::uint64_t value) {
    if (value > named[metric]) named[metric] = value;
  }
};

}  // namespace ftsim::core
