#include "sim/sweep/sweep_eta.hpp"

#include <algorithm>

#include "graphs/size_check.hpp"
#include "sim/config/config.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace ftsim::sweep {

void EtaEstimator::add(std::size_t point, double work, const std::string& group) {
  points_[point] = Point{std::max(work, 1.0), group, false};
}

void EtaEstimator::finished(std::size_t point, double wall_seconds) {
  const auto found = points_.find(point);
  if (found == points_.end() || found->second.done) return;
  found->second.done = true;
  Rate& rate = rates_[found->second.group];
  rate.work += found->second.work;
  rate.seconds += wall_seconds;
  all_.work += found->second.work;
  all_.seconds += wall_seconds;
}

std::optional<double> EtaEstimator::seconds_left(std::size_t jobs) const {
  if (all_.work == 0) return std::nullopt;
  double total = 0, dearest = 0;
  for (const auto& [index, point] : points_) {
    if (point.done) continue;
    const auto group = rates_.find(point.group);
    const Rate& rate = group != rates_.end() ? group->second : all_;
    const double cost = point.work * rate.seconds / rate.work;
    total += cost;
    dearest = std::max(dearest, cost);
  }
  return std::max(total / double(std::max<std::size_t>(jobs, 1)), dearest);
}

EtaEstimator estimate_points(const SweepPlan& plan, const std::vector<std::size_t>& points) {
  EtaEstimator eta;
  for (const std::size_t index : points) {
    const Point& point = plan.points()[index];
    // Every point loaded when the plan was made: this cannot fail.
    const config::Config config = config::load_config_json(plan.point_config(point), plan.file());
    const graphs::GraphEstimate graph = graphs::estimate_application(config);
    eta.add(index, graph.tasks + graph.transfers, config.protocol.type);
  }
  return eta;
}

}  // namespace ftsim::sweep
