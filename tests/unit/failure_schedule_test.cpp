// Failure models: the renewal processes have the configured mean, Weibull has its shape, the
// draws are reproducible per seed and independent of the order nodes ask in.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/world/failure_schedule.hpp"

using namespace ftsim;

namespace {
config::FailureConfig model(config::FailureModel kind, double mtbf, double shape = 1) {
  config::FailureConfig c;
  c.model = kind;
  c.mtbf = mtbf;
  c.shape = shape;
  return c;
}

// Mean and coefficient of variation of `draws` times between failures of node 0.
std::pair<double, double> moments(world::FailureSchedule& schedule, double first, int draws) {
  double previous = first, sum = 0, squares = 0;
  for (int i = 0; i < draws; ++i) {
    const double next = *schedule.next_after(0, previous);
    const double gap = next - previous;
    sum += gap;
    squares += gap * gap;
    previous = next;
  }
  const double mean = sum / draws;
  return {mean, std::sqrt(squares / draws - mean * mean) / mean};
}
}  // namespace

TEST_CASE("failures: exponential times between failures have the MTBF as mean and CV 1", "[core][failures]") {
  world::FailureSchedule schedule(model(config::FailureModel::exponential, 100.0), 4, 42);
  const auto initial = schedule.initial();
  REQUIRE(initial.size() == 4);
  auto [mean, cv] = moments(schedule, initial[0].time, 200000);
  CHECK(mean == Approx(100.0).epsilon(0.01));
  CHECK(cv == Approx(1.0).epsilon(0.02));
}

TEST_CASE("failures: Weibull keeps the MTBF as mean and has the CV of its shape", "[core][failures]") {
  const double k = 0.7;
  world::FailureSchedule schedule(model(config::FailureModel::weibull, 100.0, k), 1, 7);
  auto [mean, cv] = moments(schedule, schedule.initial()[0].time, 200000);
  const double g1 = std::tgamma(1 + 1 / k), g2 = std::tgamma(1 + 2 / k);
  CHECK(mean == Approx(100.0).epsilon(0.02));
  CHECK(cv == Approx(std::sqrt(g2 / (g1 * g1) - 1)).epsilon(0.03));
}

TEST_CASE("failures: same seed, same failures, whatever the order nodes draw in", "[core][failures]") {
  world::FailureSchedule a(model(config::FailureModel::exponential, 10.0), 3, 5);
  world::FailureSchedule b(model(config::FailureModel::exponential, 10.0), 3, 5);
  world::FailureSchedule c(model(config::FailureModel::exponential, 10.0), 3, 6);
  CHECK(a.initial()[2].time == b.initial()[2].time);
  CHECK(a.initial()[2].time != c.initial()[2].time);
  const double a0 = *a.next_after(0, 1.0), a2 = *a.next_after(2, 1.0);
  const double b2 = *b.next_after(2, 1.0), b0 = *b.next_after(0, 1.0);
  CHECK(a0 == b0);
  CHECK(a2 == b2);
}

TEST_CASE("failures: a list is given as is and has no renewals", "[core][failures]") {
  config::FailureConfig c;
  c.model = config::FailureModel::list;
  c.events = {{1.5, 2}, {0.5, 1}};
  world::FailureSchedule schedule(c, 4, 1);
  REQUIRE(schedule.initial().size() == 2);
  CHECK(schedule.initial()[0].node == 2);
  CHECK_FALSE(schedule.next_after(2, 3.0).has_value());
}

TEST_CASE("failure schedule: with several ranks per machine the renewal processes are per machine", "[failures]") {
  // 8 ranks on 4 machines: 4 first failures, each naming a machine's first rank, with machine m's
  // stream the same as a 4-node schedule's node m (the MTBF is a machine's).
  const auto config = model(config::FailureModel::exponential, 10.0);
  world::FailureSchedule per_machine(config, 8, 5, 2);
  world::FailureSchedule per_node(config, 4, 5);
  const auto machines = per_machine.initial();
  const auto nodes = per_node.initial();
  REQUIRE(machines.size() == 4);
  for (std::size_t m = 0; m < 4; ++m) {
    CHECK(machines[m].node == 2 * m);
    CHECK(machines[m].time == nodes[m].time);
  }
  // Only a machine's first rank draws the next failure.
  CHECK_FALSE(per_machine.next_after(3, 1.0).has_value());
  CHECK(per_machine.next_after(2, 1.0) == per_node.next_after(1, 1.0));
}

TEST_CASE("failure schedule: classes are drawn in their shares and leave the failure times as they were",
          "[core][failures][classes]") {
  config::FailureConfig plain = model(config::FailureModel::exponential, 10.0);
  config::FailureConfig classed = plain;
  classed.class_shares = {0.7, 0.25, 0.05};
  classed.group_size = 4;
  world::FailureSchedule a(plain, 8, 11), b(classed, 8, 11);
  CHECK(a.initial()[3].time == b.initial()[3].time);
  std::size_t counts[3] = {0, 0, 0};
  double ta = 1, tb = 1;
  for (int i = 0; i < 40000; ++i) {
    ++counts[std::size_t(b.draw_class(3))];
    ta = *a.next_after(3, ta);
    tb = *b.next_after(3, tb);
  }
  CHECK(ta == tb);
  CHECK(counts[0] / 40000.0 == Approx(0.7).margin(0.01));
  CHECK(counts[1] / 40000.0 == Approx(0.25).margin(0.01));
  CHECK(counts[2] / 40000.0 == Approx(0.05).margin(0.005));
  CHECK(a.draw_class(3) == config::FailureClass::node);  // no classes: every failure a node's
}

TEST_CASE("failure schedule: what a group or job failure takes down", "[core][failures][classes]") {
  config::FailureConfig c = model(config::FailureModel::exponential, 10.0);
  c.group_size = 4;
  world::FailureSchedule s(c, 10, 1);
  using V = std::vector<graphs::NodeId>;
  CHECK(s.victims(5, config::FailureClass::node) == V{5});
  CHECK(s.victims(5, config::FailureClass::group) == V{5, 4, 6, 7});
  CHECK(s.victims(9, config::FailureClass::group) == V{9, 8});  // the last group is smaller
  CHECK(s.victims(2, config::FailureClass::job) == V{2, 0, 1, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("failure schedule: a burst fails a neighbour within the window at the raised rate",
          "[core][failures][classes]") {
  config::FailureConfig c = model(config::FailureModel::exponential, 100.0);
  c.group_size = 4;
  c.burst = config::FailureBurst{21, 2.0};  // extra rate 20 / 100 s for 2 s: P = 1 - e^-0.4
  world::FailureSchedule s(c, 4, 5);
  int struck = 0;
  double sum = 0;
  for (int i = 0; i < 40000; ++i) {
    if (auto delay = s.burst_delay(1)) {
      ++struck;
      sum += *delay;
      REQUIRE(*delay < 2.0);
    }
  }
  CHECK(struck / 40000.0 == Approx(1 - std::exp(-0.4)).margin(0.01));
  // The delay given it comes within the window: a truncated exponential of rate 0.2.
  const double rate = 0.2, w = 2.0;
  CHECK(sum / struck == Approx(1 / rate - w * std::exp(-rate * w) / (1 - std::exp(-rate * w))).margin(0.02));
}
