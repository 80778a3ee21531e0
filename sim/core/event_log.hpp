#pragma once
// A cheap event log for reading what a run did, line by line: one line per event of the chosen
// categories, with the simulated time and the process. Off by default (ftsim run --log); when off,
// an event costs one test of a mask. The golden logs of tests/golden are such logs of small paper
// examples, compared line by line (as SimGrid's .tesh files do).
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>

namespace ftsim::core {

enum class LogCategory : std::uint32_t {
  task = 1,        // task starts and ends
  message = 2,     // data and control messages delivered
  failure = 4,     // failures, notices, replacements
  protocol = 8,    // protocol decisions (checkpoints, recoveries, plans)
  run = 16,        // start and end of the run
};
inline constexpr std::uint32_t kAllLogCategories = 31;

// Parses "all" or a comma-separated list of category names; false on an unknown name.
bool parse_log_categories(std::string_view text, std::uint32_t& mask, std::string& unknown);
const char* to_string(LogCategory category);

class EventLog {
public:
  EventLog() = default;
  EventLog(const std::string& path, std::uint32_t categories);
  bool enabled(LogCategory category) const { return (mask_ & static_cast<std::uint32_t>(category)) != 0; }
  // `process` is a node id, or the number of nodes for the coordinator, or -1 for the driver.
  void write(double time, LogCategory category, long process, std::string_view text);
  void close() { out_.close(); }

private:
  std::uint32_t mask_ = 0;
  std::ofstream out_;
};

}  // namespace ftsim::core
