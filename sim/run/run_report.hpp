#pragma once
// What `ftsim run` reports, whatever the backend: results.json (one schema, docs/results.md) and
// the summary table.
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/node/run_metrics.hpp"

namespace ftsim::cli {

nlohmann::json results_json(const config::Config& cfg, const graphs::TaskGraph& graph, const core::RunMetrics& metrics,
                            const std::optional<core::RunMetrics>& reference, const std::string& backend);
void write_results(const std::filesystem::path& dir, const nlohmann::json& results);
// `platform_line` says what ran it (the network model, or the MPI ranks); `measured`: the
// reference is a measured run, not a simulation.
void print_summary(const config::Config& cfg, const graphs::TaskGraph& graph, const core::RunMetrics& m,
                   const std::optional<core::RunMetrics>& reference, double wall, const std::string& platform_line,
                   bool measured, std::ostream& out);

}  // namespace ftsim::cli
