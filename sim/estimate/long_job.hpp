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
  // The regenerative estimate only: the restart, a failure's cost beyond the progress it lost
  // (cost - time since the last commit; Daly's R), seconds.
  double restart_mean = 0, restart_std_error = 0;
  std::vector<std::string> flags;          // where the model's assumptions are strained
};

// Throws std::invalid_argument with fewer than 2 costs or T0 <= 0.
LongJobEstimate long_job_estimate(double failure_free_makespan, const RenewalLaw& law, std::span<const double> costs);

// One run of the short job with one failure, placed in its checkpoint period: the failure struck
// `since_commit` seconds after the last commit of a period of `period` seconds (commit to commit,
// failure-free) and added `cost` seconds to the makespan.
struct PeriodFailure {
  double cost = 0, since_commit = 0, period = 0;
};

// The estimate for a protocol that rolls every node back to its last commit (docs/advise.md#regenerative-estimate),
// under exponential failures of rate L = nodes / mtbf: the run starts each period afresh at its
// commit (a renewal point), a failure at s after it costs s of lost progress and a restart r = cost - s,
// and a failure can strike any attempt at the period, the restart included. Per period of length P:
//
//     E[T] = P (1 + L E[e^{L (P - s)} (s + (e^{L r} - 1) / L)]),   s uniform in [0, P]
//
// (the attempts that fail, geometric in number; Daly 2006's complete model when r is a constant R),
// summed over the job: E[M] = T0 (1 + L mean_i w_i), w_i the expectation's term of sample i.
// Unlike long_job_estimate it keeps the terms of order (L P)^2 that set the optimal period at high
// failure rates. Throws std::invalid_argument with fewer than 2 samples, T0 <= 0 or a non-exponential law.
LongJobEstimate regenerative_estimate(double failure_free_makespan, const RenewalLaw& law, std::span<const PeriodFailure> samples);

}  // namespace ftsim::estimate
