// The failure predictor of /failures/prediction (sim/world/failure_prediction.hpp): over many
// failures it announces a share `recall` of them exactly `lead_time` ahead, its false alarms make
// a share `precision` of the alarms true, and it is deterministic for a seed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/world/failure_prediction.hpp"

using namespace ftsim;

namespace {
config::PredictionConfig prediction(double lead, double recall, double precision) {
  config::PredictionConfig p;
  p.lead_time = lead;
  p.recall = recall;
  p.precision = precision;
  return p;
}

config::FailureConfig list_of(int count, double spacing) {
  config::FailureConfig f;
  f.model = config::FailureModel::list;
  for (int i = 0; i < count; ++i) f.events.push_back({spacing * (i + 1), static_cast<std::uint32_t>(i % 16)});
  return f;
}

struct Outcome {
  std::vector<double> alarm_times;  // true alarms, NaN when not announced
  std::vector<world::FailurePredictor::FalseAlarm> false_alarms;
  std::uint64_t announced = 0;
};

Outcome predict(const config::PredictionConfig& p, const config::FailureConfig& f, std::uint64_t seed) {
  world::FailurePredictor predictor(p, f, 16, seed);
  Outcome o;
  double horizon = 0;
  for (const auto& e : f.events) {
    auto at = predictor.announce(e.time, 0.0);
    o.alarm_times.push_back(at ? *at : std::nan(""));
    if (at) ++o.announced;
    horizon = std::max(horizon, e.time);
  }
  o.false_alarms = predictor.false_alarms_of_known_failures(o.announced, horizon);
  return o;
}
}  // namespace

TEST_CASE("prediction: recall, precision and lead time over 20000 listed failures", "[core][prediction]") {
  const auto failures = list_of(20000, 10.0);
  for (const double recall : {0.0, 0.3, 0.9, 1.0}) {
    for (const double precision : {0.25, 0.8, 1.0}) {
      const Outcome o = predict(prediction(30.0, recall, precision), failures, 7);
      const double n = double(failures.events.size());
      // Each failure announced with probability recall: within 4 standard deviations.
      const double sd = std::sqrt(n * recall * (1 - recall));
      CHECK(std::abs(double(o.announced) - recall * n) <= 4 * sd + 1e-9);
      // Exactly lead_time ahead, or at the start for the failures earlier than the lead time.
      for (std::size_t i = 0; i < o.alarm_times.size(); ++i) {
        if (!std::isnan(o.alarm_times[i])) CHECK(o.alarm_times[i] == Approx(std::max(0.0, failures.events[i].time - 30.0)));
      }
      // Known failures: floor(T (1-p)/p + u) false alarms, so the realised precision is p up to one alarm.
      const double expected_false = double(o.announced) * (1 - precision) / precision;
      CHECK(std::abs(double(o.false_alarms.size()) - expected_false) <= 1.0);
      if (o.announced > 0) {
        const double realised = double(o.announced) / double(o.announced + o.false_alarms.size());
        CHECK(realised == Approx(precision).epsilon(0.01));
      }
      // False alarms: in [0, the last failure], on every node, sorted by time.
      std::vector<int> per_node(16, 0);
      for (std::size_t i = 0; i < o.false_alarms.size(); ++i) {
        CHECK(o.false_alarms[i].time >= 0);
        CHECK(o.false_alarms[i].time <= failures.events.back().time);
        if (i > 0) CHECK(o.false_alarms[i - 1].time <= o.false_alarms[i].time);
        ++per_node.at(o.false_alarms[i].node);
      }
      if (o.false_alarms.size() > 3000) {
        for (int count : per_node) CHECK(count > 0);
      }
    }
  }
}

TEST_CASE("prediction: deterministic for a seed, different for another; recall nests", "[core][prediction]") {
  const auto failures = list_of(500, 1.0);
  const Outcome a = predict(prediction(0.5, 0.5, 0.5), failures, 3);
  const Outcome b = predict(prediction(0.5, 0.5, 0.5), failures, 3);
  const Outcome c = predict(prediction(0.5, 0.5, 0.5), failures, 4);
  REQUIRE(a.announced == b.announced);
  for (std::size_t i = 0; i < a.alarm_times.size(); ++i) {
    CHECK(std::isnan(a.alarm_times[i]) == std::isnan(b.alarm_times[i]));
  }
  REQUIRE(a.false_alarms.size() == b.false_alarms.size());
  for (std::size_t i = 0; i < a.false_alarms.size(); ++i) {
    CHECK(a.false_alarms[i].time == b.false_alarms[i].time);
    CHECK(a.false_alarms[i].node == b.false_alarms[i].node);
  }
  std::size_t differences = 0;
  for (std::size_t i = 0; i < a.alarm_times.size(); ++i) differences += std::isnan(a.alarm_times[i]) != std::isnan(c.alarm_times[i]);
  CHECK(differences > 50);
  // Nor is the next seed the same stream one draw later.
  std::size_t shifted = 0;
  for (std::size_t i = 0; i + 1 < a.alarm_times.size(); ++i) {
    shifted += std::isnan(a.alarm_times[i + 1]) != std::isnan(c.alarm_times[i]);
  }
  CHECK(shifted > 50);
  // One draw per failure: what recall 0.5 announces, recall 0.9 announces too.
  const Outcome high = predict(prediction(0.5, 0.9, 0.5), failures, 3);
  for (std::size_t i = 0; i < a.alarm_times.size(); ++i) {
    if (!std::isnan(a.alarm_times[i])) CHECK(!std::isnan(high.alarm_times[i]));
  }
}

TEST_CASE("prediction: an alarm is never before the failure became known", "[core][prediction]") {
  config::FailureConfig f;
  f.model = config::FailureModel::exponential;
  f.mtbf = 100;
  world::FailurePredictor predictor(prediction(50.0, 1.0, 1.0), f, 4, 1);
  // A renewal failure drawn at t = 200 for t = 220: announced at once, 20 s ahead only.
  CHECK(*predictor.announce(220.0, 200.0) == 200.0);
  CHECK(*predictor.announce(400.0, 200.0) == 350.0);
  // Precision 1: no false alarm.
  CHECK(!predictor.next_false_alarm(0.0));
}

TEST_CASE("prediction: renewal false alarms form a Poisson process of the right rate", "[core][prediction]") {
  config::FailureConfig f;
  f.model = config::FailureModel::exponential;
  f.mtbf = 1000;
  // 8 nodes, MTBF 1000 s: 0.008 failures/s; recall 0.5 -> 0.004 true alarms/s; precision 0.2 ->
  // 4 false alarms per true one: 0.016 false alarms/s.
  world::FailurePredictor predictor(prediction(10.0, 0.5, 0.2), f, 8, 11);
  double t = 0;
  const int count = 40000;
  std::vector<int> per_node(8, 0);
  for (int i = 0; i < count; ++i) {
    auto alarm = predictor.next_false_alarm(t);
    REQUIRE(alarm);
    REQUIRE(alarm->time > t);
    t = alarm->time;
    ++per_node.at(alarm->node);
  }
  CHECK(double(count) / t == Approx(0.016).epsilon(0.02));
  for (int n : per_node) CHECK(n == Approx(count / 8.0).epsilon(0.06));
}
