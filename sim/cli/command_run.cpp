// ftsim run CONFIG [-o DIR] [--trace]: simulate the config on SimGrid; print a summary, write
// DIR/results.json (docs/results.md) and, with --trace, DIR/trace.json (Chrome trace format).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/table.hpp"
#include "sim/config/config.hpp"
#include "sim/config/stop_request.hpp"
#include "sim/core/event_log.hpp"
#include "sim/config/units.hpp"
#include "sim/core/run_metrics_json.hpp"
#include "sim/simgrid/network_model.hpp"
#include "sim/simgrid/simulate.hpp"

namespace ftsim::cli {

namespace {

struct RunOptions {
  std::string config;
  std::string output_dir;
  bool trace = false;
  std::string log;
};

void print_summary(const config::Config& cfg, const graphs::TaskGraph& graph, const core::RunMetrics& m,
                   const std::optional<core::RunMetrics>& reference, double wall, std::ostream& out) {
  out << fmt::format("{}: {} on {} nodes x {} cores, protocol {}, {} tasks\n", cfg.name, to_string(cfg.application.type),
                     graph.node_count(), cfg.platform.cores_per_node, cfg.protocol.type, graph.task_count());
  // The factors SimGrid applies to the configured network explain a makespan: say them.
  out << "network model " << simgrid_backend::describe_network_model(cfg.platform.network.model) << "\n";
  Table summary({"metric", "value"});
  summary.add_row({"result", m.complete ? (m.oracle_ok ? "complete, oracle ok" : "complete, ORACLE FAILED") : "FAILED: " + m.failure_reason});
  summary.add_row({"makespan", config::format_seconds(m.makespan)});
  if (reference) {
    summary.add_row({"failure-free makespan (none)", config::format_seconds(reference->makespan)});
    summary.add_row({"overhead", percent(m.makespan / reference->makespan - 1.0)});
  }
  if (cfg.reference && cfg.reference->makespan) {
    summary.add_row({"published makespan (" + cfg.reference->source + ")",
                     config::format_seconds(*cfg.reference->makespan) + " (ftsim " +
                         relative_gap(m.makespan, *cfg.reference->makespan) + ")"});
  }
  std::uint64_t executions = 0, reexecutions = 0;
  std::array<std::uint64_t, core::kTrafficKinds> bytes{};
  for (const auto& n : m.nodes) {
    executions += n.executions;
    reexecutions += n.reexecutions;
    for (std::size_t k = 0; k < core::kTrafficKinds; ++k) bytes[k] += n.bytes_sent[k];
  }
  summary.add_row({"task executions (re-executions)", fmt::format("{} ({})", executions, reexecutions)});
  for (std::size_t k = 0; k < core::kTrafficKinds; ++k) {
    if (bytes[k] == 0 && k != 0) continue;
    summary.add_row({std::string("bytes sent: ") + core::traffic_key(k),
                     config::format_bytes(double(bytes[k])) + fmt::format(" ({} per node)", config::format_bytes(double(bytes[k]) / graph.node_count()))});
  }
  std::size_t committed = 0;
  for (const auto& c : m.checkpoints) committed += c.committed >= 0;
  if (!m.checkpoints.empty()) summary.add_row({"checkpoints committed", fmt::format("{} of {}", committed, m.checkpoints.size())});
  summary.add_row({"failures", std::to_string(m.failures.size())});
  summary.add_row({"wall time", config::format_seconds(wall)});
  summary.print(out);
  if (!m.failures.empty()) {
    out << "\n";
    Table failures({"failure", "time", "node", "restart point", "recovery", "tasks redone", "work lost", "rolled back"});
    for (std::size_t i = 0; i < m.failures.size(); ++i) {
      const auto& f = m.failures[i];
      failures.add_row({std::to_string(i + 1), config::format_seconds(f.time), std::to_string(f.node), f.restart_point,
                        f.recovered_at < 0 ? "-" : config::format_seconds(f.recovered_at - f.time),
                        std::to_string(f.tasks_reexecuted), config::format_seconds(f.work_lost_seconds),
                        std::to_string(f.processes_rolled_back)});
    }
    failures.print(out);
  }
  for (const auto& line : m.stall_report) out << "stall: " << line << "\n";
  for (const auto& line : m.oracle_missing) out << "oracle: missing " << line << "\n";
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto* command = app.add_subcommand("run", "Simulate a config on SimGrid: makespan, bytes, failures, recovery");
  auto options = std::make_shared<RunOptions>();
  command->add_option("CONFIG", options->config, "JSON config file")->required();
  command->add_option("-o,--output", options->output_dir, "Output directory (default: out/<config name>/)");
  command->add_flag("--trace", options->trace, "Also write trace.json (Chrome Trace Event format, opens in Perfetto)");
  command->add_option("--log", options->log,
                      "Also write events.log: one line per event of these categories, comma-separated: task, message, "
                      "failure, protocol, run, or all");
  return [options] {
    // From the first instruction: a signal only asks to stop; what is done so far is reported.
    simgrid_backend::install_stop_handlers();
    const config::Config cfg = protocols::load_config(options->config);
    const std::filesystem::path dir = options->output_dir.empty() ? std::filesystem::path("out") / cfg.name
                                                                  : std::filesystem::path(options->output_dir);
    core::SimulationOptions sim_options;
    sim_options.progress = true;
    if (options->trace) sim_options.trace_file = (dir / "trace.json").string();
    if (!options->log.empty()) {
      std::string unknown;
      if (!core::parse_log_categories(options->log, sim_options.log_categories, unknown)) {
        std::cerr << "error: --log: unknown category \"" << unknown << "\" (task, message, failure, protocol, run or all)\n";
        return 2;
      }
      sim_options.log_file = (dir / "events.log").string();
    }
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw config::ConfigError(dir.string(), "", "cannot create the output directory: " + error.message());

    graphs::TaskGraph graph;
    simgrid_backend::SimulationResult result;
    try {
      graph = graphs::build_application(cfg);
    } catch (const Interrupted&) {
      graph = graphs::TaskGraph{};
    }
    if (stop_requested()) {
      // Stopped before the simulation started: an empty result that says so.
      result.metrics.failure_reason = "interrupted before the simulation started (while loading and building the graph)";
    } else {
      const graphs::CostModel cost(cfg, graph);
      if (!cost.has_speeds()) {
        throw config::ConfigError(cfg.file, "/platform", "a timed run needs kernel speeds: add \"core_gflops\"");
      }
      sim_options.time_limit = simgrid_backend::default_time_limit(cfg, graph, cost);
      result = simgrid_backend::simulate(cfg, graph, cost, sim_options);
    }

    std::optional<core::RunMetrics> reference;
    double reference_wall = 0;
    // FTSIM_NO_FORK=1 (for debuggers) runs one simulation per process: SimGrid allows one engine.
    const char* no_fork = std::getenv("FTSIM_NO_FORK");
    const bool one_simulation = no_fork && std::string(no_fork) == "1";
    if (cfg.run.reference && one_simulation) {
      std::cerr << "ftsim: /run/reference skipped: FTSIM_NO_FORK=1 runs a single simulation per process\n";
    }
    if (cfg.run.reference && !stop_requested() && !one_simulation) {  // an interrupted run skips its reference
      const graphs::CostModel cost(cfg, graph);
      config::Config failure_free = cfg;
      failure_free.protocol = config::ProtocolConfig{};
      failure_free.failures = config::FailureConfig{};
      core::SimulationOptions reference_options;
      reference_options.progress = true;
      const auto reference_result = simgrid_backend::simulate(failure_free, graph, cost, reference_options);
      reference = reference_result.metrics;
      reference_wall = reference_result.wall_seconds;
    }

    nlohmann::json results = core::to_json(result.metrics);
    results["ftsim_version"] = "0.1.0";
    results["backend"] = "simgrid";
    const auto factors = simgrid_backend::network_model_factors(cfg.platform.network.model);
    results["network_model"] = {{"name", config::to_string(cfg.platform.network.model)},
                                {"latency_factor", factors.latency},
                                {"bandwidth_factor", factors.bandwidth},
                                {"factors_by_message_size", factors.by_message_size}};
    results["name"] = cfg.name;
    results["config_file"] = cfg.file;
    results["config"] = cfg.document;
    results["seed"] = cfg.seed;
    results["protocol"] = cfg.protocol.type;
    results["graph"] = {{"tasks", graph.task_count()},
                        {"edges", graph.edge_count()},
                        {"handles", graph.handle_count()},
                        {"data_bytes", graph.total_data_bytes()},
                        {"transfers", graph.transfers().size()}};
    if (reference) {
      results["reference"] = {{"makespan", reference->makespan},
                              {"overhead", result.metrics.makespan / reference->makespan - 1.0},
                              {"complete", reference->complete}};
    } else {
      results["reference"] = nullptr;
    }
    results["wall"] = {{"simulation_seconds", result.wall_seconds},
                       {"reference_seconds", reference_wall},
                       {"events_per_second", result.wall_seconds > 0 ? double(result.metrics.events) / result.wall_seconds : 0.0}};
    {
      std::ofstream out(dir / "results.json");
      if (!out) throw config::ConfigError((dir / "results.json").string(), "", "cannot write this file");
      out << results.dump(2) << "\n";
    }
    print_summary(cfg, graph, result.metrics, reference, result.wall_seconds, std::cout);
    std::cout << "results: " << (dir / "results.json").string();
    if (options->trace) std::cout << "  trace: " << (dir / "trace.json").string();
    if (!options->log.empty()) std::cout << "  log: " << (dir / "events.log").string();
    std::cout << "\n";
    return result.metrics.complete && result.metrics.oracle_ok ? kExitOk : kExitRunFailed;
  };
}

}  // namespace ftsim::cli
