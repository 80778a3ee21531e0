// Young, Daly and the exact optimum of Daly's model against Daly 2006's examples (C = 5 min):
// 117 min for M = 24 h, 57 min for M = 6 h, 9.1 min for M = 15 min.
#include <catch2/catch.hpp>

#include "analysis/optimal_period.hpp"

using namespace ftsim::analysis;

TEST_CASE("optimal checkpoint periods: Daly 2006's examples", "[analysis][period]") {
  const double minute = 60, hour = 3600, c = 5 * minute;
  CHECK(young_period(c, 24 * hour) / minute == Approx(120.0).margin(0.01));
  CHECK(daly_period(c, 24 * hour) / minute == Approx(116.69).margin(0.01));
  CHECK(daly_period(c, 6 * hour) / minute == Approx(56.71).margin(0.01));
  CHECK(daly_period(c, 15 * minute) / minute == Approx(9.14).margin(0.01));
  CHECK(optimal_period(c, 24 * hour) / minute == Approx(116.69).margin(0.01));
  CHECK(optimal_period(c, 6 * hour) / minute == Approx(56.71).margin(0.01));
  CHECK(optimal_period(c, 15 * minute) / minute == Approx(9.17).margin(0.01));
  CHECK(daly_period(3 * hour, hour) == hour);  // C >= 2M: one MTBF
}

TEST_CASE("optimal checkpoint periods: the exact optimum minimizes Daly's wall time", "[analysis][period]") {
  const double c = 30, m = 3000, r = 10, work = 1e5;
  const double best = optimal_period(c, m);
  const double t = daly_wall_time(best, c, m, r, work);
  CHECK(daly_wall_time(best * 0.98, c, m, r, work) > t);
  CHECK(daly_wall_time(best * 1.02, c, m, r, work) > t);
  CHECK_THROWS(young_period(-1, m));
  CHECK_THROWS(optimal_period(c, 0));
}
