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
#include <vector>

namespace ftsim::node {

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

// One checkpoint image a process wrote with /checkpoint_data (protocols/checkpoint_content.hpp):
// a process's share of checkpoint `checkpoint`, full or incremental, the bytes it stands for
// (`logical`, what it would have saved without the section) and those it stored.
struct ContentImageRecord {
  std::uint32_t checkpoint = 0;
  bool full = true;
  std::uint64_t logical_bytes = 0, stored_bytes = 0;
  double seconds = 0;  // hashing and compressing it (modelled in a simulation, measured on MPI)
  template <class F> void fields(F& f) { f(checkpoint, full, logical_bytes, stored_bytes, seconds); }
};

// What /checkpoint_data did on one process (results.json "checkpoint_data", docs/results.md).
struct ContentCounters {
  std::uint64_t full_images = 0, incremental_images = 0;
  std::uint64_t full_logical_bytes = 0, full_stored_bytes = 0;
  std::uint64_t incremental_logical_bytes = 0, incremental_stored_bytes = 0;
  std::uint64_t uncompressed_bytes = 0;  // stored bytes before compression
  std::uint64_t blocks = 0, zero_blocks = 0, unchanged_blocks = 0, stored_blocks = 0;
  double hash_seconds = 0, compress_seconds = 0, decompress_seconds = 0;
  std::uint64_t restores = 0, restore_images = 0, restore_bytes = 0;  // images read back to restore
  std::vector<ContentImageRecord> images;
  // What an MPI rank sends the driver of it (sim/mpi/packet.hpp), in this order (sim/node/codec.hpp).
  template <class F> void fields(F& f) {
    f(full_images, incremental_images, full_logical_bytes, full_stored_bytes, incremental_logical_bytes,
      incremental_stored_bytes, uncompressed_bytes, blocks, zero_blocks, unchanged_blocks, stored_blocks, restores,
      restore_images, restore_bytes, hash_seconds, compress_seconds, decompress_seconds, images);
  }
};

// What a protocol counts on its own process.
struct ProtocolCounters {
  // StarPU-MPI's starpu_mpi_ft_stats, for the protocols that save data (global, buddy, ...).
  std::uint64_t cp_data_normal_count = 0, cp_data_normal_total_size = 0;
  std::uint64_t cp_data_cached_count = 0, cp_data_cached_size = 0;
  // The protocol's own named metrics, by index in its module's table.
  std::array<std::uint64_t, kMaxProtocolMetrics> named{};
  // /checkpoint_data: counted by the shared content code of protocols/checkpoint_content.hpp.
  ContentCounters content;

  template <class F> void fields(F& f) {
    f(cp_data_normal_count, cp_data_normal_total_size, cp_data_cached_count, cp_data_cached_size, named, content);
  }
  void add(std::size_t metric, std::uint64_t amount = 1) { named[metric] += amount; }
  void raise_to(std::size_t metric, std::uint64_t value) {
    if (value > named[metric]) named[metric] = value;
  }
};

}  // namespace ftsim::node
