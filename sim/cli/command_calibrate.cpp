// ftsim calibrate --backend mpi CONFIG -o OUT.json: measure this machine (its kernels' rates and
// its point-to-point latency and bandwidth) under mpirun and write CONFIG with that platform
// (docs/mpi.md#calibration). ftsim-mpi does the work: SimGrid's library defines MPI symbols of its
// own, so this process only hands over.
#include <memory>

#include "sim/cli/commands.hpp"
#include "sim/sweep/sibling_executable.hpp"

namespace ftsim::cli {

namespace {
struct CalibrateOptions {
  std::string config, output, json, backend;
  std::vector<std::string> sets, cfgs;
};
}  // namespace

Command add_calibrate_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "calibrate", "Measure this machine under mpirun (kernel rates, point-to-point latency and bandwidth) and write the config with that platform");
  auto options = std::make_shared<CalibrateOptions>();
  command->add_option("CONFIG", options->config, "JSON config file: the application whose kernels are timed")->required();
  command->add_option("-o,--output", options->output, "The calibrated config to write (default: out/<config name>-calibrated.json)");
  command->add_option("--json", options->json, "Also write the raw figures (per kernel and rank, the ping-pong points)");
  command->add_option("--backend", options->backend, "mpi: measure the ranks of this mpirun job (the only backend)")
      ->required()
      ->check(CLI::IsMember({"mpi"}));
  command->add_option("--set", options->sets, "Set a config key: KEY=VALUE (as for run)")->allow_extra_args(false);
  command->add_option("--cfg", options->cfgs, "SimGrid's spelling of --set: --cfg=KEY:VALUE")->allow_extra_args(false);
  // The options live as long as the callback: CLI11 writes into them while parsing.
  return [options] { return sweep::exec_sibling("ftsim-mpi", arguments(), "ftsim calibrate --backend mpi"); };
}

}  // namespace ftsim::cli
