#pragma once
// The analytic checkpoint volumes of every placement of a config (`ftsim volumes --json` and
// Python's ftsim.volumes): one computation, one document.
#include <string>
#include <vector>

#include "analysis/volumes.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"

namespace ftsim::run {

struct PlacementVolumes {
  const config::CheckpointConfig* placement;
  analysis::CheckpointVolumes volumes;
};

// The volumes of each /checkpoints placement (ConfigError if the config has none).
std::vector<PlacementVolumes> placement_volumes(const config::Config& cfg, const graphs::TaskGraph& graph);

// {config, name, nodes, tasks, data_bytes, application_bytes_sent, placements: [...]}, bytes per
// node with their average, min, max and total.
config::Json volumes_document(const config::Config& cfg, const graphs::TaskGraph& graph,
                              const std::vector<PlacementVolumes>& placements);

}  // namespace ftsim::run
