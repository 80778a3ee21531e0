// The long-job estimate (docs/advise.md#long-jobs): the renewal function of a node's failures
// against Monte Carlo, and the fixed point E[M] = T0 + c nodes m(E[M]) against its closed form.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "sim/estimate/long_job.hpp"

using namespace ftsim;

namespace {

// Failures of one node in [0, t]: new at 0, replaced `downtime` after each failure.
double monte_carlo_failures(const estimate::RenewalLaw& law, double t, int runs) {
  std::mt19937_64 random(12345);
  const double scale = law.mtbf / std::tgamma(1 + 1 / law.shape);
  std::weibull_distribution<double> life(law.shape, scale);
  long total = 0;
  for (int r = 0; r < runs; ++r) {
    double now = life(random);
    while (now <= t) {
      ++total;
      now += law.downtime + life(random);
    }
  }
  return double(total) / runs;
}

}  // namespace

TEST_CASE("long job: the renewal function of a node's failures", "[estimate][long-job]") {
  estimate::RenewalLaw exponential{100.0, 1.0, 0.0, 1};
  CHECK(estimate::expected_node_failures(exponential, 250.0) == Approx(2.5));
  CHECK(estimate::expected_node_failures(exponential, 0.0) == 0.0);
  for (const estimate::RenewalLaw law : {estimate::RenewalLaw{100.0, 1.0, 20.0, 1}, estimate::RenewalLaw{100.0, 0.7, 0.0, 1},
                                         estimate::RenewalLaw{100.0, 0.5, 5.0, 1}, estimate::RenewalLaw{100.0, 2.0, 0.0, 1}}) {
    for (const double t : {30.0, 300.0}) {
      const double exact = monte_carlo_failures(law, t, 400000);
      CHECK(estimate::expected_node_failures(law, t) == Approx(exact).epsilon(0.01));
    }
  }
}

TEST_CASE("long job: the expected makespan solves M = T0 + c nodes m(M)", "[estimate][long-job]") {
  // Exponential, no downtime: M = T0 / (1 - c nodes / mtbf).
  const estimate::RenewalLaw law{10.0, 1.0, 0.0, 4};
  const std::vector<double> costs = {0.1, 0.2, 0.3, 0.2};
  const auto e = estimate::long_job_estimate(5.0, law, costs);
  CHECK(e.cost_mean == Approx(0.2));
  CHECK(e.makespan == Approx(5.0 / (1 - 0.2 * 4 / 10.0)));
  CHECK(e.expected_failures == Approx(e.makespan * 4 / 10.0));
  CHECK(e.low < e.makespan);
  CHECK(e.high > e.makespan);
  CHECK(e.converged);
  CHECK(e.recovering_share == Approx(0.08));
  CHECK(e.flags.size() == 1);  // 8% of the time recovering: beyond 5%
  // Failures faster than recoveries: no finite expectation, said.
  const auto hopeless = estimate::long_job_estimate(5.0, law, std::vector<double>{3.0, 3.0, 3.0});
  CHECK_FALSE(hopeless.converged);
  CHECK_THROWS(estimate::long_job_estimate(5.0, law, std::vector<double>{1.0}));
}

TEST_CASE("long job: stationary nodes fail at the long-run rate from the start", "[estimate][long-job]") {
  // Equilibrium renewal without downtime: m(t) = t / mtbf exactly, whatever the shape.
  const estimate::RenewalLaw law{100.0, 0.6, 0.0, 1, true};
  CHECK(estimate::expected_node_failures(law, 30.0) == Approx(0.3).epsilon(0.01));
  CHECK(estimate::expected_node_failures(law, 300.0) == Approx(3.0).epsilon(0.01));
  // A new node of shape 0.6 fails more often early on.
  const estimate::RenewalLaw fresh{100.0, 0.6, 0.0, 1, false};
  CHECK(estimate::expected_node_failures(fresh, 30.0) > 0.4);
}
