#pragma once
// The expected makespan of a config under a renewal failure model, from simulated samples
// (docs/advise.md). Two estimators of one quantity:
//
//  - brute force: runs drawn from the model, the plain mean of their makespans;
//  - conditioned (stratified on the event S = "some node fails before the failure-free makespan
//    T0"): outside S the run is the failure-free run, of makespan T0 exactly, so
//        E[M] = (1 - p) T0 + p E[M | S],   p = P(S),
//    and only E[M | S] is sampled, with runs whose failures are drawn given S
//    (/failures/first_before T0). Unbiased like brute force, but its variance is p^2 Var(M | S) / n
//    instead of (p Var(M | S) + p (1 - p) (E[M | S] - T0)^2) / n: at a rare failure (p small) its
//    interval is narrower by about 1 / sqrt(p), and it is never empty of failures.
//
// Intervals are 90%, Student's t on the samples' standard error (the makespans of runs with
// failures are right-skewed: at a few dozen samples the t interval is approximate; docs say so).
// Runs that did not complete (an unrecoverable failure, a time limit) are counted apart: the
// makespan's mean is over the complete ones, and the probability of an incomplete run is given
// with its own interval.
#include <cstddef>
#include <span>
#include <string>

namespace ftsim::estimate {

struct Sample {
  double makespan = 0;
  bool complete = true;
};

// A mean with its 90% interval and standard error.
struct MeanInterval {
  double mean = 0, low = 0, high = 0, std_error = 0;
};

struct Estimate {
  std::string method;                // "conditioned" or "brute"
  double failure_free_makespan = 0;  // T0: the protocol without failures
  double reference_makespan = 0;     // none's failure-free makespan (the overheads' base); 0: unknown
  double probability = 1;            // p: the sampled stratum's probability (1 for brute force)
  std::size_t samples = 0, complete = 0;
  double conditional_mean = 0;       // the complete samples' mean makespan (E[M | S] when conditioned)
  MeanInterval makespan;             // E[M]
  MeanInterval incomplete;           // P(a run does not complete)
  // Overheads over reference_makespan (when known): checkpointing T0 / T_none - 1, failures
  // (E[M] - T0) / T_none, total E[M] / T_none - 1.
  double overhead_checkpointing = 0;
  MeanInterval overhead_failures, overhead;
};

// At least two complete samples are needed for an interval (with one, low = high = mean).
// Throws std::invalid_argument on p outside (0, 1], no samples, or a non-positive T0.
Estimate conditioned_estimate(double failure_free_makespan, double reference_makespan, double probability,
                              std::span<const Sample> samples);
Estimate brute_force_estimate(double failure_free_makespan, double reference_makespan, std::span<const Sample> samples);

// The 0.95 quantile of Student's t with df >= 1 degrees of freedom (the half-width of a 90% interval).
double student_t95(std::size_t df);

// The probability that the conditioned estimator's mean is below the other's, both normal with
// their standard errors (the chance that a ranking's winner really beats the second).
double probability_lower(const MeanInterval& a, const MeanInterval& b);

}  // namespace ftsim::estimate
