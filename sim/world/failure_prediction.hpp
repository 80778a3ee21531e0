#pragma once
// FailurePredictor: the failure predictor of /failures/prediction (Cores 2015 §2.5: proactive
// migration needs a predictor whose lead time exceeds the evacuation time; [35] reports < 10%
// false positives). It sees the failure schedule, as a real predictor sees the health logs of
// the machines, and nothing of the run.
//
// - True alarms: each timed failure is announced with probability `recall` (one seeded draw per
//   failure, in the order the world schedules them), `lead_time` before it, or as soon as the
//   failure is known if that is later (a renewal failure drawn less than lead_time ahead).
//   Failures at a task count have no time to announce: they are never announced.
// - False alarms, on a node drawn uniformly, so that the expected share of true alarms is
//   `precision`:
//   - lists, traces and logs (every failure known at the start): floor(T (1 - p) / p + u) false
//     alarms, T the announced failures and u uniform in [0, 1), at times uniform in [0, H], H the
//     latest timed failure (so the realised precision is p up to rounding);
//   - exponential and Weibull (failures drawn as the run goes): a Poisson process of rate
//     recall (1 - p) / p x nodes / mtbf, the rate of true alarms times (1 - p) / p.
// Three separate splitmix64 streams (recall draws, false-alarm count and times, their nodes),
// seeded from /seed: deterministic for a seed.
#include <cstdint>
#include <optional>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/config/run_config.hpp"

namespace ftsim::world {

class FailurePredictor {
public:
  struct FalseAlarm {
    double time = 0;
    graphs::NodeId node = 0;
  };

  FailurePredictor(const config::PredictionConfig& prediction, const config::FailureConfig& failures,
                   graphs::NodeId nodes, std::uint64_t seed);

  // A failure of `node` at `time` became known at `now`: the time of its alarm, if announced.
  std::optional<double> announce(double time, double now);
  // Lists, traces and logs: the false alarms, once every timed failure went through announce()
  // (`announced` of them announced, the latest at `horizon`). Empty for the renewal models.
  std::vector<FalseAlarm> false_alarms_of_known_failures(std::uint64_t announced, double horizon);
  // Renewal models: the next false alarm after `now` (none if their rate is 0).
  std::optional<FalseAlarm> next_false_alarm(double now);

  double lead_time() const { return prediction_.lead_time; }

private:
  double uniform(std::uint64_t& stream);  // in [0, 1)

  config::PredictionConfig prediction_;
  graphs::NodeId nodes_;
  double false_alarm_rate_ = 0;  // per second, over the whole platform (renewal models)
  std::uint64_t recall_stream_, false_stream_, node_stream_;
};

}  // namespace ftsim::world
