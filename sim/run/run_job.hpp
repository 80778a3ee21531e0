#pragma once
// One simulation of a loaded config on SimGrid, as `ftsim run` and Python's ftsim.run do it: the
// graph, the failure-free reference when the config asks for it, and results.json's document.
#include <string>

#include <nlohmann/json.hpp>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/node/run_metrics.hpp"

namespace ftsim::run {

struct RunJobOptions {
  std::string trace_file;  // write the Chrome trace there (empty: none)
  std::string log_file;    // write the event log there (empty: none)
  std::string checkpoint_trace_file;  // write the checkpoint trace there (empty: none)
  std::string log_categories = "all";
  bool progress = true;    // progress lines on stderr
};

struct RunJob {
  graphs::TaskGraph graph;
  node::RunMetrics metrics;
  std::optional<node::RunMetrics> reference;           // failure-free, protocol none
  std::optional<node::RunMetrics> protocol_reference;  // failure-free, the config's protocol (if it has failures)
  double wall_seconds = 0;
  nlohmann::json results;  // results.json (docs/results.md)
  bool succeeded() const { return metrics.complete && metrics.oracle_ok; }
};

// Runs the config. Bad input throws config::ConfigError (file, JSON pointer, message); a signal
// only stops the run, which then reports what it has.
RunJob run_job(const config::Config& cfg, const RunJobOptions& options);

}  // namespace ftsim::run
