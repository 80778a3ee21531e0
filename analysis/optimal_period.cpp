#include "analysis/optimal_period.hpp"

#include <cmath>
#include <stdexcept>

#include <boost/math/special_functions/lambert_w.hpp>

namespace ftsim::analysis {

namespace {

void check(double checkpoint, double mtbf) {
  if (!(checkpoint > 0) || !std::isfinite(checkpoint)) throw std::invalid_argument("checkpoint time must be positive");
  if (!(mtbf > 0) || !std::isfinite(mtbf)) throw std::invalid_argument("MTBF must be positive");
}

}  // namespace

double young_period(double checkpoint, double mtbf) {
  check(checkpoint, mtbf);
  return std::sqrt(2 * checkpoint * mtbf);
}

double daly_period(double checkpoint, double mtbf) {
  check(checkpoint, mtbf);
  if (checkpoint >= 2 * mtbf) return mtbf;
  const double x = checkpoint / (2 * mtbf);
  return std::sqrt(2 * checkpoint * mtbf) * (1 + std::sqrt(x) / 3 + x / 9) - checkpoint;
}

double optimal_period(double checkpoint, double mtbf) {
  check(checkpoint, mtbf);
  // dT/dτ = 0 gives e^{(τ+C)/M}·(τ/M − 1) = −1; with u = τ/M − 1: u·e^u = −e^{−C/M−1}.
  return mtbf * (1 + boost::math::lambert_w0(-std::exp(-checkpoint / mtbf - 1)));
}

double daly_wall_time(double period, double checkpoint, double mtbf, double restart, double work) {
  check(checkpoint, mtbf);
  if (!(period > 0)) throw std::invalid_argument("period must be positive");
  return mtbf * std::exp(restart / mtbf) * std::expm1((period + checkpoint) / mtbf) * work / period;
}

}  // namespace ftsim::analysis
