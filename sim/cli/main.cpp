// ftsim: simulator and analysis toolkit for fault-tolerance protocols of task-based runtimes.
#include <iostream>
#include <map>

#include "graphs/stf_builder.hpp"
#include "sim/cli/commands.hpp"
#include "sim/config/config_error.hpp"
#include "sim/simgrid/simulate.hpp"

namespace ftsim::cli {
namespace {
std::vector<std::string> command_line;
}
void set_arguments(int argc, char** argv) { command_line.assign(argv, argv + argc); }
const std::vector<std::string>& arguments() { return command_line; }
}  // namespace ftsim::cli

int main(int argc, char** argv) {
  using namespace ftsim::cli;
  set_arguments(argc, argv);
  // `run`: from the first instruction, a signal only asks to stop (results are still written);
  // the earlier, the smaller the window in which SIGTERM kills the process outright.
  if (argc > 1 && std::string(argv[1]) == "run") ftsim::simgrid_backend::install_stop_handlers();
  CLI::App app{"ftsim: what does a fault-tolerance protocol cost on a task-based application, "
               "and how much work does a failure destroy?"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ftsim 0.1.0");

  std::map<CLI::App*, Command> commands;
  auto add = [&](Command (*adder)(CLI::App&)) {
    std::size_t before = app.get_subcommands({}).size();
    Command command = adder(app);
    commands[app.get_subcommands({}).at(before)] = std::move(command);
  };
  add(add_validate_command);
  add(add_graph_command);
  add(add_volumes_command);
  add(add_run_command);
  add(add_sweep_command);
  add(add_analyze_command);
  add(add_calibrate_command);
  add(add_estimate_command);
  add(add_failures_command);
  add(add_advise_command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }

  try {
    for (auto& [subcommand, command] : commands) {
      if (subcommand->parsed()) return command();
    }
  } catch (const ftsim::config::ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ftsim::graphs::GraphError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return kExitRunFailed;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitRunFailed;
  }
  return kExitBadInput;
}
