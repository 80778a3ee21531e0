#include "sim/world/failure_schedule.hpp"

#include <algorithm>
#include <cmath>

#include "sim/config/random_stream.hpp"

namespace ftsim::world {

using config::splitmix64;

FailureSchedule::FailureSchedule(const config::FailureConfig& config, graphs::NodeId nodes, std::uint64_t seed,
                                 std::uint32_t ranks_per_machine)
    : config_(config), ranks_per_machine_(ranks_per_machine), nodes_(nodes) {
  const graphs::NodeId machines = nodes / ranks_per_machine;
  for (graphs::NodeId n = 0; n < machines; ++n) {
    std::uint64_t s = seed * 0x2545f4914f6cdd1dULL + n + 1;
    splitmix64(s);
    state_.push_back(s);
  }
  const bool classes = config_.class_shares[0] < 1;
  for (graphs::NodeId n = 0; n < machines && (classes || config_.burst); ++n) {
    std::uint64_t s = seed * 0x9e3779b97f4a7c15ULL + 0x5851f42d4c957f2dULL * (n + 1);
    splitmix64(s);
    if (classes) class_state_.push_back(s);
    splitmix64(s);
    if (config_.burst) burst_state_.push_back(s);
  }
  if (config_.model == config::FailureModel::exponential || config_.model == config::FailureModel::weibull) {
    if (config_.first_before > 0 && machines > 0) {
      draw_conditioned_firsts(seed, machines);
    } else if (config_.stationary && config_.model == config::FailureModel::weibull) {
      for (graphs::NodeId n = 0; n < machines; ++n) first_.push_back(draw_stationary(n));
    } else {
      for (graphs::NodeId n = 0; n < machines; ++n) first_.push_back(draw(n));
    }
  }
}

namespace {

// Uniform in (0, 1] from the top 53 bits of the stream.
double uniform(std::uint64_t& state) { return (double(splitmix64(state) >> 11) + 1.0) * 0x1.0p-53; }

}  // namespace

double FailureSchedule::scale() const {
  const double k = shape();
  return k == 1.0 ? config_.mtbf : config_.mtbf / std::tgamma(1.0 + 1.0 / k);
}

double FailureSchedule::draw(graphs::NodeId node) {
  // Inverse transform sampling: scale x E^(1/k), E standard exponential.
  const double e = -std::log(uniform(state_[node]));
  if (config_.model == config::FailureModel::weibull) return scale() * std::pow(e, 1.0 / config_.shape);
  return config_.mtbf * e;
}

double FailureSchedule::draw_stationary(graphs::NodeId node) {
  // The equilibrium law of a renewal process (the time to the next failure seen from a random
  // instant): the interval covering that instant is length-biased, density x f(x) / mean, and the
  // instant uniform in it. For Weibull(scale, k), (L / scale)^k of the length-biased L is
  // Gamma(1 + 1/k, 1) (Marsaglia and Tsang's method, normals by Box-Muller).
  std::uint64_t& s = state_[node];
  const double a = 1.0 + 1.0 / config_.shape;
  const double d = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  double g = 0;
  for (;;) {
    const double z = std::sqrt(-2.0 * std::log(uniform(s))) * std::cos(2.0 * 3.141592653589793 * uniform(s));
    const double v = std::pow(1.0 + c * z, 3);
    if (v <= 0) continue;
    const double u = uniform(s);
    if (std::log(u) < 0.5 * z * z + d - d * v + d * std::log(v)) {
      g = d * v;
      break;
    }
  }
  const double length = scale() * std::pow(g, 1.0 / config_.shape);
  return uniform(s) * length;
}

double FailureSchedule::condition_probability(const config::FailureConfig& config, std::uint32_t machines) {
  if (config.first_before <= 0 || machines == 0) return 1.0;
  if (config.model != config::FailureModel::exponential && config.model != config::FailureModel::weibull) return 1.0;
  const double k = config.model == config::FailureModel::weibull ? config.shape : 1.0;
  const double scale = k == 1.0 ? config.mtbf : config.mtbf / std::tgamma(1.0 + 1.0 / k);
  // P(min of the machines' first failures < H) = 1 - exp(-machines (H / scale)^k), without the
  // cancellation of 1 - exp(x) at small x.
  return -std::expm1(-double(machines) * std::pow(config.first_before / scale, k));
}

void FailureSchedule::draw_conditioned_firsts(std::uint64_t seed, graphs::NodeId machines) {
  // The machines' first failures X_i are i.i.d. Weibull(scale, k) (exponential: k = 1). Their law
  // given min X_i < H: the minimum from its law given < H (min X_i is Weibull of scale
  // scale x machines^(-1/k)), which machine uniform, every other X_j from its law given X_j > min
  // (X_j^k = min^k + scale^k E). A stream of its own, so the machines' streams stay those of their
  // renewals.
  std::uint64_t own = seed * 0x9fb21c651e98df25ULL + 0x7f4a7c15ULL;
  splitmix64(own);
  const double k = shape(), lambda = scale();
  const double p = condition_probability(config_, machines);
  // Inverse of the truncated law: machines (t / scale)^k = -log(1 - u p).
  const double u = uniform(own);
  const double hazard = -std::log1p(-u * p) / double(machines);
  const double earliest = std::min(lambda * std::pow(hazard, 1.0 / k), config_.first_before);
  const auto first = static_cast<graphs::NodeId>(std::min<std::uint64_t>(
      machines - 1, static_cast<std::uint64_t>(uniform(own) * double(machines))));
  const double base = std::pow(earliest / lambda, k);
  for (graphs::NodeId n = 0; n < machines; ++n) {
    if (n == first) {
      first_.push_back(earliest);
      continue;
    }
    const double e = -std::log(uniform(state_[n]));
    first_.push_back(lambda * std::pow(base + e, 1.0 / k));
  }
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

config::FailureClass FailureSchedule::draw_class(graphs::NodeId node) {
  if (class_state_.empty()) return config::FailureClass::node;
  double u = uniform(class_state_[node / ranks_per_machine_]) * (1 - 1e-12);
  for (std::size_t k = 0; k + 1 < config::kFailureClasses; ++k) {
    if (u < config_.class_shares[k]) return config::FailureClass(k);
    u -= config_.class_shares[k];
  }
  // Rounding: the last class with a share.
  for (std::size_t k = config::kFailureClasses; k-- > 0;)
    if (config_.class_shares[k] > 0) return config::FailureClass(k);
  return config::FailureClass::node;
}

std::vector<graphs::NodeId> FailureSchedule::victims(graphs::NodeId node, config::FailureClass kind) const {
  std::vector<graphs::NodeId> out{node};
  graphs::NodeId first = node, end = node + 1;
  if (kind == config::FailureClass::job) {
    first = 0;
    end = nodes_;
  } else if (kind == config::FailureClass::group && config_.group_size > 0) {
    first = node - node % config_.group_size;
    end = std::min<graphs::NodeId>(first + config_.group_size, nodes_);
  }
  for (graphs::NodeId n = first; n < end; ++n)
    if (n != node) out.push_back(n);
  return out;
}

std::optional<double> FailureSchedule::burst_delay(graphs::NodeId other) {
  if (burst_state_.empty() || !(config_.burst->factor > 1)) return std::nullopt;
  const double rate = (config_.burst->factor - 1) / config_.mtbf;
  const double delay = -std::log(uniform(burst_state_[other / ranks_per_machine_])) / rate;
  if (delay >= config_.burst->window) return std::nullopt;
  return delay;
}

}  // namespace ftsim::world
