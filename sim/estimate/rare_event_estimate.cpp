#include "sim/estimate/rare_event_estimate.hpp"

#include <cmath>
#include <iterator>
#include <stdexcept>
#include <vector>

namespace ftsim::estimate {

double student_t95(std::size_t df) {
  // Any statistics table to 3 decimals up to 30 degrees of freedom; beyond, the Cornish-Fisher
  // expansion around the normal quantile (within 0.001 of the exact value).
  static constexpr double kTable[] = {6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
                                      1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
                                      1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697};
  if (df == 0) throw std::invalid_argument("student_t95: no degree of freedom");
  if (df <= std::size(kTable)) return kTable[df - 1];
  const double z = 1.6448536, d = double(df);
  return z + (z * z * z + z) / (4 * d) + (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

double probability_lower(const MeanInterval& a, const MeanInterval& b) {
  const double spread = std::sqrt(a.std_error * a.std_error + b.std_error * b.std_error);
  if (spread <= 0) return a.mean < b.mean ? 1.0 : a.mean > b.mean ? 0.0 : 0.5;
  return 0.5 * std::erfc((a.mean - b.mean) / (spread * std::sqrt(2.0)));
}

namespace {

// The mean of `values` with its 90% t interval.
MeanInterval mean_interval(const std::vector<double>& values) {
  MeanInterval r;
  if (values.empty()) return r;
  double sum = 0;
  for (double v : values) sum += v;
  r.mean = r.low = r.high = sum / double(values.size());
  if (values.size() < 2) return r;
  double squares = 0;
  for (double v : values) squares += (v - r.mean) * (v - r.mean);
  r.std_error = std::sqrt(squares / double(values.size() - 1) / double(values.size()));
  const double half = student_t95(values.size() - 1) * r.std_error;
  r.low = r.mean - half;
  r.high = r.mean + half;
  return r;
}

// a x + b, interval and error included (a >= 0).
MeanInterval affine(const MeanInterval& x, double a, double b) {
  return {a * x.mean + b, a * x.low + b, a * x.high + b, a * x.std_error};
}

// Wilson's 90% interval of a proportion k / n (never empty of 0 and 1 where they are possible).
MeanInterval proportion(std::size_t k, std::size_t n) {
  MeanInterval r;
  if (n == 0) return r;
  const double z = 1.6448536, p = double(k) / double(n), nn = double(n);
  const double centre = (p + z * z / (2 * nn)) / (1 + z * z / nn);
  const double half = z * std::sqrt(p * (1 - p) / nn + z * z / (4 * nn * nn)) / (1 + z * z / nn);
  r.mean = p;
  r.low = std::max(0.0, centre - half);
  r.high = std::min(1.0, centre + half);
  r.std_error = std::sqrt(p * (1 - p) / nn);
  return r;
}

Estimate estimate(const std::string& method, double t0, double reference, double p, std::span<const Sample> samples) {
  if (!(t0 > 0)) throw std::invalid_argument("estimate: the failure-free makespan must be > 0");
  if (!(p > 0 && p <= 1)) throw std::invalid_argument("estimate: the stratum's probability must be in (0, 1]");
  if (samples.empty()) throw std::invalid_argument("estimate: no sample");
  Estimate e;
  e.method = method;
  e.failure_free_makespan = t0;
  e.reference_makespan = reference;
  e.probability = p;
  e.samples = samples.size();
  std::vector<double> makespans;
  for (const Sample& s : samples) {
    if (s.complete) makespans.push_back(s.makespan);
  }
  e.complete = makespans.size();
  const MeanInterval conditional = mean_interval(makespans);
  e.conditional_mean = conditional.mean;
  // E[M] = (1 - p) T0 + p E[M | S] (p = 1: the plain mean).
  e.makespan = makespans.empty() ? MeanInterval{t0, t0, t0, 0} : affine(conditional, p, (1 - p) * t0);
  e.incomplete = affine(proportion(samples.size() - makespans.size(), samples.size()), p, 0);
  if (reference > 0) {
    e.overhead_checkpointing = t0 / reference - 1;
    e.overhead = affine(e.makespan, 1 / reference, -1);
    e.overhead_failures = affine(e.makespan, 1 / reference, -t0 / reference);
  }
  return e;
}

}  // namespace

Estimate conditioned_estimate(double failure_free_makespan, double reference_makespan, double probability,
                              std::span<const Sample> samples) {
  return estimate("conditioned", failure_free_makespan, reference_makespan, probability, samples);
}

Estimate brute_force_estimate(double failure_free_makespan, double reference_makespan, std::span<const Sample> samples) {
  return estimate("brute", failure_free_makespan, reference_makespan, 1.0, samples);
}

}  // namespace ftsim::estimate
