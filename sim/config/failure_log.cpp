#include "failure_log.hpp"
#include "random_stream.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "config_error.hpp"
#include "input_file.hpp"
#include "units.hpp"
#include "xz_file.hpp"

namespace ftsim::config {

std::vector<std::string> read_log_lines(const std::string& path) {
  if (auto problem = input_file_problem(path, kMaxTraceFileBytes)) {
    throw ConfigError(path, "", "cannot open failure log: " + *problem);
  }
  std::string contents = is_xz_path(path) ? read_xz_file(path, kMaxTraceFileBytes) : read_input_file(path, kMaxTraceFileBytes);
  if (contents.rfind("\xEF\xBB\xBF", 0) == 0) contents.erase(0, 3);
  std::vector<std::string> lines;
  std::size_t begin = 0;
  while (begin < contents.size()) {
    std::size_t end = contents.find('\n', begin);
    if (end == std::string::npos) end = contents.size();
    std::string line = contents.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    begin = end + 1;
  }
  return lines;
}

std::int64_t log_integer(const std::string& field, const std::string& column, const std::string& where) {
  std::int64_t value = -1;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || value < 0) {
    throw ConfigError(where, "", "column \"" + column + "\": expected an integer >= 0, got \"" + printable_excerpt(field) + "\"");
  }
  return value;
}

double log_number(const std::string& field, const std::string& column, const std::string& where) {
  double value = -1;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || !std::isfinite(value) || value < 0) {
    throw ConfigError(where, "", "column \"" + column + "\": expected a number >= 0, got \"" + printable_excerpt(field) + "\"");
  }
  return value;
}

std::vector<std::string> split_log_line(const std::string& line, char separator, const std::string& where) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (separator == ',' && c == '"') {
      if (quoted && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';  // "" inside quotes is one quote
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == separator && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  if (quoted) throw ConfigError(where, "", "unterminated quote in \"" + printable_excerpt(line) + "\"");
  // Spaces around CSV fields and tab fields are not part of the values.
  for (auto& field : fields) {
    const auto first = field.find_first_not_of(' ');
    const auto last = field.find_last_not_of(' ');
    field = first == std::string::npos ? std::string() : field.substr(first, last - first + 1);
  }
  return fields;
}

std::map<std::string, std::size_t> read_log_header(const std::vector<std::string>& fields,
                                                   std::span<const char* const> known,
                                                   std::span<const char* const> required, const std::string& where,
                                                   const std::string& format) {
  std::map<std::string, std::size_t> column;
  for (std::size_t c = 0; c < fields.size(); ++c) {
    bool is_known = false;
    for (const char* name : known) is_known = is_known || fields[c] == name;
    if (!is_known) throw ConfigError(where, "", "unknown column \"" + printable_excerpt(fields[c]) + "\" in the header of " + format);
    if (!column.emplace(fields[c], c).second) throw ConfigError(where, "", "column \"" + fields[c] + "\" given twice");
  }
  for (const char* name : required) {
    if (!column.count(name)) throw ConfigError(where, "", std::string("the header has no column \"") + name + "\"");
  }
  return column;
}


std::vector<FailureEvent> map_log_failures(const std::vector<LogFailure>& log, const LogWindow& window, std::uint32_t nodes,
                                           std::uint64_t seed, const std::string& path, LogCounts& counts) {
  counts = LogCounts{};
  counts.read = log.size();
  std::set<std::int64_t> systems;
  for (const auto& f : log) systems.insert(f.system);
  if (!window.system && systems.size() > 1) {
    std::string list;
    for (auto s : systems) list += (list.empty() ? "" : ", ") + std::to_string(s);
    throw ConfigError(path, "", "the log holds the failures of several systems (" + list + "): choose one with /failures/system");
  }
  // The machine nodes of the chosen system, in increasing order, for "first" and "random".
  std::vector<std::int64_t> machine;
  for (const auto& f : log) {
    if ((!window.system || f.system == *window.system) && f.node != LogFailure::kNoNode) machine.push_back(f.node);
  }
  std::sort(machine.begin(), machine.end());
  machine.erase(std::unique(machine.begin(), machine.end()), machine.end());
  if (window.nodes == NodeMapping::random) {
    std::uint64_t state = seed * 0x2545f4914f6cdd1dULL + 0x4c4f47;  // a stream of its own ("LOG")
    for (std::size_t i = machine.size(); i > 1; --i) std::swap(machine[i - 1], machine[splitmix64(state) % i]);
  }
  std::map<std::int64_t, std::uint32_t> simulated;  // machine node -> simulated node
  for (std::size_t i = 0; i < machine.size() && i < nodes; ++i) simulated[machine[i]] = static_cast<std::uint32_t>(i);

  std::vector<FailureEvent> events;
  for (const auto& f : log) {
    if (window.system && f.system != *window.system) {
      ++counts.other_system;
      continue;
    }
    if (f.node == LogFailure::kNoNode) {
      ++counts.no_node;  // e.g. 126 records of LANL system 17 (empty nodenum): no node to fail
      continue;
    }
    if (f.start < window.start) {
      ++counts.before_start;
      continue;
    }
    const double time = (f.start - window.start) * window.time_scale;
    if (!(time <= kMaxSeconds)) {
      ++counts.beyond_horizon;
      continue;
    }
    FailureEvent e;
    e.time = time;
    if (window.nodes == NodeMapping::modulo) {
      e.node = static_cast<std::uint32_t>(f.node % nodes);
    } else {
      auto found = simulated.find(f.node);
      if (found == simulated.end()) {
        ++counts.unmapped;
        continue;
      }
      e.node = found->second;
    }
    if (window.repair_as_downtime) {
      if (f.repair < 0) {
        throw ConfigError(path + ":" + std::to_string(f.line), "",
                          "no repair time for this failure, needed by /failures/repair_as_downtime");
      }
      e.downtime = std::min(f.repair * window.time_scale, kMaxSeconds);
    }
    events.push_back(e);
  }
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  counts.kept = events.size();
  return events;
}

}  // namespace ftsim::config
