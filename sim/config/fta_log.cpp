// The Failure Trace Archive's event traces (event_trace.tab): tab-separated, a header line naming
// the columns, one availability event a line. event_type 0 is an unavailability (the node is
// down from event_start_time to event_stop_time, epoch seconds), 1 an availability interval.
#include <map>

#include "config_error.hpp"
#include "failure_log.hpp"
#include "input_file.hpp"

namespace ftsim::config {

std::vector<LogFailure> read_fta_log(const std::string& path) {
  static const char* const kColumns[] = {"event_id",   "component_id",     "node_id",         "platform_id",     "node_name",
                                         "event_type", "event_start_time", "event_stop_time", "event_end_reason"};
  static const char* const kRequired[] = {"node_id", "event_type", "event_start_time", "event_stop_time"};
  const auto lines = read_log_lines(path);
  std::map<std::string, std::size_t> column;  // name -> field index
  std::size_t width = 0;
  std::vector<LogFailure> failures;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    const std::string& line = lines[i];
    if (line.find_first_not_of(" \t") == std::string::npos || line[0] == '#') continue;
    auto fields = split_log_line(line, '\t', where);
    if (width == 0) {
      column = read_log_header(fields, kColumns, kRequired, where, "an FTA event trace");
      width = fields.size();
      continue;
    }
    if (fields.size() != width) {
      throw ConfigError(where, "", "expected " + std::to_string(width) + " tab-separated fields (as the header), got " +
                                       std::to_string(fields.size()) + ": \"" + printable_excerpt(line) + "\"");
    }
    const auto type = log_integer(fields[column["event_type"]], "event_type", where);
    if (type > 1) throw ConfigError(where, "", "column \"event_type\": expected 0 (down) or 1 (up), got " + std::to_string(type));
    LogFailure f;
    f.node = log_integer(fields[column["node_id"]], "node_id", where);
    if (column.count("platform_id")) f.system = log_integer(fields[column["platform_id"]], "platform_id", where);
    f.start = log_number(fields[column["event_start_time"]], "event_start_time", where);
    const double stop = log_number(fields[column["event_stop_time"]], "event_stop_time", where);
    if (stop < f.start) throw ConfigError(where, "", "event_stop_time is before event_start_time");
    if (type == 1) continue;  // the node is up: not a failure
    f.repair = stop - f.start;
    f.line = i + 1;
    failures.push_back(f);
  }
  if (width == 0) throw ConfigError(path, "", "an FTA event trace needs a header line naming its columns; the file has none");
  return failures;
}

}  // namespace ftsim::config
