#include "sim/sweep/sweep_summary.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/units.hpp"
#include "sim/sweep/confidence_interval.hpp"

namespace ftsim::sweep {

namespace {

// A quantity of the summary: its column, heading, scale, and how one value prints.
struct Quantity {
  const char* column;
  const char* heading;
  Scale scale;
  bool seconds;  // else a fraction printed as a percentage
};

constexpr Quantity kQuantities[] = {
    {"makespan", "makespan", Scale::log, true},
    {"overhead", "overhead", Scale::log1p, false},
    {"overhead_checkpointing", "checkpointing", Scale::log1p, false},
    {"overhead_failures", "failures", Scale::log1p, false},
};

std::string cell_text(const Row& value) {
  if (value.is_null()) return "-";
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string show(double value, bool seconds) {
  return seconds ? config::format_seconds(value) : fmt::format("{:+.1f}%", 100 * value);
}

// Columns of the widest cell per column, left-aligned (cli's Table is a layer above).
void print_table(const std::vector<std::vector<std::string>>& lines, std::ostream& out) {
  std::vector<std::size_t> width;
  for (const auto& line : lines) {
    width.resize(std::max(width.size(), line.size()));
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  for (const auto& line : lines) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c) {
      text += line[c];
      if (c + 1 < line.size()) text += std::string(width[c] - line[c].size() + 2, ' ');
    }
    out << text << "\n";
  }
}

}  // namespace

std::vector<std::string> varied_columns_of(const Row& row) {
  std::vector<std::string> columns;
  bool inside = false;
  for (const auto& [key, unused] : row.items()) {
    if (key == "status") break;
    if (inside) columns.push_back(key);
    if (key == "id") inside = true;
  }
  return columns;
}

void print_sweep_summary(const std::vector<Row>& rows, const std::vector<std::string>& varied, std::ostream& out) {
  // Group by the varied columns but the seed, and but a unit column's SI twin (the same values).
  std::vector<std::string> keys;
  for (const auto& column : varied) {
    bool twin = false;
    for (const char* suffix : {"_s", "_bytes", "_Bps"}) {
      const std::string s(suffix);
      twin = twin || (column.size() > s.size() && column.compare(column.size() - s.size(), s.size(), s) == 0 &&
                      std::find(varied.begin(), varied.end(), column.substr(0, column.size() - s.size())) != varied.end());
    }
    if (column != "seed" && !twin) keys.push_back(column);
  }
  struct Group {
    std::size_t rows = 0;
    std::map<std::string, std::vector<double>> values;  // quantity column -> its values in the ok rows
  };
  std::vector<std::vector<std::string>> order;  // the groups in the order of their first row
  std::map<std::vector<std::string>, Group> groups;
  for (const Row& row : rows) {
    std::vector<std::string> key;
    for (const auto& column : keys) key.push_back(row.contains(column) ? cell_text(row[column]) : "-");
    auto [it, fresh] = groups.try_emplace(key);
    if (fresh) order.push_back(key);
    ++it->second.rows;
    if (row.value("status", "") != "ok") continue;
    for (const Quantity& q : kQuantities) {
      if (row.contains(q.column) && row[q.column].is_number()) it->second.values[q.column].push_back(row[q.column].get<double>());
    }
  }
  std::vector<const Quantity*> shown;
  for (const Quantity& q : kQuantities) {
    if (std::any_of(groups.begin(), groups.end(), [&](const auto& g) { return g.second.values.count(q.column) > 0; })) shown.push_back(&q);
  }
  std::vector<std::vector<std::string>> lines;
  std::vector<std::string> heading = keys.empty() ? std::vector<std::string>{"points"} : keys;
  heading.push_back("n ok");
  for (const Quantity* q : shown) heading.push_back(std::string(q->heading) + " [95% interval]");
  lines.push_back(heading);
  bool linear = false, single = false;
  for (const auto& key : order) {
    const Group& g = groups.at(key);
    std::vector<std::string> line = keys.empty() ? std::vector<std::string>{"all"} : key;
    const std::size_t ok = g.values.count("makespan") ? g.values.at("makespan").size() : 0;
    line.push_back(ok == g.rows ? std::to_string(ok) : fmt::format("{} of {}", ok, g.rows));
    for (const Quantity* q : shown) {
      const auto found = g.values.find(q->column);
      if (found == g.values.end()) {
        line.push_back("-");
        continue;
      }
      Scale scale = q->scale;
      const Interval i = interval95(found->second, scale);
      linear = linear || scale == Scale::linear;
      single = single || i.n < 2;
      line.push_back(i.n < 2 ? show(i.mean, q->seconds) : fmt::format("{} [{}, {}]", show(i.mean, q->seconds), show(i.low, q->seconds), show(i.high, q->seconds)));
    }
    lines.push_back(line);
  }
  out << "\nsummary: the ok rows" << (keys.empty() ? "" : " grouped by the varied keys but the seed")
      << "; mean and 95% interval (Student's t on log makespan and log(1 + overhead): never below -100%)\n";
  print_table(lines, out);
  if (single) out << "(a group of one ok row has no interval: give the sweep more seeds)\n";
  if (linear) out << "(some group has an overhead of -100% or less: its interval is on the values themselves)\n";
}

std::vector<Row> read_sweep_rows(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_regular_file(dir / "rows.jsonl")) files.push_back(dir / "rows.jsonl");
  if (std::filesystem::is_directory(dir)) {
    static const std::regex shard_file(R"(rows\.shard-[0-9]+-of-[0-9]+\.jsonl)");
    std::vector<std::filesystem::path> shards;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file() && std::regex_match(entry.path().filename().string(), shard_file)) shards.push_back(entry.path());
    }
    std::sort(shards.begin(), shards.end());
    files.insert(files.end(), shards.begin(), shards.end());
  }
  if (files.empty()) {
    throw config::ConfigError(dir.string(), "", "no rows.jsonl (nor rows.shard-K-of-N.jsonl): not the output directory of `ftsim sweep`");
  }
  std::vector<Row> rows;
  std::map<std::string, bool> seen;  // a point in the sweep's file and in a shard's counts once
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::string line;
    std::size_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      Row row;
      try {
        row = Row::parse(line);
      } catch (const nlohmann::json::parse_error&) {
        if (in.peek() == EOF) continue;  // a last write cut short: that point has no row yet
        throw config::ConfigError(file.string(), "", fmt::format("line {}: not a JSON row of a sweep", number));
      }
      if (!row.is_object() || !row.contains("id") || !row["id"].is_string() || !row.contains("status")) {
        throw config::ConfigError(file.string(), "", fmt::format("line {}: not a row of a sweep (a JSON object with \"id\" and \"status\")", number));
      }
      if (seen.emplace(row["id"].get<std::string>(), true).second) rows.push_back(std::move(row));
    }
  }
  if (rows.empty()) throw config::ConfigError(files.front().string(), "", "no rows yet: no point of this sweep has finished");
  return rows;
}

}  // namespace ftsim::sweep
