#pragma once
// Running a simulation of a config on SimGrid.
#include <string>

#include "graphs/cost_model.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/node/run_metrics.hpp"
#include "sim/world/simulation.hpp"

namespace ftsim::simgrid_backend {

struct SimulationResult {
  node::RunMetrics metrics;
  double wall_seconds = 0;
  double cpu_seconds = 0;  // CPU time of the simulating process over the same span (robust to a loaded machine)
  double setup_seconds = 0;  // the part of wall_seconds before the first event: index, hosts, ready queues
};

// Runs in this process. SimGrid allows one engine per process: call it once.
SimulationResult simulate_in_process(const config::Config& config, const graphs::TaskGraph& graph,
                                     const graphs::CostModel& cost, const world::SimulationOptions& options);

// Runs in a forked child process (SimGrid state never leaks between runs), so that one process
// may run any number of simulations. Bad input found while simulating is rethrown as ConfigError.
// SIGINT and SIGTERM only ask the process to stop (ftsim::request_stop): long work polls it and
// reports what it has. Every signal, the second one too.
void install_stop_handlers();

SimulationResult simulate(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
                          const world::SimulationOptions& options);

// A time limit when the config gives none: far beyond any plausible run.
double default_time_limit(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost);

}  // namespace ftsim::simgrid_backend
