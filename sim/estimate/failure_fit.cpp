#include "sim/estimate/failure_fit.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace ftsim::estimate {

namespace {

constexpr double kZ95 = 1.6448536269514722;  // the normal's 0.95 quantile: two-sided 90%

// Digamma, by the recurrence up to 6 and the asymptotic series beyond.
double digamma(double x) {
  double result = 0;
  while (x < 6) {
    result -= 1 / x;
    x += 1;
  }
  const double f = 1 / (x * x);
  return result + std::log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

// The Weibull profile equation in k (data scaled by their mean, so that x^k stays finite):
// sum x^k ln x / sum x^k - 1/k - mean(ln x), increasing in k, zero at the MLE.
double profile(std::span<const double> x, double mean_log, double k) {
  double s = 0, sl = 0;
  for (double v : x) {
    const double p = std::pow(v, k);
    s += p;
    sl += p * std::log(v);
  }
  return sl / s - 1 / k - mean_log;
}

}  // namespace

double normal_quantile(double p) {
  // Acklam's rational approximation (relative error 1.15e-9), refined by one Newton step.
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: p outside (0, 1)");
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  return x - e * std::sqrt(2 * std::numbers::pi) * std::exp(x * x / 2);
}

double chi_square_quantile(double p, double df) {
  const double z = normal_quantile(p), h = 2 / (9 * df);
  const double t = 1 - h + z * std::sqrt(h);
  return df * t * t * t;
}

std::vector<double> gaps_between(std::vector<double> dates) {
  std::sort(dates.begin(), dates.end());
  std::vector<double> gaps;
  for (std::size_t i = 1; i < dates.size(); ++i) {
    if (dates[i] > dates[i - 1]) gaps.push_back(dates[i] - dates[i - 1]);
  }
  return gaps;
}

Fit fit_gaps(std::span<const double> gaps) {
  if (gaps.size() < 2) throw std::invalid_argument("fit_gaps: at least 2 times between failures are needed");
  for (double g : gaps) {
    if (!(g > 0) || !std::isfinite(g)) throw std::invalid_argument("fit_gaps: every time between failures must be > 0");
  }
  const double n = double(gaps.size());
  double sum = 0, sum_log = 0;
  for (double g : gaps) {
    sum += g;
    sum_log += std::log(g);
  }
  const double mean = sum / n;
  Fit fit;
  // Exponential: MTBF = the mean; 2 n mean / MTBF is chi-square with 2n degrees of freedom.
  fit.exponential.n = gaps.size();
  fit.exponential.mtbf = {mean, 2 * n * mean / chi_square_quantile(0.95, 2 * n), 2 * n * mean / chi_square_quantile(0.05, 2 * n)};
  fit.exponential.log_likelihood = -n * std::log(mean) - n;

  // Weibull: k solves the profile equation (bisection on log k, data over their mean), then
  // lambda = mean(x^k)^(1/k).
  std::vector<double> x(gaps.begin(), gaps.end());
  for (double& v : x) v /= mean;
  const double mean_log = sum_log / n - std::log(mean);
  double lo = std::log(0.02), hi = std::log(50.0);
  if (profile(x, mean_log, std::exp(lo)) > 0 || profile(x, mean_log, std::exp(hi)) < 0) {
    throw std::invalid_argument("fit_gaps: no Weibull shape in [0.02, 50] fits these times");
  }
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (profile(x, mean_log, std::exp(mid)) < 0 ? lo : hi) = mid;
  }
  const double k = std::exp(0.5 * (lo + hi));
  double sum_pow = 0;
  for (double v : x) sum_pow += std::pow(v, k);
  const double lambda = mean * std::pow(sum_pow / n, 1 / k);
  auto& w = fit.weibull;
  w.n = gaps.size();
  // Log-likelihood: n ln k - n k ln lambda + (k - 1) sum ln x - sum (x / lambda)^k, the last = n.
  w.log_likelihood = n * std::log(k) - n * k * std::log(lambda) + (k - 1) * sum_log - n;
  // The expected information per observation in (k, lambda): I_kk = ((1 - gamma)^2 + pi^2/6) / k^2,
  // I_ll = (k / lambda)^2, I_kl = -(1 - gamma) / lambda; its inverse over n is the covariance.
  const double g = 1 - std::numbers::egamma_v<double>;
  const double ikk = (g * g + std::numbers::pi * std::numbers::pi / 6) / (k * k), ill = (k / lambda) * (k / lambda),
               ikl = -g / lambda;
  const double det = n * n * (ikk * ill - ikl * ikl);
  const double var_k = n * ill / det, var_l = n * ikk / det, cov = -n * ikl / det;
  // Intervals on the log scale (k and lambda are positive).
  const auto log_interval = [](double value, double variance) {
    const double half = kZ95 * std::sqrt(variance) / value;
    return Interval90{value, value * std::exp(-half), value * std::exp(half)};
  };
  w.shape = log_interval(k, var_k);
  w.scale = log_interval(lambda, var_l);
  // MTBF = lambda Gamma(1 + 1/k): d/dlambda = Gamma(1 + 1/k), d/dk = -lambda Gamma(1 + 1/k) psi(1 + 1/k) / k^2.
  const double gamma = std::tgamma(1 + 1 / k), mtbf = lambda * gamma;
  const double dl = gamma, dk = -lambda * gamma * digamma(1 + 1 / k) / (k * k);
  w.mtbf = log_interval(mtbf, dl * dl * var_l + dk * dk * var_k + 2 * dl * dk * cov);
  fit.likelihood_ratio = 2 * (w.log_likelihood - fit.exponential.log_likelihood);
  fit.weibull_preferred = fit.likelihood_ratio > 6.635;
  return fit;
}

}  // namespace ftsim::estimate
