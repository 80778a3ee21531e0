#pragma once
// What a run of a config will cost on this machine, said before it runs (`ftsim validate`): its
// wall time and its peak memory, from the task graph's size (tasks, transfers, nodes) and rates
// measured on a 2-core machine per network model (the constants of run_estimate.cpp, with the
// command that measured them: bench/run_cost.py). Within a factor of 3 of the measured figures on
// small and medium failure-free runs (tests/python/test_run_estimate.py checks a factor of 5);
// protocols and failures add messages, checkpoints and re-executions that only the run knows.
#include <cstdint>

#include "sim/config/config.hpp"

namespace ftsim::run {

struct GraphSize {
  double tasks = 0, transfers = 0;
};

struct RunEstimate {
  double events = 0;        // of one failure-free simulation under `none`
  int simulations = 1;      // the run, and its failure-free references (/run/reference)
  double wall_seconds = 0;  // the graph's build and every simulation
  double peak_bytes = 0;    // the largest process's resident memory
};

RunEstimate estimate_run(const config::Config& cfg, const GraphSize& size);

}  // namespace ftsim::run
