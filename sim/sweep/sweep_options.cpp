#include "sim/sweep/sweep_options.hpp"

#include <charconv>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <regex>

#include <fmt/format.h>

#include "sim/config/config_error.hpp"
#include "sim/config/config_overrides.hpp"
#include "sim/sweep/sweep_progress.hpp"
#include "sim/sweep/sweep_summary.hpp"

namespace ftsim::sweep {

namespace {

bool parse_count(const std::string& text, std::size_t& value) {
  if (text.empty() || text.size() > 9) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// "" if `text` is a shard K/N with 0 <= K < N, else what is wrong with it (for CLI11).
std::string shard_problem(const std::string& text) {
  if (text == "auto") return "";
  const auto slash = text.find('/');
  std::size_t k = 0, n = 0;
  if (slash == std::string::npos || !parse_count(text.substr(0, slash), k) || !parse_count(text.substr(slash + 1), n)) {
    return "expected K/N (integers, e.g. 0/4 for the first of 4 shards), got \"" + text + "\"";
  }
  if (n == 0 || k >= n) return fmt::format("expected K/N with 0 <= K < N (K counts from 0), got \"{}\"", text);
  return "";
}

}  // namespace

Shard slurm_shard() {
  // A Slurm job array (sbatch --array=MIN-MAX): this task's id and the array's size. Slurm sets
  // SLURM_ARRAY_TASK_COUNT since 20.02; MIN and MAX always.
  const auto number = [](const char* name) -> std::optional<std::size_t> {
    const char* value = std::getenv(name);
    std::size_t n = 0;
    if (!value || !parse_count(value, n)) return std::nullopt;
    return n;
  };
  const auto id = number("SLURM_ARRAY_TASK_ID");
  if (!id) {
    throw config::ConfigError("--shard auto", "", "SLURM_ARRAY_TASK_ID is not set: not a task of a Slurm job array (sbatch --array=0-N)");
  }
  const auto min = number("SLURM_ARRAY_TASK_MIN").value_or(0);
  std::optional<std::size_t> count = number("SLURM_ARRAY_TASK_COUNT");
  if (!count) {
    if (const auto max = number("SLURM_ARRAY_TASK_MAX")) count = *max - min + 1;
  }
  if (!count || *count == 0 || *id < min || *id - min >= *count) {
    throw config::ConfigError("--shard auto", "",
                              "cannot tell the array's size from SLURM_ARRAY_TASK_COUNT (or SLURM_ARRAY_TASK_MIN and "
                              "SLURM_ARRAY_TASK_MAX) for task " + std::to_string(*id) + ": use --array=0-(N-1) with a step of 1");
  }
  Shard shard;
  shard.k = *id - min;
  shard.n = *count;
  shard.given = true;
  return shard;
}

void add_sweep_options(CLI::App& command, SweepOptions& options) {
  // CONFIG is required but with --summary (checked by the verb: CLI11 cannot say "unless").
  command.add_option("CONFIG", options.config, "JSON config file with a \"sweep\" section (docs/sweeps.md)");
  command.add_option("--summary", options.summary_dir,
                     "Print the summary of the sweep already run into DIR (its rows grouped by the varied keys, mean and "
                     "95% interval of the makespan and overhead) and run nothing")
      ->type_name("DIR");
  command.add_option("-o,--output", options.output_dir,
                     "Output directory: the rows files and points/<id>/ of each point (default: out/<config name>/)");
  command.add_option("--csv", options.csv, "CSV rows file (default: DIR/rows.csv; with --shard K/N: DIR/rows.shard-K-of-N.csv)");
  command.add_option("--jsonl", options.jsonl,
                     "JSON-lines rows file, the record a resumed sweep reads (default: DIR/rows.jsonl; with --shard K/N: "
                     "DIR/rows.shard-K-of-N.jsonl)");
  command.add_option("-j,--jobs", options.jobs, "Points run at once (child processes; per rank under mpirun; default 1)")
      ->check(CLI::Range(std::size_t(1), std::size_t(4096)));
  command.add_option("--shard", options.shard,
                     "K/N: run only the points whose index is K modulo N (K from 0 to N-1; e.g. a Slurm array task "
                     "--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-(N-1)); \"auto\": from "
                     "those two variables of a Slurm job array")
      ->check([](const std::string& text) { return shard_problem(text); });
  command.add_option("--set", options.sets, std::string(config::kSetOptionHelp) + "; sets a key of the base config")
      ->allow_extra_args(false);
  command.add_option("--cfg", options.cfgs, config::kCfgOptionHelp)->allow_extra_args(false);
  command.add_flag("--list", options.list, "Print the points (index, id, varied values) and run nothing");
  command.add_flag("--list-json", options.list_json, "Print the points as JSON lines with each point's config, and run nothing");
}

std::optional<int> summary_only(const SweepOptions& options) {
  if (options.summary_dir.empty()) {
    if (!options.config.empty()) return std::nullopt;
    std::cerr << "error: give the sweep's CONFIG (or --summary DIR for a sweep already run)\n";
    return 2;
  }
  if (!options.config.empty()) {
    std::cerr << "error: --summary DIR prints the summary of a sweep already run: give it without CONFIG\n";
    return 2;
  }
  const std::vector<Row> rows = read_sweep_rows(options.summary_dir);
  std::size_t ok = 0;
  for (const Row& row : rows) ok += row.value("status", "") == "ok";
  std::cout << fmt::format("sweep in {}: {} rows, {} ok, {} not ok\n", options.summary_dir, rows.size(), ok, rows.size() - ok);
  print_sweep_summary(rows, varied_columns_of(rows.front()), std::cout);
  return 0;
}

Shard parse_shard(const std::string& text) {
  Shard shard;
  if (text.empty()) return shard;
  if (text == "auto") return slurm_shard();
  const auto slash = text.find('/');
  parse_count(text.substr(0, slash), shard.k);
  parse_count(text.substr(slash + 1), shard.n);
  shard.given = true;
  return shard;
}

SweepPaths sweep_paths(const SweepOptions& options, const SweepPlan& plan, const Shard& shard) {
  SweepPaths paths;
  paths.dir = options.output_dir.empty() ? std::filesystem::path("out") / plan.name() : std::filesystem::path(options.output_dir);
  paths.points = paths.dir / "points";
  const std::string stem = shard.given ? fmt::format("rows.shard-{}-of-{}", shard.k, shard.n) : "rows";
  paths.csv = options.csv.empty() ? paths.dir / (stem + ".csv") : std::filesystem::path(options.csv);
  paths.jsonl = options.jsonl.empty() ? paths.dir / (stem + ".jsonl") : std::filesystem::path(options.jsonl);
  // A sweep without a shard takes the rows of its shards (a job array's) in: they are its points too.
  if (!shard.given && std::filesystem::is_directory(paths.dir)) {
    static const std::regex shard_file(R"(rows\.shard-[0-9]+-of-[0-9]+\.jsonl)");
    for (const auto& entry : std::filesystem::directory_iterator(paths.dir)) {
      const std::string name = entry.path().filename().string();
      if (entry.is_regular_file() && std::regex_match(name, shard_file) && entry.path() != paths.jsonl) paths.imports.push_back(entry.path());
    }
    std::sort(paths.imports.begin(), paths.imports.end());
  }
  return paths;
}

std::vector<std::size_t> shard_points(const SweepPlan& plan, const Shard& shard) {
  std::vector<std::size_t> points;
  for (const auto& point : plan.points()) {
    if (point.index % shard.n == shard.k) points.push_back(point.index);
  }
  return points;
}

void print_points(const SweepPlan& plan, const std::vector<std::size_t>& points, bool json) {
  for (const std::size_t index : points) {
    const Point& point = plan.points()[index];
    if (json) {
      Row values = Row::object();
      for (const auto& [column, value] : plan.varied_values(point)) values[column] = Row(value);
      Row line;
      line["point"] = point.index;
      line["id"] = point.id;
      line["values"] = values;
      line["config"] = Row(plan.point_config(point));
      std::cout << line.dump() << "\n";
    } else {
      std::cout << fmt::format("{:>5} {} {}\n", point.index, point.id, plan.describe(point));
    }
  }
}

int report_end(const SweepPlan& plan, const RowsFiles& files, const SweepPaths& paths, const std::vector<std::size_t>& points,
               std::size_t run_now, double wall_seconds, bool interrupted, bool quiet) {
  const auto count = files.count(points);
  std::ostream& out = quiet ? std::cerr : std::cout;
  if (interrupted) {
    std::cerr << fmt::format("ftsim sweep: interrupted: {} of {} points have rows ({} run now); run the same command again to run the "
                             "others\n",
                             count.rows, points.size(), run_now);
  }
  out << fmt::format("sweep {}: {} points, {} with rows ({} run now, in {}), {} ok, {} not ok\n", plan.name(), points.size(),
                     count.rows, run_now, format_duration(wall_seconds), count.rows - count.not_ok, count.not_ok);
  if (count.not_ok) {
    out << fmt::format("not ok: see the rows' status and reason, and {}/<id>/stderr.txt\n", paths.points.string());
  }
  if (!quiet) out << "rows: " << paths.csv.string() << "  " << paths.jsonl.string() << "\n";
  if (count.rows > 0 && !quiet) print_sweep_summary(files.rows(points), plan.row_varied_columns(), std::cout);
  return !interrupted && count.rows == points.size() && count.not_ok == 0 ? 0 : 1;
}

}  // namespace ftsim::sweep
