#pragma once
// Builds the task graph of a config's application: a built-in one (cholesky, stencil, cg, spmd)
// with the config's distribution, or a user's graph file (json).
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

TaskGraph build_application(const config::Config& config);

}  // namespace ftsim::graphs
