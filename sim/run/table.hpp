#pragma once
// A plain-text table with aligned columns, for the summaries the CLI prints.
#include <ostream>
#include <string>
#include <vector>

namespace ftsim::run {

class Table {
public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void add_row(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const;

private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// "1.186 GB" with a fixed number of decimals in decimal gigabytes, as the papers print them.
std::string gigabytes(double bytes, int decimals = 3);
std::string percent(double ratio, int decimals = 1);
// The signed relative gap "+0.3%" of value against reference.
std::string relative_gap(double value, double reference);

}  // namespace ftsim::run
