#pragma once
// A long job's expected makespan from simulations of a few of its periods (docs/advise.md#long-jobs):
// the job's failure-free makespan T0, the cost of one failure (the extra makespan it causes,
// measured by simulation at random times and nodes of a steady-state stretch of the job), and the
// failure process over the whole job:
//
//     E[M] = T0 + c E[F(E[M])],   E[F(t)] = nodes x m(t)
//
// with c the mean cost of a failure and m(t) the renewal function of one node's failures (each
// node new at time 0, replaced `downtime` after each failure; exponential: m(t) = t / (mtbf +
// downtime) once renewals start, Weibull: the renewal equation solved numerically). Solved by
// fixed-point iteration; its 90% interval carries the cost's sampling error (delta method).
//
// Exact when failures are independent, each costs the same in distribution wherever it strikes
// in the job (a periodic protocol on an iterative application), and failures do not strike during
// another's recovery; the estimate says where that last assumption is strained (nodes x c /
// (mtbf + downtime) beyond 5%: the share of time spent recovering).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ftsim::estimate {

struct RenewalLaw {
  double mtbf = 0;      // mean time to failure of a new node, seconds
  double shape = 1;     // Weibull k (1: exponential)
  double downtime = 0;  // from a failure until the replacement starts
  std::uint32_t nodes = 1;
  bool stationary = false;  // the job starts at a random time of the nodes' lives (/failures/age)
};

// The expected number of failures of one node in [0, t] (its renewal function).
double expected_node_failures(const RenewalLaw& law, double t);

struct LongJobEstimate {
  double failure_free_makespan = 0;  // T0
  double cost_mean = 0, cost_std_error = 0;  // of one failure, seconds
  std::size_t cost_samples = 0;
  double makespan = 0, low = 0, high = 0;  // E[M] and its 90% interval
  double expected_failures = 0;            // over the expected makespan
  double recovering_share = 0;             // nodes x c / (mtbf + downtime)
  bool converged = true;                   // false: failures come faster than they are repaired
  std::vector<std::string> flags;          // where the model's assumptions are strained
};

// Throws std::invalid_argument with fewer than 2 costs or T0 <= 0.
LongJobEstimate long_job_estimate(double failure_free_makespan, const RenewalLaw& law, std::span<const double> costs);

}  // namespace ftsim::estimate
