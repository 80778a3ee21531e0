// The rare-event estimator (docs/advise.md): the failures drawn given a first one before H follow
// the model's law restricted to that event, and the estimator built on them is unbiased.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/estimate/rare_event_estimate.hpp"
#include "sim/world/failure_schedule.hpp"

using namespace ftsim;

namespace {

config::FailureConfig model(config::FailureModel kind, double mtbf, double shape = 1, double first_before = 0) {
  config::FailureConfig c;
  c.model = kind;
  c.mtbf = mtbf;
  c.shape = shape;
  c.first_before = first_before;
  return c;
}

std::vector<double> first_failures(const config::FailureConfig& c, std::uint32_t machines, std::uint64_t seed) {
  world::FailureSchedule schedule(c, machines, seed);
  std::vector<double> times;
  for (const auto& e : schedule.initial()) times.push_back(e.time);
  return times;
}

// A cost of the first failures that a closed form gives: T0 plus, for each machine failing before
// T0, the time left until T0 (its expectation: machines x integral of (T0 - t) f(t) dt).
double toy_cost(const std::vector<double>& firsts, double t0) {
  double cost = t0;
  for (double x : firsts) cost += x < t0 ? t0 - x : 0;
  return cost;
}

}  // namespace

TEST_CASE("rare events: the condition's probability is P(min of the first failures < H)", "[estimate][failures]") {
  const double p_exp = world::FailureSchedule::condition_probability(
      model(config::FailureModel::exponential, 100.0, 1, 2.0), 8);
  CHECK(p_exp == Approx(1 - std::exp(-8 * 2.0 / 100.0)));
  // Weibull: scale = mtbf / Gamma(1 + 1/k).
  const double k = 0.7, scale = 100.0 / std::tgamma(1 + 1 / k);
  const double p_weibull = world::FailureSchedule::condition_probability(
      model(config::FailureModel::weibull, 100.0, k, 2.0), 8);
  CHECK(p_weibull == Approx(1 - std::exp(-8 * std::pow(2.0 / scale, k))));
  CHECK(world::FailureSchedule::condition_probability(model(config::FailureModel::weibull, 100.0, k), 8) == 1.0);
  // Unconditioned draws: the share of seeds with a first failure before H.
  int hits = 0;
  const int seeds = 20000;
  for (int s = 1; s <= seeds; ++s) {
    const auto firsts = first_failures(model(config::FailureModel::weibull, 100.0, k), 8, s);
    hits += *std::min_element(firsts.begin(), firsts.end()) < 2.0;
  }
  CHECK(double(hits) / seeds == Approx(p_weibull).margin(4 * std::sqrt(p_weibull * (1 - p_weibull) / seeds)));
}

TEST_CASE("rare events: conditioned draws have one first failure before H, the others after it", "[estimate][failures]") {
  for (const auto kind : {config::FailureModel::exponential, config::FailureModel::weibull}) {
    const auto c = model(kind, 1000.0, 0.6, 1.0);
    for (std::uint64_t s = 1; s <= 500; ++s) {
      const auto firsts = first_failures(c, 16, s);
      REQUIRE(firsts.size() == 16);
      const auto earliest = std::min_element(firsts.begin(), firsts.end());
      CHECK(*earliest < 1.0);
      CHECK(*earliest > 0.0);
      for (auto it = firsts.begin(); it != firsts.end(); ++it) {
        if (it != earliest) CHECK(*it > *earliest);
      }
    }
    // Reproducible per seed.
    CHECK(first_failures(c, 16, 7) == first_failures(c, 16, 7));
  }
}

TEST_CASE("rare events: the conditioned law is the model's restricted to the event (order statistics)", "[estimate][failures]") {
  // H chosen so that p is about 0.3: the unconditioned draws that fall in the event are many.
  const double k = 0.7, mtbf = 100.0, h = 4.0;
  const std::uint32_t machines = 8;
  double free_first = 0, free_second = 0, cond_first = 0, cond_second = 0;
  int in_event = 0;
  const int seeds = 40000;
  for (int s = 1; s <= seeds; ++s) {
    auto firsts = first_failures(model(config::FailureModel::weibull, mtbf, k), machines, s);
    std::sort(firsts.begin(), firsts.end());
    if (firsts[0] < h) {
      ++in_event;
      free_first += firsts[0];
      free_second += std::min(firsts[1], 50.0);  // bounded: its tail would dominate the noise
    }
  }
  const int conditioned = 20000;
  for (int s = 1; s <= conditioned; ++s) {
    auto firsts = first_failures(model(config::FailureModel::weibull, mtbf, k, h), machines, 1000000 + s);
    std::sort(firsts.begin(), firsts.end());
    cond_first += firsts[0];
    cond_second += std::min(firsts[1], 50.0);
  }
  REQUIRE(in_event > 5000);
  CHECK(cond_first / conditioned == Approx(free_first / in_event).epsilon(0.03));
  CHECK(cond_second / conditioned == Approx(free_second / in_event).epsilon(0.03));
}

TEST_CASE("rare events: the conditioned estimator is unbiased and narrower than brute force", "[estimate]") {
  // A rare event: p about 1.6%. Exact expectation of toy_cost under exponential(mtbf) first
  // failures: machines x (t0 - mtbf (1 - exp(-t0 / mtbf))).
  const double mtbf = 1000.0, t0 = 2.0;
  const std::uint32_t machines = 8;
  const double exact = t0 + machines * (t0 - mtbf * (1 - std::exp(-t0 / mtbf)));
  const auto conditioned_model = model(config::FailureModel::exponential, mtbf, 1, t0);
  const double p = world::FailureSchedule::condition_probability(conditioned_model, machines);
  const int n = 2000;
  std::vector<estimate::Sample> conditioned, brute;
  for (int s = 1; s <= n; ++s) {
    conditioned.push_back({toy_cost(first_failures(conditioned_model, machines, s), t0), true});
    brute.push_back({toy_cost(first_failures(model(config::FailureModel::exponential, mtbf), machines, s), t0), true});
  }
  const auto c = estimate::conditioned_estimate(t0, 0, p, conditioned);
  const auto b = estimate::brute_force_estimate(t0, 0, brute);
  CHECK(std::fabs(c.makespan.mean - exact) < 4 * c.makespan.std_error);
  CHECK(std::fabs(b.makespan.mean - exact) < 4 * b.makespan.std_error + 1e-12);
  CHECK(c.makespan.low < exact);
  CHECK(c.makespan.high > exact);
  CHECK(c.makespan.high - c.makespan.low > 0);
  CHECK((b.makespan.high - b.makespan.low) > 5 * (c.makespan.high - c.makespan.low));
}

TEST_CASE("rare events: the estimate's arithmetic", "[estimate]") {
  const std::vector<estimate::Sample> samples = {{12, true}, {14, true}, {16, true}, {30, false}};
  const auto e = estimate::conditioned_estimate(10, 8, 0.1, samples);
  CHECK(e.samples == 4);
  CHECK(e.complete == 3);
  CHECK(e.conditional_mean == Approx(14));
  CHECK(e.makespan.mean == Approx(0.9 * 10 + 0.1 * 14));
  // Standard error: p x s / sqrt(n), s = 2 over 3 samples; 90%: t(2) = 2.920.
  CHECK(e.makespan.std_error == Approx(0.1 * 2 / std::sqrt(3.0)));
  CHECK(e.makespan.high - e.makespan.mean == Approx(2.920 * 0.1 * 2 / std::sqrt(3.0)));
  CHECK(e.incomplete.mean == Approx(0.1 * 0.25));
  CHECK(e.overhead_checkpointing == Approx(10.0 / 8 - 1));
  CHECK(e.overhead.mean == Approx(e.makespan.mean / 8 - 1));
  CHECK(e.overhead_failures.mean == Approx((e.makespan.mean - 10) / 8));
  const auto b = estimate::brute_force_estimate(10, 8, samples);
  CHECK(b.probability == 1);
  CHECK(b.makespan.mean == Approx(14));
  CHECK_THROWS(estimate::conditioned_estimate(10, 8, 0, samples));
  CHECK_THROWS(estimate::conditioned_estimate(0, 8, 0.5, samples));
  CHECK(estimate::student_t95(1) == Approx(6.314));
  CHECK(estimate::student_t95(1000) == Approx(1.6464).margin(0.001));
  const estimate::MeanInterval a{1, 0, 2, 0.5}, same{1, 0, 2, 0.5}, higher{3, 2, 4, 0.5};
  CHECK(estimate::probability_lower(a, same) == Approx(0.5));
  CHECK(estimate::probability_lower(a, higher) > 0.99);
}

TEST_CASE("failures: a stationary node's first failure follows the renewal's equilibrium law", "[estimate][failures]") {
  // Equilibrium law of a renewal of mean mu: mean E[X^2] / (2 mu); for Weibull(scale, k),
  // E[X^2] = scale^2 Gamma(1 + 2/k). A new node's first failure has mean mu.
  const double mtbf = 100.0, k = 0.6, scale = mtbf / std::tgamma(1 + 1 / k);
  auto c = model(config::FailureModel::weibull, mtbf, k);
  c.stationary = true;
  double sum = 0, below = 0;
  const int seeds = 4000, machines = 10;
  for (int s = 1; s <= seeds; ++s) {
    for (double x : first_failures(c, machines, s)) {
      sum += x;
      below += x < 10.0;
    }
  }
  const double n = double(seeds) * machines;
  CHECK(sum / n == Approx(scale * scale * std::tgamma(1 + 2 / k) / (2 * mtbf)).epsilon(0.03));
  // P(X_e < 10) = integral of the survival from 0 to 10 over the mean (Simpson on a fine grid).
  double area = 0;
  const int steps = 10000;
  for (int i = 0; i < steps; ++i) {
    const double a = 10.0 * i / steps, b = 10.0 * (i + 1) / steps, m = 0.5 * (a + b);
    const auto survival = [&](double t) { return std::exp(-std::pow(t / scale, k)); };
    area += (b - a) / 6 * (survival(a) + 4 * survival(m) + survival(b));
  }
  CHECK(below / n == Approx(area / mtbf).epsilon(0.03));
  // Exponential: stationary is new (memoryless): the same draws.
  auto e = model(config::FailureModel::exponential, mtbf);
  auto es = e;
  es.stationary = true;
  CHECK(first_failures(e, 8, 3) == first_failures(es, 8, 3));
}
