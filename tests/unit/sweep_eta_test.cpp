// The sweep's ETA weighs the points left by their expected cost (issue 39: one buddy point took
// 123 s where the others took 5 s, and counting points alone put the ETA 3x off), and the
// summary's intervals stay inside the quantity's range.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/sweep/confidence_interval.hpp"
#include "sim/sweep/sweep_eta.hpp"

using namespace ftsim::sweep;

TEST_CASE("sweep ETA: a dear protocol's points are foreseen once one of them finished", "[sweep][eta]") {
  // Six none points of 5 s, then three buddy points of 123 s, all of the same graph.
  EtaEstimator eta;
  for (std::size_t p = 0; p < 9; ++p) eta.add(p, 1000, p < 6 ? "none" : "buddy");
  CHECK_FALSE(eta.seconds_left(1).has_value());
  for (std::size_t p = 0; p < 6; ++p) eta.finished(p, 5);
  eta.finished(6, 123);
  // Left: two buddy points, 246 s. The pace of the points so far (153 s for 7) said 44 s.
  REQUIRE(eta.seconds_left(1).has_value());
  CHECK(*eta.seconds_left(1) == Approx(246));
  // Two at once: the two buddy points side by side.
  CHECK(*eta.seconds_left(2) == Approx(123));
}

TEST_CASE("sweep ETA: a point's cost scales with its graph; unseen groups take the rate of all", "[sweep][eta]") {
  EtaEstimator eta;
  eta.add(0, 100, "global");
  eta.add(1, 1000, "global");
  eta.add(2, 500, "cck");
  eta.finished(0, 2);  // 0.02 s per unit of work
  CHECK(*eta.seconds_left(1) == Approx(20 + 10));
  // With more jobs than points, the dearest point bounds the time left.
  CHECK(*eta.seconds_left(8) == Approx(20));
}

TEST_CASE("sweep summary: intervals respect the range of the quantity", "[sweep][interval]") {
  // Three seeds' overheads with a large spread: a plain t interval reaches far below -100%.
  const std::vector<double> overheads = {0.05, 0.10, 2.5};
  Scale linear = Scale::linear;
  CHECK(interval95(overheads, linear).low < -1);
  Scale log1p = Scale::log1p;
  const Interval i = interval95(overheads, log1p);
  CHECK(log1p == Scale::log1p);
  CHECK(i.low > -1);
  CHECK(i.low < i.mean);
  CHECK(i.mean < i.high);
  CHECK(i.n == 3);
  // A makespan's interval stays positive.
  Scale log = Scale::log;
  CHECK(interval95({0.1, 0.2, 3.0}, log).low > 0);
  // One value: no interval; a value outside the scale's domain: the values themselves.
  Scale one = Scale::log;
  const Interval single = interval95({2.0}, one);
  CHECK(single.low == single.mean);
  CHECK(single.high == single.mean);
  Scale outside = Scale::log1p;
  interval95({-1.5, 0.2}, outside);
  CHECK(outside == Scale::linear);
  CHECK(student_t975(2) == Approx(4.303));
  CHECK(student_t975(60) == Approx(2.000).margin(0.001));
}
