#include "sim/run/run_estimate.hpp"

#include "graphs/size_check.hpp"

namespace ftsim::run {

namespace {

// Measured by `/usr/bin/python3 bench/run_cost.py` on the 2-core machine of the README's timings,
// 2026-11-27 (failure-free runs under `none` of Cholesky and stencil graphs of 1,500 to 280,000
// tasks on 16 nodes, rings of 16 to 4,096 nodes; CPU seconds, which a loaded machine hardly
// changes: two runs of the script differ by up to 30%, the NIC model's rate by 2x).
// The process itself: start, config, a small platform (a run of a few tasks).
constexpr double kBaseSeconds = 0.062;
// Events per second of the simulation, per network model (flows) and for NIC contention.
constexpr double kEventsPerSecondLv08 = 2.74e5;
constexpr double kEventsPerSecondCm02 = 3.28e5;
constexpr double kEventsPerSecondSmpi = 3.26e5;
constexpr double kEventsPerSecondIb = 2.74e5;
constexpr double kEventsPerSecondNic = 6.51e5;
// A failure-free run's events: a task completion each, a message delivery each transfer.
constexpr double kEventsPerTask = 1;
constexpr double kEventsPerTransfer = 1;
// Building the graph (and its cost model), per task; the platform and the runtime, per node.
constexpr double kBuildSecondsPerTask = 5.14e-7;
constexpr double kSecondsPerNode = 2.31e-4;

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
  e.wall_seconds = kBaseSeconds + kBuildSecondsPerTask * size.tasks + kSecondsPerNode * cfg.platform.nodes + e.simulations * e.events / events_per_second(cfg.platform.network);
  // The memory guard's estimate (graphs/size_check.cpp: measured per task and dependency, +12% on
  // a 15 M-task Cholesky and an 8 M-task stencil; 14.2 GB measured against 16.3 GB on 120 M tasks).
  e.peak_bytes = graphs::estimated_memory_bytes(cfg);
  return e;
}

}  // namespace ftsim::run
