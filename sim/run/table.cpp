#include "sim/run/table.hpp"

#include <algorithm>
#include <cstdio>

namespace ftsim::run {

void Table::print(std::ostream& out) const {
  std::vector<std::size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);
  auto print_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < width.size(); ++i) {
      const std::string cell = i < row.size() ? row[i] : "";
      // First column left-aligned, numbers right-aligned.
      if (i == 0) {
        line += cell + std::string(width[i] - cell.size(), ' ');
      } else {
        line += "  " + std::string(width[i] - cell.size(), ' ') + cell;
      }
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << line << "\n";
  };
  print_row(header_);
  std::size_t total = 0;
  for (std::size_t w : width) total += w + 2;
  out << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
  for (const auto& row : rows_) print_row(row);
}

std::string gigabytes(double bytes, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f GB", decimals, bytes / 1e9);
  return buffer;
}

std::string percent(double ratio, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f%%", decimals, ratio * 100.0);
  return buffer;
}

std::string relative_gap(double value, double reference) {
  if (reference == 0) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%+.1f%%", (value / reference - 1.0) * 100.0);
  return buffer;
}

}  // namespace ftsim::run
