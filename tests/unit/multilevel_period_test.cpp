// The first-order multi-level optimum (Benoit et al., IEEE TC 2017): one level is Young's period;
// two levels' whole count against a scan of every count; the subset of levels against every
// subset and count; and the model's overhead against an independent event simulation of the
// pattern under exponential failures of each level.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "analysis/multilevel_period.hpp"
#include "analysis/optimal_period.hpp"

using namespace ftsim::analysis;

TEST_CASE("multi-level checkpointing: one level is Young's period", "[analysis][multilevel]") {
  const double c = 60, mtbf = 86400, r = 30;
  const MultilevelPattern p = optimal_multilevel_pattern({{c, 1 / mtbf, r}});
  REQUIRE(p.levels == std::vector<std::uint32_t>{0});
  REQUIRE(p.counts == std::vector<std::uint64_t>{1});
  CHECK(p.work == Approx(young_period(c, mtbf)).epsilon(1e-12));
  CHECK(p.overhead == Approx(std::sqrt(2 * c / mtbf) + r / mtbf).epsilon(1e-12));
  CHECK(multilevel_bound({{c, 1 / mtbf, r}}) == Approx(p.overhead).epsilon(1e-12));
}

TEST_CASE("multi-level checkpointing: two levels, the best whole count of level-1 checkpoints",
          "[analysis][multilevel]") {
  // A fast local level covering most failures and a PFS level 100x slower (Moody et al.'s shape).
  for (const double share : {0.5, 0.85, 0.95, 0.99}) {
    const double rate = 1 / 3600.0;
    const std::vector<CheckpointLevel> levels{{2, share * rate, 1}, {200, (1 - share) * rate, 100}};
    const MultilevelPattern p = optimal_multilevel_pattern(levels);
    // The best over every count, each at its best W.
    double best = 1e300;
    std::uint64_t best_n = 0;
    for (std::uint64_t n = 1; n <= 2000; ++n) {
      const double cost = n * 2.0 + 200, loss = share * rate / n + (1 - share) * rate;
      const double h = std::sqrt(2 * cost * loss) + share * rate * 1 + (1 - share) * rate * 100;
      if (h < best) best = h, best_n = n;
    }
    INFO("share " << share);
    REQUIRE(p.levels == std::vector<std::uint32_t>{0, 1});
    CHECK(p.counts[0] == best_n);
    CHECK(p.overhead == Approx(best).epsilon(1e-12));
    // The continuous count √(λ1 C2 / (λ2 C1)) rounds to it or its neighbour.
    CHECK(std::abs(double(best_n) - std::sqrt(share * 200 / ((1 - share) * 2))) < 1);
    CHECK(p.overhead >= multilevel_bound(levels) * (1 - 1e-12));
    CHECK(p.overhead < multilevel_bound(levels) * 1.01);
    CHECK(multilevel_overhead(levels, p.levels, p.counts, p.work) == Approx(p.overhead).epsilon(1e-12));
    CHECK(multilevel_overhead(levels, p.levels, p.counts, p.work * 1.05) > p.overhead);
    CHECK(multilevel_overhead(levels, p.levels, p.counts, p.work * 0.95) > p.overhead);
  }
}

TEST_CASE("multi-level checkpointing: the subset of levels against every subset and count",
          "[analysis][multilevel]") {
  std::mt19937_64 random(7);
  std::uniform_real_distribution<double> log_uniform(0, 2);
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<CheckpointLevel> levels(3);
    for (auto& level : levels) {
      level.checkpoint = std::pow(10.0, log_uniform(random));
      level.failure_rate = std::pow(10.0, log_uniform(random) - 6);  // ratios up to 100
      level.recovery = std::pow(10.0, log_uniform(random) - 1);
    }
    const MultilevelPattern p = optimal_multilevel_pattern(levels);
    double best = 1e300;
    const std::vector<std::vector<std::uint32_t>> subsets{{2}, {0, 2}, {1, 2}, {0, 1, 2}};
    for (const auto& used : subsets) {
      for (std::uint64_t a = 1; a <= 150; ++a) {
        for (std::uint64_t b = 1; b <= (used.size() == 3 ? 150 : 1); ++b) {
          std::vector<std::uint64_t> counts;
          if (used.size() == 1) counts = {1};
          else if (used.size() == 2) counts = {a, 1};
          else counts = {a * b, b, 1};
          if (used.size() == 1 && a > 1) break;
          // The best W for these counts, from the overhead's two terms.
          const double w1 = multilevel_overhead(levels, used, counts, 1.0);
          const double w2 = multilevel_overhead(levels, used, counts, 2.0);
          const double w4 = multilevel_overhead(levels, used, counts, 4.0);
          // H(W) = cost/W + loss W/2 + rec: solve for cost and loss from three points.
          const double loss = 4 * ((w4 - w2) - (w2 - w1) / 2) / 3;
          const double cost = loss - 2 * (w2 - w1);
          const double rec = w1 - cost - loss / 2;
          best = std::min(best, std::sqrt(2 * cost * loss) + rec);
        }
      }
    }
    INFO("trial " << trial);
    CHECK(p.overhead == Approx(best).epsilon(1e-9));
  }
}

namespace {

// An event simulation of the pattern, independent of the model: work in segments of W / n_1, a
// checkpoint of every level whose position it is at each segment's end, exponential failures of
// each level during work, checkpoints and recoveries; a failure of level l goes back to the last
// completed checkpoint of level >= l (the start, at first), after its recovery time.
double simulated_overhead(const std::vector<CheckpointLevel>& levels, const std::vector<std::uint64_t>& counts,
                          double work_per_pattern, int patterns, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  double total_rate = 0;
  for (const auto& level : levels) total_rate += level.failure_rate;
  std::exponential_distribution<double> next_failure(total_rate);
  std::uniform_real_distribution<double> which(0, total_rate);
  const std::size_t k = levels.size();
  const std::uint64_t segments = counts[0] * std::uint64_t(patterns);
  const double segment = work_per_pattern / double(counts[0]);
  std::vector<std::uint64_t> saved(k, 0);  // segments done at each level's last checkpoint
  std::uint64_t done = 0;
  double time = 0, failure = next_failure(random);
  // Runs `length` seconds; false (at the failure) if one strikes first, with its level.
  std::size_t failed_level = 0;
  auto run = [&](double length) {
    if (time + length <= failure) {
      time += length;
      return true;
    }
    time = failure;
    failure = time + next_failure(random);
    double u = which(random);
    failed_level = 0;
    while (failed_level + 1 < k && u >= levels[failed_level].failure_rate) u -= levels[failed_level++].failure_rate;
    return false;
  };
  while (done < segments) {
    bool ok = run(segment);
    if (ok) {
      const std::uint64_t position = done + 1;
      for (std::size_t l = 0; l < k && ok; ++l) {
        if (position % (counts[0] / counts[l]) != 0) break;
        ok = run(levels[l].checkpoint);
        if (ok) saved[l] = position;
      }
      if (ok) done = position;
    }
    while (!ok) {
      // Back to the last checkpoint of the failed level or above; lower levels' copies are gone.
      std::uint64_t back = 0;
      for (std::size_t l = failed_level; l < k; ++l) back = std::max(back, saved[l]);
      for (std::size_t l = 0; l < failed_level; ++l) saved[l] = std::min(saved[l], back);
      done = back;
      ok = run(levels[failed_level].recovery);
    }
  }
  const double work = segment * double(segments);
  return (time - work) / work;
}

}  // namespace

TEST_CASE("multi-level checkpointing: the first-order overhead against an event simulation",
          "[analysis][multilevel]") {
  // λC small (1e-4 .. 1e-3): the first-order model should hold to a few percent.
  const std::vector<CheckpointLevel> levels{{1, 0.8 / 2e4, 2}, {30, 0.2 / 2e4, 60}};
  const MultilevelPattern p = optimal_multilevel_pattern(levels);
  REQUIRE(p.levels.size() == 2);
  const double simulated = simulated_overhead(levels, p.counts, p.work, 20000, 3);
  INFO("counts " << p.counts[0] << ", W " << p.work << ", model " << p.overhead << ", simulated " << simulated);
  CHECK(simulated == Approx(p.overhead).epsilon(0.05));
  // A count far from the best does worse, in the simulation too.
  const std::vector<std::uint64_t> one{1, 1};
  const double work_one = std::sqrt(2 * (1 + 30) / (0.8 / 2e4 + 0.2 / 2e4));
  CHECK(simulated_overhead(levels, one, work_one, 20000, 4) > simulated * 1.2);
}

TEST_CASE("multi-level checkpointing: bad input", "[analysis][multilevel]") {
  CHECK_THROWS_WITH(optimal_multilevel_pattern({}), Catch::Contains("at least one level"));
  CHECK_THROWS_WITH(optimal_multilevel_pattern({{0, 1e-3, 0}}), Catch::Contains("level 1: the checkpoint time"));
  CHECK_THROWS_WITH(optimal_multilevel_pattern({{1, 0, 0}, {2, 0, 0}}), Catch::Contains("no level has failures"));
  CHECK_THROWS_WITH(multilevel_overhead({{1, 1e-3, 0}, {2, 1e-4, 0}}, {0, 1}, {3, 2}, 10.0),
                    Catch::Contains("the last 1"));
  CHECK_THROWS_WITH(multilevel_overhead({{1, 1e-3, 0}, {2, 1e-4, 0}, {3, 1e-5, 0}}, {0, 1, 2}, {3, 2, 1}, 10.0),
                    Catch::Contains("multiple of the next"));
  CHECK_THROWS_WITH(multilevel_overhead({{1, 1e-3, 0}, {2, 1e-4, 0}}, {0}, {1}, 10.0), Catch::Contains("last level"));
}
