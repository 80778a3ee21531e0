#include "sim/world/failure_schedule.hpp"

#include <cmath>

#include "sim/config/random_stream.hpp"

namespace ftsim::core {

using config::splitmix64;

FailureSchedule::FailureSchedule(const config::FailureConfig& config, graphs::NodeId nodes, std::uint64_t seed,
                                 std::uint32_t ranks_per_machine)
    : config_(config), ranks_per_machine_(ranks_per_machine) {
  const graphs::NodeId machines = nodes / ranks_per_machine;
  for (graphs::NodeId n = 0; n < machines; ++n) {
    std::uint64_t s = seed * 0x2545f4914f6cdd1dULL + n + 1;
    splitmix64(s);
    state_.push_back(s);
  }
  if (config_.model == config::FailureModel::exponential || config_.model == config::FailureModel::weibull) {
    for (graphs::NodeId n = 0; n < machines; ++n) first_.push_back(draw(n));
  }
}

double FailureSchedule::draw(graphs::NodeId node) {
  // Uniform in (0, 1] from the top 53 bits, then inverse transform sampling.
  const double u = (double(splitmix64(state_[node]) >> 11) + 1.0) * 0x1.0p-53;
  const double e = -std::log(u);  // standard exponential
  if (config_.model == config::FailureModel::weibull) {
    const double k = config_.shape;
    const double scale = config_.mtbf / std::tgamma(1.0 + 1.0 / k);
    return scale * std::pow(e, 1.0 / k);
  }
  return config_.mtbf * e;
}

std::vector<config::FailureEvent> FailureSchedule::initial() const {
  if (config_.model == config::FailureModel::list || config_.model == config::FailureModel::trace ||
      config_.model == config::FailureModel::log) {
    return config_.events;
  }
  std::vector<config::FailureEvent> events;
  for (graphs::NodeId m = 0; m < first_.size(); ++m) events.push_back({first_[m], m * ranks_per_machine_});
  return events;
}

std::optional<double> FailureSchedule::next_after(graphs::NodeId node, double from) {
  if (config_.model != config::FailureModel::exponential && config_.model != config::FailureModel::weibull) {
    return std::nullopt;
  }
  if (node % ranks_per_machine_ != 0) return std::nullopt;  // its machine's first rank draws them
  return from + draw(node / ranks_per_machine_);
}

}  // namespace ftsim::core
