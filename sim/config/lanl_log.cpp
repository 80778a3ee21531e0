// The LANL failure data of Schroeder and Gibson (1996-2005, as published): CSV, a header line
// naming the columns, one node outage a line. "Prob Started" and "Prob Fixed" are dates
// (M/D/YYYY H:MM), "Down Time" the outage in minutes, "System" the system number and "nodenum"
// the node within it (empty in some records, e.g. 126 of system 17: kept without a node, and
// dropped with a count if their system is chosen).
#include <map>

#include "config_error.hpp"
#include "failure_log.hpp"
#include "input_file.hpp"
#include "log_dates.hpp"

namespace ftsim::config {

namespace {
double log_date(const std::string& field, const std::string& column, const std::string& where) {
  auto date = parse_us_date(field);
  if (!date) {
    throw ConfigError(where, "", "column \"" + column + "\": expected a date M/D/YYYY H:MM, got \"" + printable_excerpt(field) + "\"");
  }
  return *date;
}
}  // namespace

std::vector<LogFailure> read_lanl_log(const std::string& path) {
  // The columns of the published data, in its order; System, nodenum, Prob Started, Prob Fixed
  // and Down Time are read.
  static const char* const kColumns[] = {
      "System", "machine type", "nodes", "procstot", "procsinnode", "nodenum", "nodenumz", "node install",
      "node prod", "node decom", "fru type", "mem", "cputype", "memtype", "num intercon", "purpose",
      "Prob Started", "Prob Fixed", "Down Time", "Facilities", "Hardware", "Human Error", "Network",
      "Undetermined", "Software", "Same Event"};
  static const char* const kRequired[] = {"System", "nodenum", "Prob Started"};
  const auto lines = read_log_lines(path);
  std::map<std::string, std::size_t> column;
  std::size_t width = 0;
  std::vector<LogFailure> failures;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string where = path + ":" + std::to_string(i + 1);
    const std::string& line = lines[i];
    if (line.find_first_not_of(" ,") == std::string::npos) continue;  // blank, or only empty fields
    auto fields = split_log_line(line, ',', where);
    if (width == 0) {
      column = read_log_header(fields, kColumns, kRequired, where, "a LANL failure log");
      width = fields.size();
      continue;
    }
    if (fields.size() != width) {
      throw ConfigError(where, "", "expected " + std::to_string(width) + " comma-separated fields (as the header), got " +
                                       std::to_string(fields.size()) + ": \"" + printable_excerpt(line) + "\"");
    }
    LogFailure f;
    f.system = log_integer(fields[column["System"]], "System", where);
    const std::string& node = fields[column["nodenum"]];
    f.node = node.find_first_not_of(' ') == std::string::npos ? LogFailure::kNoNode : log_integer(node, "nodenum", where);
    f.start = log_date(fields[column["Prob Started"]], "Prob Started", where);
    if (column.count("Prob Fixed") && !fields[column["Prob Fixed"]].empty()) {
      const double fixed = log_date(fields[column["Prob Fixed"]], "Prob Fixed", where);
      if (fixed < f.start) throw ConfigError(where, "", "\"Prob Fixed\" is before \"Prob Started\"");
      f.repair = fixed - f.start;
    }
    // "Down Time" (minutes) is what the log says the outage lasted: it wins over the dates.
    if (column.count("Down Time") && !fields[column["Down Time"]].empty()) {
      f.repair = log_number(fields[column["Down Time"]], "Down Time", where) * 60;
    }
    f.line = i + 1;
    failures.push_back(f);
  }
  if (width == 0) throw ConfigError(path, "", "a LANL failure log needs a header line naming its columns; the file has none");
  return failures;
}

}  // namespace ftsim::config
