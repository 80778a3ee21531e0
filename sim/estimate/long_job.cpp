#include "sim/estimate/long_job.hpp"

#include <cmath>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "sim/estimate/rare_event_estimate.hpp"

namespace ftsim::estimate {

namespace {

// The Weibull (scale, shape) of a node's time to failure of mean `mtbf`.
double weibull_scale(const RenewalLaw& law) { return law.mtbf / std::tgamma(1 + 1 / law.shape); }

double cdf(const RenewalLaw& law, double t) {
  // Time between two failures of a node: its life (Weibull) after `downtime`; the first failure of
  // a new node at time 0 has no downtime before it (handled by the caller).
  if (t <= 0) return 0;
  return -std::expm1(-std::pow(t / weibull_scale(law), law.shape));
}

// The mean of `x` and its standard error (x has at least 2 values).
std::pair<double, double> mean_and_std_error(std::span<const double> x) {
  double sum = 0;
  for (double v : x) sum += v;
  const double mean = sum / double(x.size());
  double squares = 0;
  for (double v : x) squares += (v - mean) * (v - mean);
  return {mean, std::sqrt(squares / double(x.size() - 1) / double(x.size()))};
}

}  // namespace

double expected_node_failures(const RenewalLaw& law, double t) {
  if (t <= 0) return 0;
  if (law.shape == 1 && law.downtime == 0) return t / law.mtbf;
  // The first failure's law: the life's (a new node), or its equilibrium law (stationary):
  // F_e(t) = integral of the survival from 0 to t, over the mean (trapezoids on the grid below).
  const auto first_cdf_on = [&](int steps, double h) {
    std::vector<double> f(steps + 1, 0.0);
    if (!law.stationary || law.shape == 1) {
      for (int i = 0; i <= steps; ++i) f[i] = cdf(law, i * h);
      return f;
    }
    double area = 0;
    for (int i = 1; i <= steps; ++i) {
      area += 0.5 * h * ((1 - cdf(law, (i - 1) * h)) + (1 - cdf(law, i * h)));
      f[i] = area / law.mtbf;
    }
    return f;
  };
  // m(t) = F1(t) + integral over s of m_d(t - s) dF1(s): the first failure at s (life law F), then
  // renewals of period downtime + life. Solved on a grid: m_d(t) = G(t) + sum m_d(t - s) dG(s),
  // G(t) = F(t - downtime). 2000 steps: within 0.1% for the horizons of a job.
  constexpr int kSteps = 2000;
  const double h = t / kSteps;
  std::vector<double> g(kSteps + 1), m(kSteps + 1, 0.0);
  for (int i = 0; i <= kSteps; ++i) g[i] = cdf(law, i * h - law.downtime);
  for (int i = 1; i <= kSteps; ++i) {
    double sum = g[i];
    for (int j = 1; j <= i; ++j) sum += m[i - j] * (g[j] - g[j - 1]);
    m[i] = sum;
  }
  // The first failure has no downtime before it.
  const std::vector<double> first = first_cdf_on(kSteps, h);
  double total = first[kSteps];
  for (int j = 1; j <= kSteps; ++j) total += m[kSteps - j] * (first[j] - first[j - 1]);
  return total;
}

LongJobEstimate long_job_estimate(double failure_free_makespan, const RenewalLaw& law, std::span<const double> costs) {
  if (!(failure_free_makespan > 0)) throw std::invalid_argument("long_job_estimate: T0 must be > 0");
  if (costs.size() < 2) throw std::invalid_argument("long_job_estimate: at least 2 failure costs are needed");
  LongJobEstimate e;
  e.failure_free_makespan = failure_free_makespan;
  e.cost_samples = costs.size();
  std::tie(e.cost_mean, e.cost_std_error) = mean_and_std_error(costs);
  const double nodes = law.nodes;
  e.recovering_share = nodes * e.cost_mean / (law.mtbf + law.downtime);
  const auto failures = [&](double t) { return nodes * expected_node_failures(law, t); };
  // M = T0 + c F(M): iterate from T0 (monotone when c F' < 1).
  const auto solve = [&](double c, bool& converged) {
    double m = failure_free_makespan;
    converged = false;
    for (int i = 0; i < 200; ++i) {
      const double next = failure_free_makespan + c * failures(m);
      if (!std::isfinite(next) || next > 1e6 * failure_free_makespan) return next;
      if (std::fabs(next - m) <= 1e-9 * next) {
        converged = true;
        return next;
      }
      m = next;
    }
    return m;
  };
  bool converged = true;
  e.makespan = solve(std::max(0.0, e.cost_mean), converged);
  e.converged = converged;
  e.expected_failures = failures(e.makespan);
  // 90% interval: the cost's t interval carried through the solution (monotone in c).
  const double half = student_t95(costs.size() - 1) * e.cost_std_error;
  bool low_ok = true, high_ok = true;
  e.low = solve(std::max(0.0, e.cost_mean - half), low_ok);
  e.high = solve(std::max(0.0, e.cost_mean + half), high_ok);
  if (!converged || !high_ok) {
    e.flags.push_back("failures come faster than the job recovers from them: no finite expected makespan in this model");
  }
  if (e.recovering_share > 0.05) {
    e.flags.push_back(fmt::format("failures during another's recovery are not modelled: nodes x mean cost / (MTBF + downtime) "
                                  "= {:.1f}% (beyond 5%)",
                                  100 * e.recovering_share));
  }
  return e;
}

LongJobEstimate regenerative_estimate(double failure_free_makespan, const RenewalLaw& law, std::span<const PeriodFailure> samples) {
  if (!(failure_free_makespan > 0)) throw std::invalid_argument("regenerative_estimate: T0 must be > 0");
  if (samples.size() < 2) throw std::invalid_argument("regenerative_estimate: at least 2 failures are needed");
  if (law.shape != 1 || !(law.mtbf > 0)) throw std::invalid_argument("regenerative_estimate: exponential failures only");
  LongJobEstimate e;
  e.failure_free_makespan = failure_free_makespan;
  e.cost_samples = samples.size();
  const double rate = double(law.nodes) / law.mtbf;
  std::vector<double> costs, terms, restarts;
  std::size_t short_losses = 0;
  for (const PeriodFailure& f : samples) {
    costs.push_back(f.cost);
    restarts.push_back(f.cost - f.since_commit);
    // A restart shorter than nothing: the failure lost less than the time since the commit (not a
    // rollback to it); counted and flagged, its restart taken as 0.
    const double restart = f.cost - f.since_commit;
    if (restart < -1e-9 * std::max(1.0, f.period)) ++short_losses;
    const double restart_expected = std::expm1(rate * std::max(0.0, restart)) / rate;
    terms.push_back(std::exp(rate * (f.period - f.since_commit)) * (f.since_commit + restart_expected));
  }
  std::tie(e.cost_mean, e.cost_std_error) = mean_and_std_error(costs);
  std::tie(e.restart_mean, e.restart_std_error) = mean_and_std_error(restarts);
  // A failure uniform in the window falls in each period in proportion to its length, so the mean
  // of the terms is the job's sum over periods of P_j E_j[...] divided by the periods' total.
  const auto [term_mean, term_error] = mean_and_std_error(terms);
  const double factor = rate;
  e.makespan = failure_free_makespan * (1 + factor * term_mean);
  const double half = student_t95(samples.size() - 1) * term_error;
  e.low = failure_free_makespan * (1 + factor * std::max(0.0, term_mean - half));
  e.high = failure_free_makespan * (1 + factor * (term_mean + half));
  e.expected_failures = rate * e.makespan;
  e.recovering_share = double(law.nodes) * e.cost_mean / (law.mtbf + law.downtime);
  if (short_losses > 0) {
    e.flags.push_back(fmt::format("{} of {} failures cost less than the time since the last commit: the protocol does not roll "
                                  "back to it there, and the regenerative model does not hold",
                                  short_losses, samples.size()));
  }
  return e;
}

}  // namespace ftsim::estimate
