#pragma once
// The verbs of the ftsim executable. Each registers its CLI11 subcommand and returns the
// callback that runs it. Exit codes: 0 ok, 1 run failed, 2 bad input.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace ftsim::sweep {
struct SweepOptions;
}

namespace ftsim::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunFailed = 1;
inline constexpr int kExitBadInput = 2;

using Command = std::function<int()>;

// The command line as given (main sets it), for a command that hands over to another executable.
void set_arguments(int argc, char** argv);
const std::vector<std::string>& arguments();

Command add_validate_command(CLI::App& app);
Command add_graph_command(CLI::App& app);
Command add_volumes_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_sweep_command(CLI::App& app);
Command add_analyze_command(CLI::App& app);
Command add_calibrate_command(CLI::App& app);
Command add_estimate_command(CLI::App& app);
Command add_failures_command(CLI::App& app);
Command add_advise_command(CLI::App& app);

// `ftsim sweep` on this machine (command_sweep.cpp): the exit code of report_end.
int run_sweep(const sweep::SweepOptions& options);
// Under mpirun with more than one rank (Open MPI's OMPI_COMM_WORLD_SIZE).
bool under_mpirun();

}  // namespace ftsim::cli
