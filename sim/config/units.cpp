#include "units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace ftsim::config {

const char* const kSizeUnitsHelp = "a size in bytes: a number, or a string such as \"320KiB\", \"4MB\", \"1.5GiB\" (units B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)";
const char* const kDurationUnitsHelp = "a duration: a number of seconds, or a string such as \"1us\", \"20ms\", \"2h\" (units ns, us, ms, s, min, h, d)";
const char* const kBandwidthUnitsHelp = "a bandwidth: a number of bytes per second, or a string such as \"40Gbps\", \"10Gb/s\", \"5GB/s\", \"100MiB/s\"";

namespace {

using UnitTable = std::initializer_list<std::pair<std::string_view, double>>;

// Splits "12.5KiB" into 12.5 and "KiB"; spaces between number and unit are allowed.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || !std::isfinite(value)) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  return std::make_pair(value, unit);
}

std::optional<double> parse_with_units(std::string_view text, UnitTable units) {
  auto split = split_number(text);
  if (!split) return std::nullopt;
  for (const auto& [name, factor] : units) {
    if (split->second == name) return split->first * factor;
  }
  return std::nullopt;
}

}  // namespace

bool names_a_unit(std::string_view text) {
  const auto split = split_number(text);
  return split && !split->second.empty();
}

std::optional<double> parse_size_bytes(std::string_view text) {
  return parse_with_units(text, {{"", 1.0},
                                 {"B", 1.0},
                                 {"KB", 1e3},
                                 {"MB", 1e6},
                                 {"GB", 1e9},
                                 {"TB", 1e12},
                                 {"KiB", 1024.0},
                                 {"MiB", 1024.0 * 1024},
                                 {"GiB", 1024.0 * 1024 * 1024},
                                 {"TiB", 1024.0 * 1024 * 1024 * 1024}});
}

std::optional<double> parse_duration_seconds(std::string_view text) {
  return parse_with_units(text, {{"", 1.0},
                                 {"ns", 1e-9},
                                 {"us", 1e-6},
                                 {"µs", 1e-6},
                                 {"ms", 1e-3},
                                 {"s", 1.0},
                                 {"min", 60.0},
                                 {"h", 3600.0},
                                 {"d", 86400.0}});
}

std::optional<double> parse_bandwidth_bytes_per_second(std::string_view text) {
  return parse_with_units(text, {{"", 1.0},
                                 {"B/s", 1.0},
                                 {"KB/s", 1e3},
                                 {"MB/s", 1e6},
                                 {"GB/s", 1e9},
                                 {"TB/s", 1e12},
                                 {"KiB/s", 1024.0},
                                 {"MiB/s", 1024.0 * 1024},
                                 {"GiB/s", 1024.0 * 1024 * 1024},
                                 {"bps", 1.0 / 8},
                                 {"Kbps", 1e3 / 8},
                                 {"Mbps", 1e6 / 8},
                                 {"Gbps", 1e9 / 8},
                                 {"Tbps", 1e12 / 8},
                                 {"b/s", 1.0 / 8},
                                 {"Kb/s", 1e3 / 8},
                                 {"Mb/s", 1e6 / 8},
                                 {"Gb/s", 1e9 / 8},
                                 {"Tb/s", 1e12 / 8}});
}

std::string format_bytes(double bytes) {
  static constexpr std::array<const char*, 5> kUnits{"B", "KB", "MB", "GB", "TB"};
  std::size_t unit = 0;
  double value = bytes;
  while (std::fabs(value) >= 1000.0 && unit + 1 < kUnits.size()) {
    value /= 1000.0;
    ++unit;
  }
  char buffer[64];
  if (unit == 0) {
    std::snprintf(buffer, sizeof buffer, "%.0f B", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g %s", value, kUnits[unit]);
  }
  return buffer;
}

std::string format_number(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::string format_seconds(double seconds) {
  char buffer[64];
  if (seconds < 1e-3) {
    std::snprintf(buffer, sizeof buffer, "%.3g us", seconds * 1e6);
  } else if (seconds < 1.0) {
    std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
  } else if (seconds < 3600.0) {
    std::snprintf(buffer, sizeof buffer, "%.4g s", seconds);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g h", seconds / 3600.0);
  }
  return buffer;
}

}  // namespace ftsim::config
