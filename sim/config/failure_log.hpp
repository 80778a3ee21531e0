#pragma once
// Failure logs of real machines (/failures with "model": "log"): the Failure Trace Archive's
// tab-separated event traces and the LANL failure data (CSV) of Schroeder and Gibson. Each log
// is read into machine failures, then mapped onto the simulated nodes and times.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "run_config.hpp"

namespace ftsim::config {

// One failure of a machine node, as the log gives it.
struct LogFailure {
  std::int64_t system = 0;  // FTA platform_id, LANL System (0 when the log has no such column)
  std::int64_t node = 0;    // FTA node_id, LANL nodenum; kNoNode: the log names none
  static constexpr std::int64_t kNoNode = -1;
  double start = 0;         // epoch seconds
  double repair = -1;       // seconds until repaired; < 0: the log does not say
  std::size_t line = 0;     // in the log file, for messages
};

// Reads a log; a bad line throws ConfigError naming "path:line".
std::vector<LogFailure> read_fta_log(const std::string& path);
std::vector<LogFailure> read_lanl_log(const std::string& path);

enum class NodeMapping { modulo, first, random };

struct LogWindow {
  std::optional<std::int64_t> system;  // keep only this system's failures
  double start = 0;                    // epoch seconds of simulated time 0
  double time_scale = 1;               // simulated seconds per log second
  NodeMapping nodes = NodeMapping::modulo;
  bool repair_as_downtime = false;
};

// What was kept and dropped, for a note.
struct LogCounts {
  std::size_t read = 0, other_system = 0, no_node = 0, before_start = 0, beyond_horizon = 0, unmapped = 0, kept = 0;
};

// The failures of `log` as simulated failure events, sorted by time. `seed` draws the random
// node mapping. Throws ConfigError (on `path`) if the log holds several systems and none is
// chosen, or if a repair time is needed and a kept failure has none.
std::vector<FailureEvent> map_log_failures(const std::vector<LogFailure>& log, const LogWindow& window, std::uint32_t nodes,
                                           std::uint64_t seed, const std::string& path, LogCounts& counts);

// Helpers of the two readers. The lines of a log file (at most 64 MiB; a UTF-8 byte order mark
// and the CR of CR LF endings removed); throws ConfigError naming the file.
std::vector<std::string> read_log_lines(const std::string& path);
// A field as an integer >= 0, or as a finite number >= 0; throws ConfigError naming `where`
// ("path:line") and the column.
std::int64_t log_integer(const std::string& field, const std::string& column, const std::string& where);
double log_number(const std::string& field, const std::string& column, const std::string& where);

// Splits one line of a log into fields: at tabs (FTA), or at commas with CSV's double quotes
// (LANL). Throws ConfigError on an unterminated quote.
std::vector<std::string> split_log_line(const std::string& line, char separator, const std::string& where);

// A log's header line: the index of each column, every one of them known and the required ones
// present (`format` names the log in messages, e.g. "an FTA event trace").
std::map<std::string, std::size_t> read_log_header(const std::vector<std::string>& fields,
                                                   std::span<const char* const> known,
                                                   std::span<const char* const> required, const std::string& where,
                                                   const std::string& format);

}  // namespace ftsim::config
