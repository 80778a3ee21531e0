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

namespace ftsim::run {

// `reference`: the failure-free run under `none` (/run/reference), the baseline of every overhead;
// `protocol_reference`: the config's own protocol without its failures (same seed, same checkpoint
// schedule), which splits the overhead into checkpointing and failures.
nlohmann::json results_json(const config::Config& cfg, const graphs::TaskGraph& graph, const node::RunMetrics& metrics,
                            const std::optional<node::RunMetrics>& reference, const std::string& backend,
                            const std::optional<node::RunMetrics>& protocol_reference = std::nullopt);
void write_results(const std::filesystem::path& dir, const nlohmann::json& results);
// A run into a directory that holds an earlier run's outputs: ftsim's own files that this run does
// not write (trace.json without --trace, events.log without --log) are removed, and said on
// `note`, so that the directory never mixes two runs. Other files are left alone.
void remove_stale_outputs(const std::filesystem::path& dir, bool writes_trace, bool writes_log, std::ostream& note);
// `platform_line` says what ran it (the network model, or the MPI ranks); `measured`: the
// reference is a measured run, not a simulation.
void print_summary(const config::Config& cfg, const graphs::TaskGraph& graph, const node::RunMetrics& m,
                   const std::optional<node::RunMetrics>& reference, double wall, const std::string& platform_line,
                   bool measured, std::ostream& out,
                   const std::optional<node::RunMetrics>& protocol_reference = std::nullopt);

// The overhead split of a run with failures, as fractions of the failure-free `none` makespan:
// checkpointing = (protocol without failures - none) / none; failures = (run - protocol without
// failures) / none; they add up to the total overhead (run - none) / none.
struct OverheadSplit {
  double total = 0, checkpointing = 0, failures = 0;
};
OverheadSplit overhead_split(double makespan, double none_makespan, double protocol_makespan);

}  // namespace ftsim::run
