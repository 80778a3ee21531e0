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
#include "sim/sweep/sibling_executable.hpp"
#include "sim/run/table.hpp"
#include "sim/config/config.hpp"
#include "sim/config/stop_request.hpp"
#include "sim/world/event_log.hpp"
#include "sim/config/units.hpp"
#include "sim/world/run_metrics_json.hpp"
#include "sim/simgrid/network_model.hpp"
#include "sim/run/run_job.hpp"
#include "sim/run/run_report.hpp"
#include "sim/simgrid/simulate.hpp"

namespace ftsim::cli {

namespace {

struct RunOptions {
  std::string config;
  std::string output_dir;
  bool trace = false;
  std::string log;
  std::string checkpoint_trace;
  std::string backend = "simgrid";
  bool no_verify = false;
  std::vector<std::string> sets, cfgs;  // config overrides
};

}  // namespace

Command add_run_command(CLI::App& app) {
  auto* command = app.add_subcommand("run", "Simulate a config on SimGrid: makespan, bytes, failures, recovery");
  auto options = std::make_shared<RunOptions>();
  command->add_option("CONFIG", options->config, "JSON config file")->required();
  command->add_option("-o,--output", options->output_dir, "Output directory (default: out/<config name>/)");
  command->add_option("--set", options->sets, config::kSetOptionHelp)->allow_extra_args(false);
  command->add_option("--cfg", options->cfgs, config::kCfgOptionHelp)->allow_extra_args(false);
  command->add_flag("--trace", options->trace, "Also write trace.json (Chrome Trace Event format, opens in Perfetto)");
  command->add_option("--backend", options->backend,
                      "simgrid (simulate; default) or mpi (execute for real under mpirun: one rank per node plus one)")
      ->check(CLI::IsMember({"simgrid", "mpi"}));
  command->add_flag("--no-verify", options->no_verify,
                    "mpi: skip the failure-free reference run and the bit-exact and numeric checks");
  command->add_option("--log", options->log,
                      "Also write events.log: one line per event of these categories, comma-separated: task, message, "
                      "failure, protocol, run, migration, or all");
  command->add_option("--checkpoint-trace", options->checkpoint_trace,
                      "Also write the run's checkpoints and messages, up to the first failure, in the ftsim-trace format "
                      "of `ftsim analyze` (docs/trace-format.md)");
  return [options] {
    // Every rank of an MPI job runs this: hand over at once, so that ftsim-mpi alone reads the
    // config and reports errors (from one rank).
    // (SimGrid's library defines MPI symbols of its own, SMPI's: the MPI backend is ftsim-mpi.)
    if (options->backend == "mpi") return sweep::exec_sibling("ftsim-mpi", arguments(), "--backend mpi");
    // From the first instruction: a signal only asks to stop; what is done so far is reported.
    simgrid_backend::install_stop_handlers();
    const config::Config cfg = protocols::load_config(options->config, config::parse_overrides(options->sets, options->cfgs));
    // A failure log is mapped onto the nodes: say what was kept and dropped, as validate does.
    if (cfg.failures.model == config::FailureModel::log) {
      std::cerr << "ftsim: failure log " << cfg.failures.trace_file << ": " << cfg.failures.log_note << "\n";
    }
    const std::filesystem::path dir = options->output_dir.empty() ? std::filesystem::path("out") / cfg.name
                                                                  : std::filesystem::path(options->output_dir);
    run::RunJobOptions job_options;
    if (options->trace) job_options.trace_file = (dir / "trace.json").string();
    job_options.checkpoint_trace_file = options->checkpoint_trace;
    if (!options->log.empty()) {
      std::uint32_t categories = 0;
      std::string unknown;
      if (!world::parse_log_categories(options->log, categories, unknown)) {
        std::cerr << "error: --log: unknown category \"" << unknown << "\" (task, message, failure, protocol, run, migration or all)\n";
        return 2;
      }
      job_options.log_file = (dir / "events.log").string();
      job_options.log_categories = options->log;
    }
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) throw config::ConfigError(dir.string(), "", "cannot create the output directory: " + error.message());
    run::remove_stale_outputs(dir, options->trace, !options->log.empty(), std::cerr);
    const run::RunJob job = run::run_job(cfg, job_options);
    run::write_results(dir, job.results);
    run::print_summary(cfg, job.graph, job.metrics, job.reference, job.wall_seconds,
                       "network model " + simgrid_backend::describe_network_model(cfg.platform.network.model) +
                           (cfg.platform.network.contention == config::Contention::nic ? ", contention nic (LogGP-style NIC queues)" : "") +
                           (cfg.platform.network.contention == config::Contention::flows &&
                                    cfg.platform.network.solver != config::SharingSolver::grouped
                                ? std::string(", SimGrid's ") + config::to_string(cfg.platform.network.solver) + " sharing solver"
                                : std::string()),
                       false, std::cout,
                       job.protocol_reference);
    std::cout << "results: " << (dir / "results.json").string();
    if (options->trace) std::cout << "  trace: " << (dir / "trace.json").string();
    if (!options->log.empty()) std::cout << "  log: " << (dir / "events.log").string();
    if (!options->checkpoint_trace.empty()) std::cout << "  checkpoint trace: " << options->checkpoint_trace;
    std::cout << "\n";
    return job.succeeded() ? kExitOk : kExitRunFailed;
  };
}

}  // namespace ftsim::cli
