#pragma once
// StarPU's history-based performance models (sampling/codelets/45/<symbol>.<host>, written by
// StarPU 1.3): per combination of devices and per implementation, a table of measured kernel
// executions, one row per data footprint: hash, size (bytes), flops, mean and deviation (µs),
// sum, sum of squares, count. ftsim reads the table of one device type, implementation 0.
#include <cstdint>
#include <string>
#include <vector>

namespace ftsim::config {

struct PerfmodelEntry {
  std::uint64_t size = 0;  // bytes of the task's data
  double flops = 0;        // as the application declared them (0 if it did not)
  double mean_us = 0;      // mean duration, microseconds
  std::uint64_t count = 0; // measurements
  std::size_t line = 0;    // in the file, for messages
};

enum class PerfmodelDevice { cpu = 0, cuda = 1, opencl = 2 };

// The entries of the first combination made of one device of type `device` (implementation 0).
// A bad file throws ConfigError naming "path:line"; a file without such a combination, or
// whose table is empty, throws naming the file.
std::vector<PerfmodelEntry> read_perfmodel(const std::string& path, PerfmodelDevice device);

}  // namespace ftsim::config
