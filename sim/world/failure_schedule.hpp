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

namespace ftsim::world {

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

  // With /failures/first_before H (renewal models): the probability that some machine's first
  // failure comes before H, under the unconditioned model, 1 - exp(-machines (H / scale)^k). The
  // failures drawn are the model's conditioned on that event (docs/advise.md): the earliest first
  // failure from its law given < H, its machine uniform, every other machine's first failure from
  // its law given later than that. 1 without the condition.
  static double condition_probability(const config::FailureConfig& config, std::uint32_t machines);

  // The class of the next failure drawn for `node` (/failures/classes; "node" without it), from a
  // stream of its machine's own: adding classes leaves the failure times as they were.
  config::FailureClass draw_class(graphs::NodeId node);
  // The nodes a failure of `node` of class `kind` takes down: `node` first, then the others of its
  // group (/platform/group_size) or of the job, in order.
  std::vector<graphs::NodeId> victims(graphs::NodeId node, config::FailureClass kind) const;
  // /failures/burst: after a failure of a node of its group, when `other` fails of the raised
  // rate (factor - 1) / mtbf if that comes within the window (seconds from the failure), else
  // nothing. Exponential failures: that extra rate for the window is all a burst adds.
  std::optional<double> burst_delay(graphs::NodeId other);

private:
  double draw(graphs::NodeId node);
  double draw_stationary(graphs::NodeId node);  // /failures/age "stationary", Weibull
  // The Weibull scale (the exponential's: the MTBF) and shape of the time to a machine's failure.
  double scale() const;
  double shape() const { return config_.model == config::FailureModel::weibull ? config_.shape : 1.0; }
  void draw_conditioned_firsts(std::uint64_t seed, graphs::NodeId machines);

  config::FailureConfig config_;
  std::uint32_t ranks_per_machine_;
  std::vector<std::uint64_t> state_;  // one random stream per machine (splitmix64)
  // Streams of their own per machine for classes and bursts (empty when not configured).
  std::vector<std::uint64_t> class_state_, burst_state_;
  graphs::NodeId nodes_;
  std::vector<double> first_;
};

}  // namespace ftsim::world
