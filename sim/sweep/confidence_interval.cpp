#include "sim/sweep/confidence_interval.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ftsim::sweep {

double student_t975(std::size_t df) {
  // Exact to 3 decimals up to 30 degrees of freedom (any statistics table); beyond, the
  // Cornish-Fisher expansion around the normal quantile, within 0.001 of the exact value.
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df >= 1 && df <= std::size(kTable)) return kTable[df - 1];
  const double z = 1.959964, d = double(df);
  return z + (z * z * z + z) / (4 * d) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

Interval interval95(const std::vector<double>& values, Scale& scale) {
  const bool in_domain = std::all_of(values.begin(), values.end(), [&](double v) {
    return scale == Scale::linear || (scale == Scale::log ? v > 0 : v > -1);
  });
  if (!in_domain) scale = Scale::linear;
  const auto forward = [&](double v) { return scale == Scale::log ? std::log(v) : scale == Scale::log1p ? std::log1p(v) : v; };
  const auto back = [&](double v) { return scale == Scale::log ? std::exp(v) : scale == Scale::log1p ? std::expm1(v) : v; };
  Interval result;
  result.n = values.size();
  double sum = 0;
  for (double v : values) sum += forward(v);
  const double mean = sum / double(values.size());
  result.mean = result.low = result.high = back(mean);
  if (values.size() < 2) return result;
  double squares = 0;
  for (double v : values) squares += (forward(v) - mean) * (forward(v) - mean);
  const double half = student_t975(values.size() - 1) * std::sqrt(squares / double(values.size() - 1) / double(values.size()));
  result.low = back(mean - half);
  result.high = back(mean + half);
  return result;
}

}  // namespace ftsim::sweep
