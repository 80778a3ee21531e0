#include "sim/run/volumes_document.hpp"

#include "graphs/buddy_mapping.hpp"
#include "graphs/cut_selection.hpp"
#include "sim/config/config_error.hpp"

namespace ftsim::run {

namespace {

config::Json per_node_json(const analysis::PerNode& p) {
  return {{"per_node", p.bytes}, {"average", p.average()}, {"min", p.min()}, {"max", p.max()}, {"total", p.total()}};
}

}  // namespace

std::vector<PlacementVolumes> placement_volumes(const config::Config& cfg, const graphs::TaskGraph& graph) {
  if (cfg.checkpoints.empty()) {
    throw config::ConfigError(cfg.file, "/", "missing required key \"checkpoints\" (where to cut and which buddy)");
  }
  std::vector<PlacementVolumes> rows;
  for (const auto& placement : cfg.checkpoints) {
    const graphs::CutSelection cuts(placement, graph, cfg.file);
    const graphs::BuddyMapping buddies(placement.buddy, cfg.distribution, graph.node_count());
    rows.push_back({&placement, analysis::compute_volumes(graph, cuts, buddies)});
  }
  return rows;
}

config::Json volumes_document(const config::Config& cfg, const graphs::TaskGraph& graph,
                              const std::vector<PlacementVolumes>& placements) {
  config::Json rows = config::Json::array();
  for (const auto& [placement, v] : placements) {
    std::vector<std::uint32_t> iterations;
    for (auto cut : v.cuts) iterations.push_back(cut - 1);
    rows.push_back({{"placement", placement->pointer},
                    {"checkpoints", v.checkpoints},
                    {"buddy", to_string(placement->buddy.kind)},
                    {"cut_after_iteration", iterations},
                    {"blind", per_node_json(v.blind)},
                    {"differential", per_node_json(v.differential)},
                    {"cached", per_node_json(v.cached)},
                    {"cached_any", per_node_json(v.cached_any)},
                    {"peak_held", per_node_json(v.peak_held)},
                    {"saves", v.saves},
                    {"saves_spared_by_cache", v.cached_saves}});
  }
  return {{"config", cfg.file},
          {"name", cfg.name},
          {"nodes", graph.node_count()},
          {"tasks", graph.task_count()},
          {"data_bytes", graph.total_data_bytes()},
          {"application_bytes_sent", per_node_json(analysis::application_bytes_sent(graph))},
          {"placements", rows}};
}

}  // namespace ftsim::run
