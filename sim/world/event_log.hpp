#pragma once
// Exports the run's records (run_record.hpp) as a text log for reading what a run did, line by
// line: one line per record of the chosen categories, with the simulated time and the process.
// Off by default (ftsim run --log). The golden logs of tests/golden are such logs of small paper
// examples, compared line by line (as SimGrid's .tesh files do).
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

#include "graphs/task_graph.hpp"
#include "sim/node/run_record.hpp"

namespace ftsim::world {

enum class LogCategory : std::uint32_t {
  task = 1,        // task starts and ends
  message = 2,     // data and control messages delivered
  failure = 4,     // failures, notices, replacements by a spare, shrinks (a rank re-hosted on a survivor)
  protocol = 8,    // protocol phases and decisions (checkpoints, recoveries, plans)
  run = 16,        // the end of the run
  migration = 32,  // proactive migration: alarms, migrations and their phases, failures avoided
};
inline constexpr std::uint32_t kAllLogCategories = 63;

// Parses "all" or a comma-separated list of category names; false on an unknown name.
bool parse_log_categories(std::string_view text, std::uint32_t& mask, std::string& unknown);
const char* to_string(LogCategory category);

class EventLog final : public node::RecordSink {
public:
  EventLog(const std::string& path, std::uint32_t categories, const graphs::TaskGraph& graph);
  void record(const node::Record& record) override;
  void close() override { out_.close(); }

private:
  bool enabled(LogCategory category) const { return (mask_ & static_cast<std::uint32_t>(category)) != 0; }
  void write(double time, LogCategory category, long process, std::string_view text);
  void migration(const node::Record& record);

  std::uint32_t mask_;
  const graphs::TaskGraph& graph_;
  std::ofstream out_;
};

}  // namespace ftsim::world
