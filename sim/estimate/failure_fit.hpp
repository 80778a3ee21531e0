#pragma once
// Failure models fitted to the failures of a real machine (docs/advise.md#failure-logs): the times
// between failures, of a whole system or of its nodes, fitted by maximum likelihood to an
// exponential law (its MTBF, with the exact chi-square interval) and to a Weibull law (shape and
// scale, with the asymptotic intervals of the expected Fisher information; the MTBF by the delta
// method), and which of the two the data prefer (the likelihood-ratio test: the exponential is the
// Weibull of shape 1).
#include <cstddef>
#include <span>
#include <vector>

namespace ftsim::estimate {

struct Interval90 {
  double value = 0, low = 0, high = 0;
};

struct ExponentialFit {
  std::size_t n = 0;
  Interval90 mtbf;  // seconds
  double log_likelihood = 0;
};

struct WeibullFit {
  std::size_t n = 0;
  Interval90 shape;  // k
  Interval90 scale;  // lambda, seconds
  Interval90 mtbf;   // lambda Gamma(1 + 1/k), seconds
  double log_likelihood = 0;
};

struct Fit {
  ExponentialFit exponential;
  WeibullFit weibull;
  double likelihood_ratio = 0;   // 2 (LL Weibull - LL exponential), chi-square(1) under the exponential
  bool weibull_preferred = false;  // the ratio is beyond chi-square(1)'s 0.99 quantile (6.63)
};

// Fits both laws to `gaps` (times between failures, seconds, every one > 0; at least 2). Throws
// std::invalid_argument otherwise.
Fit fit_gaps(std::span<const double> gaps);

// The gaps between consecutive dates of `dates` (sorted here), those of 0 dropped: failures logged
// at the same instant (a log's resolution is a minute) are one interruption of a system.
std::vector<double> gaps_between(std::vector<double> dates);

// Quantiles used by the fits (exposed for tests): the normal's, and chi-square's with `df`
// degrees of freedom (Wilson-Hilferty, within 0.5% for df >= 10 and 3% for df >= 2).
double normal_quantile(double p);
double chi_square_quantile(double p, double df);

}  // namespace ftsim::estimate
