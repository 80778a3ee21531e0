#include "sim/world/failure_prediction.hpp"

#include <algorithm>
#include <cmath>

#include "sim/config/random_stream.hpp"

namespace ftsim::world {

using config::splitmix64;

FailurePredictor::FailurePredictor(const config::PredictionConfig& prediction, const config::FailureConfig& failures,
                                   graphs::NodeId nodes, std::uint64_t seed)
    : prediction_(prediction), nodes_(nodes) {
  // Streams of their own: the failure schedule's draws are not disturbed by the predictor's. Each
  // starts at a well-mixed value of the seed (seed x the stream's increment would make the stream
  // of seed s + 1 that of seed s shifted by one draw).
  std::uint64_t mix = seed ^ 0x70726564696374ULL;  // "predict"
  recall_stream_ = splitmix64(mix);
  false_stream_ = splitmix64(mix);
  node_stream_ = splitmix64(mix);
  const bool renewal =
      failures.model == config::FailureModel::exponential || failures.model == config::FailureModel::weibull;
  if (renewal && failures.mtbf > 0) {
    const double true_rate = prediction_.recall * double(nodes) / failures.mtbf;
    false_alarm_rate_ = true_rate * (1.0 - prediction_.precision) / prediction_.precision;
  }
}

double FailurePredictor::uniform(std::uint64_t& stream) { return double(splitmix64(stream) >> 11) * 0x1.0p-53; }

std::optional<double> FailurePredictor::announce(double time, double now) {
  // One draw per failure, announced or not, so that the decisions do not depend on recall's
  // value for other failures (recall 0.9 announces a superset of what 0.5 announces).
  const double u = uniform(recall_stream_);
  if (!(u < prediction_.recall)) return std::nullopt;
  return std::max(now, time - prediction_.lead_time);
}

std::vector<FailurePredictor::FalseAlarm> FailurePredictor::false_alarms_of_known_failures(std::uint64_t announced,
                                                                                           double horizon) {
  std::vector<FalseAlarm> alarms;
  if (false_alarm_rate_ > 0 || announced == 0 || nodes_ == 0) return alarms;
  const double p = prediction_.precision;
  const double expected = double(announced) * (1.0 - p) / p;
  const auto count = static_cast<std::uint64_t>(std::floor(expected + uniform(false_stream_)));
  for (std::uint64_t i = 0; i < count; ++i) {
    FalseAlarm alarm;
    alarm.time = uniform(false_stream_) * std::max(horizon, 0.0);
    alarm.node = static_cast<graphs::NodeId>(splitmix64(node_stream_) % nodes_);
    alarms.push_back(alarm);
  }
  std::stable_sort(alarms.begin(), alarms.end(), [](const FalseAlarm& a, const FalseAlarm& b) { return a.time < b.time; });
  return alarms;
}

std::optional<FailurePredictor::FalseAlarm> FailurePredictor::next_false_alarm(double now) {
  if (!(false_alarm_rate_ > 0) || nodes_ == 0) return std::nullopt;
  const double u = (double(splitmix64(false_stream_) >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]
  FalseAlarm alarm;
  alarm.time = now - std::log(u) / false_alarm_rate_;
  alarm.node = static_cast<graphs::NodeId>(splitmix64(node_stream_) % nodes_);
  return alarm;
}

}  // namespace ftsim::world
