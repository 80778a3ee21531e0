#pragma once
// What the failure campaigns share: one seeded run in a forked SimGrid simulation, the count of
// scenarios per case (FTSIM_CAMPAIGN_SCENARIOS), and the inputs-present check.
#include <cstdlib>
#include <string>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/simgrid/simulate.hpp"

namespace ftsim::campaign_support {

inline std::size_t scenarios_per_case() {
  const char* value = std::getenv("FTSIM_CAMPAIGN_SCENARIOS");
  return value ? std::strtoul(value, nullptr, 10) : 100;
}

inline core::RunMetrics run(const config::Json& document, const std::string& origin) {
  const config::Config cfg = protocols::load_config_json(document, origin);
  const graphs::TaskGraph graph = graphs::build_application(cfg);
  const graphs::CostModel cost(cfg, graph);
  core::SimulationOptions options;
  options.time_limit = simgrid_backend::default_time_limit(cfg, graph, cost);
  return simgrid_backend::simulate(cfg, graph, cost, options).metrics;
}

inline std::uint64_t inputs_missing(const core::RunMetrics& m) {
  std::uint64_t count = 0;
  for (const auto& n : m.nodes) count += n.inputs_missing_at_start;
  return count;
}

}  // namespace ftsim::campaign_support
