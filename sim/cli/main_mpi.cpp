// ftsim-mpi: `ftsim run --backend mpi`, and `ftsim sweep` under mpirun (ftsim execs it: SimGrid's
// library defines MPI symbols of its own, SMPI's, so a process that links SimGrid cannot call Open
// MPI). Every rank runs it; for a run the driver rank (the last) reports, for a sweep rank 0.
#include <malloc.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "graphs/stf_builder.hpp"
#include "protocols/registry.hpp"
#include "sim/cli/commands.hpp"
#include "sim/run/run_report.hpp"
#include "sim/mpi/mpi_sweep.hpp"
#include "sim/config/config_error.hpp"
#include "sim/mpi/calibrate.hpp"
#include "sim/mpi/mpi_command.hpp"

namespace ftsim::cli {
namespace {

// A rank's fatal error, in one write: ranks abort at about the same time, and std::cerr writes each
// piece of a chained `<<` on its own, so two ranks' messages interleaved mid-line.
void say_rank_error(int rank, const char* what) {
  const std::string line = fmt::format("ftsim-mpi: rank {}: error: {}\n", rank, what);
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

struct MpiRunOptions {
  std::string config;
  std::string output_dir;
  std::string backend = "mpi";
  bool no_verify = false;
  bool trace = false;
  std::string checkpoint_trace;
  std::string log;
  std::vector<std::string> sets, cfgs;  // config overrides
};

int report(const config::Config& cfg, const graphs::TaskGraph& graph, const mpi::MpiOutcome& outcome,
           const std::filesystem::path& dir);

// --backend mpi: every rank runs this; the driver rank (the last) reports.
int run_with_mpi(const config::Config& cfg, const MpiRunOptions& options, const std::filesystem::path& dir,
                 const mpi::MpiSession& session) {
  const bool reporter_guess = session.rank() == session.size() - 1;
  if (cfg.failures.prediction) {
    // Moving a live rank's memory to a spare process is not built on MPI (docs/migration.md).
    throw config::ConfigError(cfg.file, "/failures/prediction",
                              "proactive migration is simulated only: the MPI backend cannot move a rank to a spare "
                              "process yet; run this config without --backend mpi, or remove /failures/prediction");
  }
  graphs::TaskGraph graph = graphs::build_application(cfg);
  const graphs::CostModel cost(cfg, graph);
  if (!cost.has_speeds()) {
    throw config::ConfigError(cfg.file, "/platform", "a timed run needs kernel speeds: add \"core_gflops\"");
  }
  mpi::MpiOptions mpi_options;
  mpi_options.verify = !options.no_verify;
  mpi::MpiOutcome outcome;
  try {
    outcome = mpi::run_mpi(cfg, graph, cost, mpi_options);
  } catch (const config::ConfigError& e) {
    // Every rank finds the same error: one of them says it.
    if (reporter_guess) std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
  int code = kExitOk;
  if (outcome.reporter) {
    try {
      code = report(cfg, graph, outcome, dir);
    } catch (const std::exception& e) {
      // The other ranks wait for the exit code: end them too, with this rank's message.
      say_rank_error(session.rank(), e.what());
      MPI_Abort(MPI_COMM_WORLD, dynamic_cast<const config::ConfigError*>(&e) ? kExitBadInput : kExitRunFailed);
    }
  }
  return mpi::agree_exit_code(code, graph);
}

// The driver rank's report: results.json and the summary; the exit code of the job.
int report(const config::Config& cfg, const graphs::TaskGraph& graph, const mpi::MpiOutcome& outcome,
           const std::filesystem::path& dir) {
  {
    nlohmann::json results = run::results_json(cfg, graph, outcome.metrics, outcome.reference, "mpi");
    results["network_model"] = nullptr;  // a real network
    results["wall"] = {{"simulation_seconds", outcome.wall_seconds},
                       {"reference_seconds", outcome.reference_wall_seconds},
                       {"events_per_second", 0.0}};
    results["mpi"] = outcome.details;
    run::write_results(dir, results);
    run::print_summary(cfg, graph, outcome.metrics, outcome.reference, outcome.wall_seconds,
                       fmt::format("backend mpi: {} node ranks and a driver rank, real kernels, wall-clock times", graph.node_count()),
                       true, std::cout);
    const auto& v = outcome.details["verification"];
    if (!v.is_null()) {
      std::cout << "verification: " << (v["bit_exact"].get<bool>() ? "bit-exact" : "NOT BIT-EXACT") << " against the failure-free MPI run ("
                << v["handles"].get<std::size_t>() << " handles)";
      for (const auto& c : v["numeric_checks"]) {
        std::cout << "; " << c["name"].get<std::string>() << " " << fmt::format("{:.3g}", c["value"].get<double>())
                  << (c["ok"].get<bool>() ? " ok" : " FAILED");
      }
      std::cout << "\n";
      for (const auto& m : v["first_mismatches"]) std::cout << "verification: " << m.get<std::string>() << "\n";
    }
    std::cout << "results: " << (dir / "results.json").string() << "\n";
  }
  return outcome.metrics.complete && outcome.metrics.oracle_ok && outcome.verified ? kExitOk : kExitRunFailed;
}

struct CalibrateOptions {
  std::string config, output, json, backend = "mpi";
  std::vector<std::string> sets, cfgs;
};

void write_json_file(const std::filesystem::path& path, const nlohmann::json& value) {
  std::ofstream out(path);
  out << value.dump(2) << "\n";
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// ftsim calibrate --backend mpi: every rank measures; rank 0 writes and reports.
int run_calibrate(const CalibrateOptions& options, const mpi::MpiSession& session) {
  const bool speaker = session.rank() == 0;
  int code = kExitOk;
  try {
    const config::Config cfg = protocols::load_config(options.config, config::parse_overrides(options.sets, options.cfgs));
    const graphs::TaskGraph graph = graphs::build_application(cfg);
    const mpi::Calibration c = mpi::calibrate(cfg, graph);
    if (speaker) {
      const std::filesystem::path out = options.output.empty()
                                            ? std::filesystem::path("out") / (cfg.name + "-calibrated.json")
                                            : std::filesystem::path(options.output);
      if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path());
      write_json_file(out, mpi::calibrated_config(cfg, c));
      if (!options.json.empty()) write_json_file(options.json, mpi::calibration_json(c));
      std::cout << fmt::format("calibration on {} ranks{}\n", c.ranks,
                               c.synthetic ? " (synthetic kernels: their speeds are the config's, not measured)" : "");
      if (!c.kernels.empty()) std::cout << fmt::format("{:<12}{:>14}{:>14}{:>12}\n", "kernel", "flops", "seconds", "GFlop/s");
      for (const auto& k : c.kernels) {
        std::cout << fmt::format("{:<12}{:>14.4g}{:>14.4g}{:>12.4g}\n", k.kernel, k.flops, k.mean_seconds(), k.gflops());
      }
      std::cout << fmt::format("ping-pong, one way: {}\n", [&] {
        std::string s;
        for (const auto& p : c.ping) s += fmt::format("{}{} B {:.3g} us", s.empty() ? "" : ", ", p.bytes, p.one_way * 1e6);
        return s;
      }());
      std::cout << fmt::format("latency {:.3g} us, bandwidth {:.4g} MB/s\n", c.latency * 1e6, c.bandwidth / 1e6);
      if (!c.synthetic) {
        std::cout << fmt::format("in a failure-free run of the config the kernels took {:.4g} s of core time: rates x {:.3f}\n",
                                 c.run_busy_seconds, c.run_scale);
      }
      std::cout << "calibrated config: " << out.string() << "\n";
    }
  } catch (const config::ConfigError& e) {
    if (speaker) std::cerr << "error: " << e.what() << "\n";
    code = kExitBadInput;
  } catch (const std::exception& e) {
    say_rank_error(session.rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitRunFailed);
  }
  return code;
}

}  // namespace
}  // namespace ftsim::cli

int main(int argc, char** argv) {
  using namespace ftsim::cli;
  CLI::App app{"ftsim-mpi: run a config for real on MPI ranks (started by `ftsim run --backend mpi` under mpirun)"};
  auto* run = app.add_subcommand("run", "Execute a config on MPI ranks: one per node plus one for the driver");
  auto* sweep = app.add_subcommand("sweep", "Run a sweep's points on the ranks (as child ftsim runs); rank 0 writes the rows");
  ftsim::sweep::SweepOptions sweep_options;
  ftsim::sweep::add_sweep_options(*sweep, sweep_options);
  auto* calibrate = app.add_subcommand("calibrate", "Measure the ranks' kernels and network; rank 0 writes the calibrated config");
  ftsim::cli::CalibrateOptions calibrate_options;
  calibrate->add_option("CONFIG", calibrate_options.config, "JSON config file")->required();
  calibrate->add_option("-o,--output", calibrate_options.output, "The calibrated config to write");
  calibrate->add_option("--json", calibrate_options.json, "Also write the raw figures");
  calibrate->add_option("--backend", calibrate_options.backend, "mpi")->check(CLI::IsMember({"mpi"}));
  calibrate->add_option("--set", calibrate_options.sets, ftsim::config::kSetOptionHelp)->allow_extra_args(false);
  calibrate->add_option("--cfg", calibrate_options.cfgs, ftsim::config::kCfgOptionHelp)->allow_extra_args(false);
  app.require_subcommand(1);
  MpiRunOptions options;
  run->add_option("CONFIG", options.config, "JSON config file")->required();
  run->add_option("-o,--output", options.output_dir, "Output directory (default: out/<config name>/)");
  run->add_option("--backend", options.backend, "mpi")->check(CLI::IsMember({"mpi"}));
  run->add_option("--set", options.sets, ftsim::config::kSetOptionHelp)->allow_extra_args(false);
  run->add_option("--cfg", options.cfgs, ftsim::config::kCfgOptionHelp)->allow_extra_args(false);
  run->add_flag("--no-verify", options.no_verify, "Skip the failure-free reference run and the checks");
  run->add_flag("--trace", options.trace, "Not available on MPI yet");
  run->add_option("--log", options.log, "Not available on MPI yet");
  run->add_option("--checkpoint-trace", options.checkpoint_trace, "Not available on MPI yet");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  // Real buffers are large and short-lived (tiles, messages, checkpoint contents): keep freed
  // memory in the heap for the next one instead of returning it to the kernel and faulting it in
  // again (page faults were most of the cost of a checkpoint).
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  ftsim::mpi::MpiSession session(&argc, &argv);
  if (calibrate->parsed()) return ftsim::cli::run_calibrate(calibrate_options, session);
  if (sweep->parsed()) {
    try {
      return ftsim::mpi::run_sweep_on_ranks(sweep_options, session.rank(), session.size());
    } catch (const std::exception& e) {
      // Rank 0 could not write a row, or a bug: end the whole job, naming the rank.
      const std::string line = fmt::format("ftsim-mpi sweep: rank {}: error: {}\n", session.rank(), e.what());
      std::fwrite(line.data(), 1, line.size(), stderr);  // one write: aborting ranks may say theirs at once
      MPI_Abort(MPI_COMM_WORLD, kExitRunFailed);
      return kExitRunFailed;
    }
  }
  const bool speaker = session.rank() == session.size() - 1;
  if (options.trace || !options.log.empty() || !options.checkpoint_trace.empty()) {
    if (speaker) {
      std::cerr << "error: --trace, --log and --checkpoint-trace are not available with --backend mpi yet (see docs/mpi.md)\n";
    }
    return kExitBadInput;
  }
  try {
    const ftsim::config::Config cfg =
        ftsim::protocols::load_config(options.config, ftsim::config::parse_overrides(options.sets, options.cfgs));
    const std::filesystem::path dir = options.output_dir.empty() ? std::filesystem::path("out") / cfg.name
                                                                 : std::filesystem::path(options.output_dir);
    // Only the speaker writes: it tries the output directory, and every rank learns the verdict
    // before any rank enters the run (a rank that returned alone would leave the others waiting).
    int directory_ok = 1;
    std::string directory_error;
    if (speaker) {
      std::error_code error;
      std::filesystem::create_directories(dir, error);
      if (error) {
        directory_ok = 0;
        directory_error = "cannot create the output directory: " + error.message();
      }
      if (directory_ok) {  // the MPI backend writes results.json only
        try {
          ftsim::run::remove_stale_outputs(dir, false, false, std::cerr);
        } catch (const ftsim::config::ConfigError& e) {
          directory_ok = 0;
          directory_error = e.what();
        }
      }
    }
    MPI_Bcast(&directory_ok, 1, MPI_INT, session.size() - 1, MPI_COMM_WORLD);
    if (!directory_ok) throw ftsim::config::ConfigError(dir.string(), "", directory_error);
    return run_with_mpi(cfg, options, dir, session);
  } catch (const ftsim::config::ConfigError& e) {
    if (speaker) std::cerr << "error: " << e.what() << "\n";  // every rank finds it: one says it
    return kExitBadInput;
  } catch (const ftsim::graphs::GraphError& e) {
    if (speaker) std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    // A bug on one rank: end the whole job, naming the rank, rather than leave the others waiting.
    say_rank_error(session.rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, kExitRunFailed);
    return kExitRunFailed;
  }
}
