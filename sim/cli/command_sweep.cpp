// ftsim sweep CONFIG [-j N] [--shard K/N] [-o DIR]: run every point of a config's sweep section,
// each as a child `ftsim run`, and write one row per point (docs/sweeps.md). Resumable: the points
// that already have a row are skipped. Under mpirun, ftsim-mpi does the same with the points spread
// over the ranks (sim/mpi/mpi_sweep.cpp).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include "sim/cli/commands.hpp"
#include "sim/sweep/sibling_executable.hpp"
#include "sim/sweep/sweep_options.hpp"
#include "sim/sweep/sweep_progress.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/config/stop_request.hpp"

namespace ftsim::cli {

// Under mpirun (Open MPI sets OMPI_COMM_WORLD_SIZE in every rank) with more than one rank.
bool under_mpirun() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size && std::atoi(size) > 1;
}

int run_sweep(const sweep::SweepOptions& options) {
  using namespace sweep;
  install_stop_handlers();
  const auto start = std::chrono::steady_clock::now();
  const SweepPlan plan = SweepPlan::load(options.config, config::parse_overrides(options.sets, options.cfgs));
  if (!options.quiet) {
    for (const auto& warning : plan.warnings()) std::cerr << "warning: " << warning << "\n";
  }
  const Shard shard = parse_shard(options.shard);
  const std::vector<std::size_t> selected = shard_points(plan, shard);
  if (options.list || options.list_json) {
    print_points(plan, selected, options.list_json);
    return kExitOk;
  }
  const SweepPaths paths = sweep_paths(options, plan, shard);
  RowsFiles files(paths.csv, paths.jsonl, paths.imports, plan);
  std::vector<std::size_t> todo;
  for (const std::size_t index : selected) {
    if (!files.has(plan.points()[index].id)) todo.push_back(index);
  }

  Progress progress(selected.size(), selected.size() - todo.size(), ::isatty(STDERR_FILENO) == 1, estimate_points(plan, todo),
                    options.jobs);
  PointRunner runner(plan, todo, RunnerOptions{self_executable(), paths.points, options.jobs, false, ""});
  std::size_t run_now = 0;
  while (!runner.done() && !stop_requested()) {
    const std::vector<Row> rows = runner.step();
    for (const Row& row : rows) {
      files.append(row);
      progress.finished(row, plan.describe(plan.points()[row["point"].get<std::size_t>()]));
      ++run_now;
    }
    progress.tick();
    if (rows.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  progress.close();
  const bool interrupted = stop_requested();
  if (interrupted) {
    runner.stop();  // the points in flight get no row: they run again when the sweep resumes
  } else {
    files.sort();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report_end(plan, files, paths, selected, run_now, wall, interrupted, options.quiet);
}

Command add_sweep_command(CLI::App& app) {
  auto* command = app.add_subcommand("sweep", "Run every point of a config's sweep section; one row per point in CSV and JSON lines");
  auto options = std::make_shared<sweep::SweepOptions>();
  sweep::add_sweep_options(*command, *options);
  return [options] {
    if (const auto code = sweep::summary_only(*options)) return *code;
    // The ranks of an MPI job share the points: ftsim-mpi (which can call MPI, see
    // sibling_executable.hpp) gathers their rows on rank 0.
    if (under_mpirun()) {
      return sweep::exec_sibling("ftsim-mpi", arguments(), "ftsim sweep under mpirun");
    }
    return run_sweep(*options);
  };
}

}  // namespace ftsim::cli
