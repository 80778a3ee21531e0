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
  // With several ranks per machine (ranks_per_machine k > 1) the renewal processes are per machine
  // (the MTBF is a machine's): machine m's failures name rank m*k, its first rank, and a failure
  // takes the machine that runs that rank. Explicit lists name ranks as given.
  FailureSchedule(const config::FailureConfig& config, graphs::NodeId nodes, std::uint64_t seed,
                  std::uint32_t ranks_per_machine = 1);

  // Failures known at the start: the whole list, or the first failure of every node.
  std::vector<config::FailureEvent> initial() const;
  // The downtime of initial()[index]: its own (a failure log's repair time) or /failures/downtime.
  double initial_downtime(std::size_t index) const {
    const double own = index < config_.events.size() ? config_.events[index].downtime : -1;
    return own >= 0 ? own : config_.downtime;
  }
  // The next failure of a node whose new incarnation started at `from` (renewal models only; with
  // several ranks per machine, only a machine's first rank has failures of its own).
  std::optional<double> next_after(graphs::NodeId node, double from);

private:
  double draw(graphs::NodeId node);

  config::FailureConfig config_;
  std::uint32_t ranks_per_machine_;
  std::vector<std::uint64_t> state_;  // one random stream per machine (splitmix64)
  std::vector<double> first_;
};

}  // namespace ftsim::core
