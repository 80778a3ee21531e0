#include "perfmodel_file.hpp"

#include <charconv>
#include <cmath>
#include <sstream>

#include "config_error.hpp"
#include "failure_log.hpp"
#include "input_file.hpp"

namespace ftsim::config {

namespace {

// The file's values, line by line: '#' lines are StarPU's comments (section titles, column
// names) and carry nothing.
class ModelLines {
public:
  explicit ModelLines(const std::string& path) : path_(path), lines_(read_log_lines(path)) {}

  // The fields of the next line that is not a comment or blank; `what` names it in messages.
  std::vector<std::string> next(const std::string& what) {
    while (index_ < lines_.size()) {
      const std::string& line = lines_[index_++];
      if (line.find_first_not_of(" \t") == std::string::npos || line[line.find_first_not_of(" \t")] == '#') continue;
      std::istringstream in(line);
      std::vector<std::string> fields;
      for (std::string field; in >> field;) fields.push_back(field);
      return fields;
    }
    if (lines_.empty()) throw ConfigError(path_, "", "the file is empty: expected " + what);
    throw ConfigError(path_ + ":" + std::to_string(lines_.size()), "", "the file ends where " + what + " was expected");
  }
  std::string where() const { return path_ + ":" + std::to_string(index_); }
  std::string line() const { return index_ > 0 ? printable_excerpt(lines_[index_ - 1]) : std::string(); }

  // The next line as one integer in [min, max].
  std::int64_t integer(const std::string& what, std::int64_t min, std::int64_t max) {
    auto fields = next(what);
    std::int64_t value = 0;
    if (fields.size() == 1) {
      auto [end, ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), value);
      if (ec == std::errc() && end == fields[0].data() + fields[0].size() && value >= min && value <= max) return value;
    }
    throw ConfigError(where(), "", "expected " + what + " (an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                                       "]), got \"" + line() + "\"");
  }

  // The next line as `count` numbers ("nan" allowed: StarPU writes it for unfitted regressions).
  void numbers(const std::string& what, std::size_t count) {
    auto fields = next(what);
    bool ok = fields.size() == count;
    for (std::size_t i = 0; ok && i < fields.size(); ++i) {
      double value = 0;
      auto [end, ec] = std::from_chars(fields[i].data(), fields[i].data() + fields[i].size(), value);
      ok = fields[i] == "nan" || fields[i] == "-nan" || (ec == std::errc() && end == fields[i].data() + fields[i].size());
    }
    if (!ok) throw ConfigError(where(), "", "expected " + what + " (" + std::to_string(count) + " numbers), got \"" + line() + "\"");
  }

private:
  std::string path_;
  std::vector<std::string> lines_;
  std::size_t index_ = 0;
};

PerfmodelEntry read_entry(ModelLines& lines) {
  auto fields = lines.next("a history entry");
  const std::string where = lines.where();
  if (fields.size() != 8) {
    throw ConfigError(where, "", "expected a history entry \"hash size flops mean dev sum sum2 n\" (8 fields), got \"" + lines.line() + "\"");
  }
  PerfmodelEntry e;
  std::uint32_t hash = 0;
  auto [hash_end, hash_ec] = std::from_chars(fields[0].data(), fields[0].data() + fields[0].size(), hash, 16);
  if (hash_ec != std::errc() || hash_end != fields[0].data() + fields[0].size()) {
    throw ConfigError(where, "", "expected a footprint hash of 8 hex digits, got \"" + printable_excerpt(fields[0]) + "\"");
  }
  e.size = static_cast<std::uint64_t>(log_integer(fields[1], "size", where));
  e.flops = log_number(fields[2], "flops", where);
  e.mean_us = log_number(fields[3], "mean (us)", where);
  for (int i = 4; i < 7; ++i) log_number(fields[i], i == 4 ? "dev (us)" : i == 5 ? "sum" : "sum2", where);
  e.count = static_cast<std::uint64_t>(log_integer(fields[7], "n", where));
  e.line = std::stoul(where.substr(where.rfind(':') + 1));
  return e;
}

}  // namespace

std::vector<PerfmodelEntry> read_perfmodel(const std::string& path, PerfmodelDevice device) {
  ModelLines lines(path);
  const auto version = lines.integer("the performance model version", 0, 1000);
  if (version != 45) {
    throw ConfigError(lines.where(), "", "performance model version " + std::to_string(version) +
                                             " is not supported (ftsim reads version 45, StarPU 1.3's sampling/codelets/45)");
  }
  const auto combinations = lines.integer("the number of combinations", 0, 1024);
  std::vector<PerfmodelEntry> found;
  bool matched = false;
  for (std::int64_t comb = 0; comb < combinations; ++comb) {
    const auto devices = lines.integer("the number of devices of a combination", 1, 1024);
    bool ours = devices == 1;
    for (std::int64_t d = 0; d < devices; ++d) {
      const auto type = lines.integer("a device type (0 CPU, 1 CUDA, 2 OpenCL, 3 MIC, ...)", 0, 16);
      lines.integer("a device id", 0, 1 << 20);
      lines.integer("a number of cores", 0, 1 << 20);
      ours = ours && type == static_cast<std::int64_t>(device);
    }
    const auto implementations = lines.integer("the number of implementations", 0, 64);
    for (std::int64_t impl = 0; impl < implementations; ++impl) {
      const auto entries = lines.integer("the number of entries", 0, 1 << 24);
      lines.numbers("the regression line \"sumlnx sumlnx2 sumlny sumlnxlny alpha beta n minx maxx\"", 9);
      lines.numbers("the non-linear regression \"a b c\"", 3);
      const auto multiple = lines.integer("the multiple-regression flag", 0, 1);
      if (multiple != 0) throw ConfigError(lines.where(), "", "multiple-regression models are not supported (ftsim reads history tables)");
      std::vector<PerfmodelEntry> table;
      for (std::int64_t e = 0; e < entries; ++e) table.push_back(read_entry(lines));
      if (ours && !matched && impl == 0) found = std::move(table);
    }
    matched = matched || ours;
  }
  if (!matched) {
    static const char* const kNames[] = {"CPU", "CUDA", "OpenCL"};
    throw ConfigError(path, "", std::string("no combination of a single ") + kNames[static_cast<int>(device)] + " device");
  }
  if (found.empty()) throw ConfigError(path, "", "the history table of the chosen device is empty");
  return found;
}

}  // namespace ftsim::config
