#pragma once
// The time a sweep has left, weighing each point by its expected cost: one buddy point may take
// 123 s where the others take 5 s, and counting points alone was then 3x off. A point's cost is
// its work (its task graph's estimated tasks and transfers, from the config alone) times the
// wall seconds per unit of work of its group (its protocol), learnt from the group's finished
// points; a group with none finished yet takes the rate of all the finished points.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ftsim::sweep {

class EtaEstimator {
public:
  // A point to run: its index (any unique number), its work (> 0) and its group.
  void add(std::size_t point, double work, const std::string& group);
  // A point finished after `wall_seconds`.
  void finished(std::size_t point, double wall_seconds);
  // Seconds left with `jobs` points at once: the expected cost of the points not finished, shared
  // by the jobs but never less than the dearest of them; nullopt until a point finished.
  std::optional<double> seconds_left(std::size_t jobs) const;

private:
  struct Point {
    double work = 1;
    std::string group;
    bool done = false;
  };
  struct Rate {
    double work = 0, seconds = 0;
  };
  std::map<std::size_t, Point> points_;
  std::map<std::string, Rate> rates_;  // per group, of the finished points
  Rate all_;
};

class SweepPlan;
// The estimator of these points of `plan` (indices): each point's work from its config alone
// (graphs/graph_estimate.hpp; 1 for a graph file), its group its /protocol/type.
EtaEstimator estimate_points(const SweepPlan& plan, const std::vector<std::size_t>& points);

}  // namespace ftsim::sweep
