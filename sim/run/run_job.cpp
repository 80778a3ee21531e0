#include "sim/run/run_job.hpp"

#include <chrono>
#include <cstdlib>
#include <iostream>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "sim/run/run_report.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/stop_request.hpp"
#include "sim/world/event_log.hpp"
#include "sim/simgrid/network_model.hpp"
#include "sim/simgrid/simulate.hpp"

namespace ftsim::run {

RunJob run_job(const config::Config& cfg, const RunJobOptions& options) {
  RunJob job;
  world::SimulationOptions sim_options;
  sim_options.progress = options.progress;
  sim_options.trace_file = options.trace_file;
  sim_options.checkpoint_trace_file = options.checkpoint_trace_file;
  if (!options.log_file.empty()) {
    std::string unknown;
    if (!world::parse_log_categories(options.log_categories, sim_options.log_categories, unknown)) {
      throw config::ConfigError("--log", "", "unknown category \"" + unknown + "\" (task, message, failure, protocol, run, migration or all)");
    }
    sim_options.log_file = options.log_file;
  }
  simgrid_backend::SimulationResult result;
  const auto graph_start = std::chrono::steady_clock::now();
  try {
    job.graph = graphs::build_application(cfg);
  } catch (const Interrupted&) {
    job.graph = graphs::TaskGraph{};
  }
  const double graph_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - graph_start).count();
  if (stop_requested()) {
    // Stopped before the simulation started: an empty result that says so.
    result.metrics.failure_reason = "interrupted before the simulation started (while loading and building the graph)";
  } else {
    const graphs::CostModel cost(cfg, job.graph);
    if (!cost.has_speeds()) {
      throw config::ConfigError(cfg.file, "/platform", "a timed run needs kernel speeds: add \"core_gflops\"");
    }
    sim_options.time_limit = simgrid_backend::default_time_limit(cfg, job.graph, cost);
    result = simgrid_backend::simulate(cfg, job.graph, cost, sim_options);
  }

  double reference_wall = 0;
  // FTSIM_NO_FORK=1 (for debuggers) runs one simulation per process: SimGrid allows one engine.
  const char* no_fork = std::getenv("FTSIM_NO_FORK");
  const bool one_simulation = no_fork && std::string(no_fork) == "1";
  if (cfg.run.reference && one_simulation) {
    std::cerr << "ftsim: /run/reference skipped: FTSIM_NO_FORK=1 runs a single simulation per process\n";
  }
  if (cfg.run.reference && !stop_requested() && !one_simulation) {  // an interrupted run skips its reference
    const graphs::CostModel cost(cfg, job.graph);
    config::Config failure_free = cfg;
    failure_free.protocol = config::ProtocolConfig{};
    failure_free.failures = config::FailureConfig{};
    world::SimulationOptions reference_options;
    reference_options.progress = options.progress;
    const auto reference_result = simgrid_backend::simulate(failure_free, job.graph, cost, reference_options);
    job.reference = reference_result.metrics;
    reference_wall = reference_result.wall_seconds;
    // The protocol without failures (same seed, same checkpoint schedule): what checkpointing costs
    // alone. Without failures, or under `none`, it is a run already made.
    const bool failures = cfg.failures.model != config::FailureModel::none &&
                          !(cfg.failures.model == config::FailureModel::list && cfg.failures.events.empty());
    if (failures) {
      if (cfg.protocol.type == "none") {
        job.protocol_reference = reference_result.metrics;
      } else if (!stop_requested()) {
        config::Config protocol_only = cfg;
        protocol_only.failures = config::FailureConfig{};
        const auto protocol_result = simgrid_backend::simulate(protocol_only, job.graph, cost, reference_options);
        job.protocol_reference = protocol_result.metrics;
        reference_wall += protocol_result.wall_seconds;
      }
    } else {
      job.protocol_reference = result.metrics;  // the run itself is failure-free
    }
  }

  job.metrics = result.metrics;
  job.wall_seconds = result.wall_seconds;
  job.results = results_json(cfg, job.graph, job.metrics, job.reference, "simgrid", job.protocol_reference);
  const auto factors = simgrid_backend::network_model_factors(cfg.platform.network.model);
  job.results["network_model"] = {{"name", config::to_string(cfg.platform.network.model)},
                                  {"latency_factor", factors.latency},
                                  {"bandwidth_factor", factors.bandwidth},
                                  {"factors_by_message_size", factors.by_message_size},
                                  {"contention", config::to_string(cfg.platform.network.contention)},
                                  {"solver", cfg.platform.network.contention == config::Contention::flows
                                                 ? nlohmann::json(config::to_string(cfg.platform.network.solver))
                                                 : nlohmann::json(nullptr)}};
  job.results["wall"] = {
      {"simulation_seconds", result.wall_seconds},
      {"reference_seconds", reference_wall},
      {"events_per_second", result.wall_seconds > 0 ? double(result.metrics.events) / result.wall_seconds : 0.0},
      {"simulation_cpu_seconds", result.cpu_seconds},
      {"graph_seconds", graph_seconds},
      {"setup_seconds", result.setup_seconds}};
  job.results["mpi"] = nullptr;
  return job;
}

}  // namespace ftsim::run
