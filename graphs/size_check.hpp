#pragma once
// Refuses, before anything is built, a config that this machine cannot build or simulate: a task
// graph beyond its 32-bit ids, data sizes beyond 64 bits, a graph and platform larger than the
// physical memory, or a task whose cost-model duration exceeds the simulated-time horizon
// (config::kMaxSeconds). Each error names the parameter responsible and gives the estimate.
#include "graphs/graph_estimate.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

// The estimate of a built-in application's graph (not of a json one: it is in a file).
GraphEstimate estimate_application(const config::Config& config);

// The peak resident memory a run of the config needs: the process, the graph and the runtime's
// state per task and dependency, the platform (the constants of size_check.cpp, measured). Graph
// files: from their size on disk.
double estimated_memory_bytes(const config::Config& config);

// Throws ConfigError; build_application() calls it first, ftsim validate too.
void check_application_size(const config::Config& config);

// Bytes of physical memory of this machine.
double physical_memory_bytes();

}  // namespace ftsim::graphs
