#pragma once
// When nodes fail (fail-stop), from /failures: an explicit list, a trace file ("time node" per
// line), or per-node renewal processes with exponential or Weibull times between failures whose
// mean is the per-node MTBF. Seeded: the same seed gives the same failures, whatever the order
// in which nodes ask for their next failure.
#include <cstdint>
#include <optional>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/config/run_config.hpp"

namespace ftsim::core {

class FailureSchedule {
public:
  FailureSchedule(const config::FailureConfig& config, graphs::NodeId nodes, std::uint64_t seed);

  // Failures known at the start: the whole list, or the first failure of every node.
  std::vector<config::FailureEvent> initial() const;
  // The downtime of initial()[index]: its own (a failure log's repair time) or /failures/downtime.
  double initial_downtime(std::size_t index) const {
    const double own = index < config_.events.size() ? config_.events[index].downtime : -1;
    return own >= 0 ? own : config_.downtime;
  }
  // The next failure of a node whose new incarnation started at `from` (renewal models only).
  std::optional<double> next_after(graphs::NodeId node, double from);

private:
  double draw(graphs::NodeId node);

  config::FailureConfig config_;
  std::vector<std::uint64_t> state_;  // one random stream per node (splitmix64)
  std::vector<double> first_;
};

}  // namespace ftsim::core
