#include "sim/run/run_estimate.hpp"

namespace ftsim::cli {

namespace {

// Measured by `/usr/bin/python3 bench/run_cost.py` on the 2-core machine of the README's timings
// (failure-free runs under `none` of Cholesky and stencil graphs of 1,500 to 90,000 tasks).
// The process itself: start, config, platform (a run of 3 tasks).
constexpr double kBaseSeconds = 0;
// Events per second of the simulation, per network model (flows) and for NIC contention.
constexpr double kEventsPerSecondLv08 = 0;
constexpr double kEventsPerSecondCm02 = 0;
constexpr double kEventsPerSecondSmpi = 0;
constexpr double kEventsPerSecondIb = 0;
constexpr double kEventsPerSecondNic = 0;
// A failure-free run's events: a task completion each, a message delivery each transfer.
constexpr double kEventsPerTask = 0;
constexpr double kEventsPerTransfer = 0;
// Building the graph (and its cost model), per task.
constexpr double kBuildSecondsPerTask = 0;
// Peak resident memory: the process, then per task, per transfer and per node.
constexpr double kBaseBytes = 0;
constexpr double kBytesPerTask = 0;
constexpr double kBytesPerTransfer = 0;
constexpr double kBytesPerNode = 0;

double events_per_second(const config::NetworkConfig& network) {
  if (network.contention == config::Contention::nic) return kEventsPerSecondNic;
  switch (network.model) {
    case config::NetworkModel::lv08: return kEventsPerSecondLv08;
    case config::NetworkModel::cm02: return kEventsPerSecondCm02;
    case config::NetworkModel::smpi: return kEventsPerSecondSmpi;
    case config::NetworkModel::ib: return kEventsPerSecondIb;
  }
  return kEventsPerSecondLv08;
}

}  // namespace

RunEstimate estimate_run(const config::Config& cfg, const GraphSize& size) {
  RunEstimate e;
  e.events = kEventsPerTask * size.tasks + kEventsPerTransfer * size.transfers;
  const bool failures = cfg.failures.model != config::FailureModel::none &&
                        !(cfg.failures.model == config::FailureModel::list && cfg.failures.events.empty());
  // /run/reference adds the failure-free run under `none`, and the protocol without its failures
  // when the run has failures under another protocol (sim/run/run_job.cpp).
  if (cfg.run.reference) e.simulations += 1 + (failures && cfg.protocol.type != "none" ? 1 : 0);
  e.wall_seconds = kBaseSeconds + kBuildSecondsPerTask * size.tasks + e.simulations * e.events / events_per_second(cfg.platform.network);
  e.peak_bytes = kBaseBytes + kBytesPerTask * size.tasks + kBytesPerTransfer * size.transfers + kBytesPerNode * cfg.platform.nodes;
  return e;
}

}  // namespace ftsim::cli
