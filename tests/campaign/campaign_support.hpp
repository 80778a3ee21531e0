#pragma once
// What the failure campaigns share: one seeded run in a forked SimGrid simulation, the count of
// scenarios per case (FTSIM_CAMPAIGN_SCENARIOS), and the inputs-present check.
#include <cstdlib>
#include <string>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/simgrid/simulate.hpp"
#include "tests/support/planted_faults.hpp"

namespace ftsim::campaign_support {

inline std::size_t scenarios_per_case() {
  const char* value = std::getenv("FTSIM_CAMPAIGN_SCENARIOS");
  return value ? std::strtoul(value, nullptr, 10) : 100;
}

// A campaign run takes well under a second: one that takes a minute of wall time is stuck (a
// stall the no-progress bounds missed, or a hang inside one event) and ends as a failed run that
// its scenario's checks report by name, not as a ctest timeout.
constexpr double kRunWallLimit = 60;

inline void bound_wall_time(config::Config& cfg, const config::Json& document) {
  if (!document.contains("run") || !document["run"].contains("wall_limit")) cfg.run.wall_limit = kRunWallLimit;
}

inline node::RunMetrics run(const config::Json& document, const std::string& origin) {
  config::Config cfg = protocols::load_config_json(document, origin);
  bound_wall_time(cfg, document);
  const graphs::TaskGraph graph = graphs::build_application(cfg);
  const graphs::CostModel cost(cfg, graph);
  world::SimulationOptions options;
  options.time_limit = simgrid_backend::default_time_limit(cfg, graph, cost);
  options.test_faults = &testing::planted_faults();  // the forked simulation works on its copy
  return simgrid_backend::simulate(cfg, graph, cost, options).metrics;
}

inline std::uint64_t inputs_missing(const node::RunMetrics& m) {
  std::uint64_t count = 0;
  for (const auto& n : m.nodes) count += n.inputs_missing_at_start;
  return count;
}

// A fault of the mutation build (protocols/mutants.hpp) that acts while this lives, in this
// process and the simulations it forks.
class PlantedFault {
public:
  explicit PlantedFault(const char* name) { ::setenv("FTSIM_MUTANT", name, 1); }
  ~PlantedFault() { ::unsetenv("FTSIM_MUTANT"); }
  PlantedFault(const PlantedFault&) = delete;
  PlantedFault& operator=(const PlantedFault&) = delete;
};

// The campaigns' small applications (a few hundred tasks each).
inline config::Json application(const std::string& name) {
  if (name == "cholesky") {
    return {{"type", "cholesky"}, {"tiles", 10}, {"tile_size", 128}, {"precision", "double"}};
  }
  if (name == "stencil") {
    return {{"type", "stencil"}, {"tiles", {4, 4}}, {"tile_size", 256}, {"iterations", 12}};
  }
  return {{"type", "cg"}, {"grid", 256}, {"blocks", 8}, {"iterations", 8}};
}

// The campaigns' platform: 4 nodes of 2 cores on a star, one storage server.
// FTSIM_CAMPAIGN_CONTENTION=nic runs it under the "nic" network contention model
// (docs/configs.md#contention); default: SimGrid's flows.
inline config::Json platform() {
  config::Json network = {{"topology", "star"}, {"bandwidth", "10Gbps"}, {"latency", "5us"}};
  if (const char* contention = std::getenv("FTSIM_CAMPAIGN_CONTENTION")) network["contention"] = contention;
  return {{"nodes", 4},
          {"cores_per_node", 2},
          {"core_gflops", {{"default", 2.0}}},
          {"network", network},
          {"storage", {{"hosts", 1}, {"bandwidth", "1GB/s"}}}};
}

}  // namespace ftsim::campaign_support
