#pragma once
// The command line of `ftsim sweep` (docs/sweeps.md), shared by ftsim, which runs a sweep on this
// machine, and ftsim-mpi, which ftsim execs under mpirun to spread the points over the ranks.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sim/sweep/sweep_output.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace ftsim::sweep {

struct SweepOptions {
  std::string config;
  std::string output_dir;  // default: out/<sweep name>/
  std::string csv;         // default: DIR/rows.csv (a shard: DIR/rows.shard-K-of-N.csv)
  std::string jsonl;       // default: DIR/rows.jsonl (a shard: DIR/rows.shard-K-of-N.jsonl)
  std::size_t jobs = 1;    // points at once (per rank under mpirun)
  std::string shard;       // "K/N": the points whose index is K modulo N (K from 0)
  bool list = false;       // print the points, run nothing
  bool list_json = false;  // the same as JSON lines with each point's config
  std::vector<std::string> sets, cfgs;  // overrides of the base config (--set, --cfg)
  std::string summary_dir;  // --summary DIR: print the summary of that sweep's rows, run nothing
  bool quiet = false;       // a sweep run by another verb (ftsim estimate): its closing lines on stderr, no summary
};

// --summary DIR, or CONFIG missing: the exit code, having printed the summary or the error; or
// nullopt when the verb goes on to run the sweep of CONFIG.
std::optional<int> summary_only(const SweepOptions& options);

void add_sweep_options(CLI::App& command, SweepOptions& options);

struct Shard {
  std::size_t k = 0, n = 1;
  bool given = false;
};
Shard parse_shard(const std::string& text);  // "K/N" (checked by add_sweep_options), or "auto"
// "auto": this task's shard of a Slurm job array (SLURM_ARRAY_TASK_ID, and the array's size from
// SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MIN/MAX); throws config::ConfigError if it is not one.
Shard slurm_shard();

struct SweepPaths {
  std::filesystem::path dir, points, csv, jsonl;
  std::vector<std::filesystem::path> imports;  // unsharded: the shards' JSON lines found in dir
};
SweepPaths sweep_paths(const SweepOptions& options, const SweepPlan& plan, const Shard& shard);

// The indices of the points of this shard, in point order.
std::vector<std::size_t> shard_points(const SweepPlan& plan, const Shard& shard);

// --list and --list-json: prints the points of the shard on stdout.
void print_points(const SweepPlan& plan, const std::vector<std::size_t>& points, bool json);

// The closing lines (stdout, stderr when interrupted) and the exit code: 0 when every point of
// `points` has a row with status "ok", 1 otherwise (points that failed, or an interrupted sweep).
int report_end(const SweepPlan& plan, const RowsFiles& files, const SweepPaths& paths, const std::vector<std::size_t>& points,
               std::size_t run_now, double wall_seconds, bool interrupted, bool quiet = false);

}  // namespace ftsim::sweep
