// ftsim estimate CONFIG [--samples N] [--method conditioned|brute|both] [-j J] [-o DIR]: the expected
// makespan and overheads of a config under its failure model, with 90% intervals, from simulated
// samples (docs/advise.md). Every simulation goes through `ftsim sweep`: DIR holds the sweep files
// it wrote (failure-free.json, conditioned.json, brute.json) and their rows, so that an interrupted
// estimate resumes where it stopped and the samples can be spread over a cluster like any sweep.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "protocols/registry.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/estimate_command.hpp"
#include "sim/config/config.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/config_overrides.hpp"
#include "sim/config/random_stream.hpp"
#include "sim/config/relative_paths.hpp"
#include "sim/config/units.hpp"
#include "sim/estimate/long_job.hpp"
#include "sim/estimate/rare_event_estimate.hpp"
#include "sim/run/table.hpp"
#include "sim/sweep/sweep_options.hpp"
#include "sim/world/failure_schedule.hpp"

namespace ftsim::cli {

namespace {

using Json = nlohmann::json;

// Where a quiet estimate's table goes (ftsim advise runs many and prints its own).
std::ostream& null_stream() {
  static std::ofstream none;  // never opened: every write fails silently
  return none;
}


// The rows of a finished sweep, by its output directory.
std::vector<Json> read_rows(const std::filesystem::path& dir) {
  std::vector<Json> rows;
  std::ifstream in(dir / "rows.jsonl");
  if (!in) throw config::ConfigError((dir / "rows.jsonl").string(), "", "cannot read the sweep's rows");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) rows.push_back(Json::parse(line));
  }
  return rows;
}

// The seeds of the failure-free runs: two when the protocol draws from its seed (the estimate needs
// a failure-free run the seed does not change: checked), one otherwise.
std::vector<std::uint64_t> failure_free_seeds(const config::Config& cfg) {
  const protocols::ProtocolModule& module = protocols::protocol_module(cfg);
  if (module.draws_at_random && module.draws_at_random(cfg)) return {cfg.seed, cfg.seed + 1};
  return {cfg.seed};
}

// Writes `document` with a seeds axis as a sweep file and runs it (resuming if it ran before).
// Writes `document` with the sweep section `sweep` of `points` points to DIR/NAME.json and runs it
// into DIR/NAME (resuming if it ran before); its rows.
std::vector<Json> run_sweep_section(Json document, Json sweep, std::size_t points, const std::filesystem::path& dir,
                                    const std::string& name, std::size_t jobs) {
  document["name"] = document.value("name", std::string("estimate")) + "-" + name;
  document["sweep"] = std::move(sweep);
  const std::filesystem::path file = dir / (name + ".json");
  {
    std::ofstream out(file);
    out << document.dump(1) << "\n";
    if (!out) throw config::ConfigError(file.string(), "", "cannot write this file");
  }
  sweep::SweepOptions options;
  options.config = file.string();
  options.output_dir = (dir / name).string();
  options.jobs = jobs;
  options.quiet = true;
  std::cerr << fmt::format("ftsim estimate: {} ({} run{}): {}\n", name, points, points == 1 ? "" : "s", file.string());
  const int code = run_sweep(options);
  if (code != kExitOk) {
    // A point that failed has a row all the same (an unrecoverable run is a result); only an
    // interrupted sweep or one without rows stops here.
    const auto rows = read_rows(dir / name);
    if (rows.size() < points) {
      throw config::ConfigError(file.string(), "", "the sweep stopped before every run had a row: run the same command again to resume");
    }
    return rows;
  }
  return read_rows(dir / name);
}

std::vector<Json> run_points(const Json& document, const std::vector<std::uint64_t>& seeds, const std::filesystem::path& dir,
                             const std::string& name, std::size_t jobs) {
  return run_sweep_section(document, {{"seeds", seeds}}, seeds.size(), dir, name, jobs);
}

// /failures as one failure of `machine` at `time`, with the config's downtime and detection.
Json one_failure(const config::Config& cfg, double time, std::uint32_t machine) {
  Json f = {{"model", "list"}, {"events", {{{"time", time}, {"node", machine * cfg.platform.ranks_per_machine}}}}};
  if (cfg.failures.downtime > 0) f["downtime"] = cfg.failures.downtime;
  if (cfg.failures.detection > 0) f["detection"] = cfg.failures.detection;
  return f;
}

// How the runs of a sample ended, counted apart: an incomplete run is a result (its probability is
// estimated); a wrong result or an error (crash, bad input) makes the estimate worthless.
struct RunCounts {
  std::size_t ok = 0, incomplete = 0, wrong = 0, errors = 0;
  std::vector<std::string> problems;  // the first few wrong results and errors, for the message
};

std::vector<estimate::Sample> samples_of(const std::vector<Json>& rows, RunCounts& counts) {
  std::vector<estimate::Sample> samples;
  for (const Json& row : rows) {
    const std::string status = row.value("status", std::string());
    const bool has_makespan = row.contains("makespan") && row["makespan"].is_number();
    const bool oracle_ok = !row.contains("oracle.ok") || !row["oracle.ok"].is_boolean() || row["oracle.ok"].get<bool>();
    const bool complete = row.contains("complete") && row["complete"].is_boolean() && row["complete"].get<bool>();
    const auto problem = [&](const char* what) {
      if (counts.problems.size() < 5) {
        counts.problems.push_back(fmt::format("seed {}: {}: {}", row.value("seed", Json()).dump(), what,
                                              row.value("reason", Json()).is_string() ? row["reason"].get<std::string>() : ""));
      }
    };
    if (status == "error" || !has_makespan) {
      ++counts.errors;
      problem("error");
      continue;
    }
    if (complete && !oracle_ok) {
      ++counts.wrong;
      problem("wrong result");
      continue;
    }
    // An incomplete run (an unrecoverable failure, a time limit) is a result: its probability is
    // estimated.
    if (complete) {
      ++counts.ok;
    } else {
      ++counts.incomplete;
    }
    samples.push_back({row["makespan"].get<double>(), complete});
  }
  return samples;
}

Json interval_json(const estimate::MeanInterval& m) {
  return {{"mean", m.mean}, {"low", m.low}, {"high", m.high}, {"std_error", m.std_error}};
}

Json estimate_json(const estimate::Estimate& e) {
  Json j = {{"method", e.method},
            {"probability", e.probability},
            {"samples", e.samples},
            {"complete", e.complete},
            {"conditional_mean", e.conditional_mean},
            {"makespan", interval_json(e.makespan)},
            {"incomplete", interval_json(e.incomplete)}};
  if (e.reference_makespan > 0) {
    j["overhead"] = interval_json(e.overhead);
    j["overhead_checkpointing"] = e.overhead_checkpointing;
    j["overhead_failures"] = interval_json(e.overhead_failures);
  }
  return j;
}

double student_t95_of(std::size_t n) { return n >= 2 ? estimate::student_t95(n - 1) : 0.0; }

std::string pct(double x) { return fmt::format("{:.4g}%", 100 * x); }
std::string percent_interval(const estimate::MeanInterval& m) {
  return fmt::format("{} [{}, {}]", pct(m.mean), pct(m.low), pct(m.high));
}

// The failure-free run of a sweep of one point: its row and its results.json.
std::pair<Json, Json> failure_free_point(const Json& document, std::uint64_t seed, const std::filesystem::path& dir,
                                         const std::string& name, std::size_t jobs, const std::string& config_file) {
  const auto rows = run_points(document, {seed}, dir, name, jobs);
  const Json& row = rows.front();
  if (row.value("status", std::string()) != "ok" || !row["makespan"].is_number()) {
    throw config::ConfigError(config_file, "",
                              fmt::format("the failure-free run {} failed ({}): see {}", name, row.value("reason", Json()).dump(),
                                          (dir / name).string()));
  }
  std::ifstream in(dir / name / "points" / row["id"].get<std::string>() / "results.json");
  return {row, in ? Json::parse(in) : Json()};
}

// Where a failure-free run's per-process checkpoints are saturated: saves that outlast the period
// (each process then skips checkpoint times, the processes drift apart, and a failure leaves the
// rest of the job slower: its cost grows with the job left after it, which a short job does not
// see), or processes that take different numbers of checkpoints. Empty when none is.
std::vector<std::string> saturation_flags(const Json& results, double period) {
  std::vector<std::string> flags;
  if (!results.is_object() || !results.contains("checkpoints") || !results["checkpoints"].is_array()) return flags;
  std::map<std::int64_t, std::vector<std::pair<double, double>>> by_process;  // (started, committed)
  for (const Json& c : results["checkpoints"]) {
    if (!c.contains("process") || !c["process"].is_number_integer() || !c["started"].is_number() || !c["committed"].is_number()) continue;
    by_process[c["process"].get<std::int64_t>()].push_back({c["started"].get<double>(), c["committed"].get<double>()});
  }
  if (by_process.size() < 2) return flags;
  std::size_t fewest = SIZE_MAX, most = 0;
  double save_seconds = 0, gap_seconds = 0;
  std::size_t saves = 0, gaps = 0;
  for (auto& [process, list] : by_process) {
    std::sort(list.begin(), list.end());
    fewest = std::min(fewest, list.size());
    most = std::max(most, list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      save_seconds += list[i].second - list[i].first;
      ++saves;
      if (i > 0) {
        gap_seconds += list[i].first - list[i - 1].first;
        ++gaps;
      }
    }
  }
  // The period asked for (/protocol/period), else the one seen between a process's checkpoints.
  const double between = period > 0 ? period : gaps > 0 ? gap_seconds / double(gaps) : 0;
  if (between > 0 && saves > 0 && save_seconds / double(saves) > between) {
    flags.push_back(fmt::format("a process's checkpoint lasts {} on average, longer than its period of {}: the schedule is saturated, "
                                "a failure slows the rest of the job, and the short job does not see it (the long-job estimate "
                                "is then too low)",
                                config::format_seconds(save_seconds / double(saves)), config::format_seconds(between)));
  }
  if (fewest > 0 && double(most) > 1.05 * double(fewest)) {
    flags.push_back(fmt::format("the processes take {} to {} checkpoints in the failure-free job: some skip checkpoint times, their "
                                "checkpoints drift apart and their logs grow with the job's age, which a short job does not see",
                                fewest, most));
  }
  return flags;
}

// --long-job: the job's failure-free run, then one failure at a random time and node of a
// steady-state stretch of a short job of `periods` periods, many times; combined with the failure
// process over the whole job (long_job.hpp).
int run_long_job(const EstimateOptions& options, const config::Config& cfg, const Json& base, const std::filesystem::path& dir) {
  std::ostream& say = options.quiet ? null_stream() : std::cout;
  const auto& failures = cfg.failures;
  const std::string app = base["application"].value("type", std::string());
  if (app != "stencil" && app != "cg" && app != "spmd") {
    throw config::ConfigError(options.config, "/application/type",
                              "--long-job needs an iterative application (stencil, cg, spmd): a failure must cost the same "
                              "wherever it strikes");
  }
  if (cfg.protocol.type == "none" || cfg.protocol.type == "lineage") {
    throw config::ConfigError(options.config, "/protocol/type",
                              fmt::format("--long-job needs a protocol that checkpoints periodically: with {} a failure costs "
                                          "more the later it strikes",
                                          cfg.protocol.type));
  }
  const auto iterations = base["application"].value("iterations", 0);
  // The period: a checkpoint every K iterations (/checkpoints), or /protocol/period seconds.
  std::optional<std::int64_t> every;
  const Json& protocol = base["protocol"];
  if (base.contains("checkpoints") && !protocol.contains("period")) {
    const Json& c = base["checkpoints"];
    if (!c.is_object()) {
      throw config::ConfigError(options.config, "/checkpoints", "--long-job needs one checkpoint placement, not a list");
    }
    if (c.contains("every")) {
      every = c["every"].get<std::int64_t>();
    } else {
      every = std::max<std::int64_t>(1, std::llround(double(iterations) / double(c["count"].get<std::int64_t>() + 1)));
      std::cerr << fmt::format("ftsim estimate: /checkpoints/count {} over {} iterations is a checkpoint every {} iterations\n",
                               c["count"].get<std::int64_t>(), iterations, *every);
    }
  }

  // 1. The whole job without failures (two seeds: it must not depend on them) and none's.
  Json failure_free = base;
  failure_free["failures"] = {{"model", "none"}};
  if (options.reference_makespan <= 0) failure_free["run"]["reference"] = true;
  const auto free_rows = run_points(failure_free, failure_free_seeds(cfg), dir, "failure-free", options.jobs);
  for (const Json& row : free_rows) {
    if (row.value("status", std::string()) != "ok" || !row["makespan"].is_number()) {
      throw config::ConfigError(options.config, "", fmt::format("the failure-free run failed ({})", row.value("reason", Json()).dump()));
    }
  }
  const double t0 = free_rows[0]["makespan"].get<double>();
  const double reference = options.reference_makespan > 0                    ? options.reference_makespan
                           : free_rows[0]["reference_makespan"].is_number() ? free_rows[0]["reference_makespan"].get<double>()
                                                                            : 0;
  if (free_rows.size() > 1 && free_rows[1]["makespan"].get<double>() != t0) {
    throw config::ConfigError(options.config, "", "the failure-free makespan depends on the seed: the estimate needs one");
  }
  // /protocol/period in seconds (a number or a duration), 0 without one.
  const Json& period = cfg.protocol.block.value("period", Json());
  const double seconds = period.is_number()   ? period.get<double>()
                         : period.is_string() ? config::parse_duration_seconds(period.get<std::string>()).value_or(0)
                                              : 0;
  std::vector<std::string> schedule_flags;
  {
    std::ifstream in(dir / "failure-free" / "points" / free_rows[0].value("id", std::string()) / "results.json");
    if (in) schedule_flags = saturation_flags(Json::parse(in), seconds);
  }
  // 2. The short job: `periods` periods.
  std::int64_t short_iterations = 0;
  if (every) {
    short_iterations = *every * std::int64_t(options.periods);
  } else {
    if (!(seconds > 0)) {
      throw config::ConfigError(options.config, "/protocol",
                                "--long-job needs a periodic schedule: /checkpoints with every or count, or /protocol/period");
    }
    // In the run's time (checkpoints included), and never fewer than two iterations a period: a
    // short job of one iteration is all start and end.
    short_iterations = std::max<std::int64_t>(std::int64_t(std::ceil(double(options.periods) * seconds / (t0 / double(iterations)))),
                                              2 * std::int64_t(options.periods));
  }
  if (short_iterations * 2 > iterations) {
    throw config::ConfigError(options.config, "/application/iterations",
                              fmt::format("the job has fewer than {} periods ({} iterations, a short job of {} periods has {}): "
                                          "estimate it without --long-job",
                                          2 * options.periods, iterations, options.periods, short_iterations));
  }
  Json short_job = base;
  short_job["application"]["iterations"] = short_iterations;
  short_job["failures"] = {{"model", "none"}};
  if (short_job.contains("run") && short_job["run"].is_object()) short_job["run"].erase("reference");
  const auto [short_row, short_results] = failure_free_point(short_job, cfg.seed, dir, "short-failure-free", options.jobs, options.config);
  const double short_makespan = short_row["makespan"].get<double>();
  // The failures strike between the ends of the 2nd and the 4th period (whole periods, past the
  // start and before the end of the short job): by checkpoint commits where the run has them.
  const double periods = double(options.periods);
  double window_start = short_makespan * 2 / periods, window_end = short_makespan * 4 / periods;
  std::vector<double> commits;  // of the failure-free short job's coordinated checkpoints, sorted
  if (short_results.is_object() && short_results.contains("checkpoints") && short_results["checkpoints"].is_array()) {
    for (const Json& c : short_results["checkpoints"]) {
      // Coordinated checkpoints only (uncoordinated ones name their process).
      const bool coordinated = !c.contains("process") || c["process"].is_null();
      if (c.contains("committed") && c["committed"].is_number() && coordinated) commits.push_back(c["committed"].get<double>());
    }
    std::sort(commits.begin(), commits.end());
    if (commits.size() >= 4) {
      window_start = commits[1];
      window_end = commits[3];
    }
  }
  // 3. One failure per sample, at a time uniform in the window and a node uniform, drawn as a Latin
  //    hypercube (McKay et al. 1979): the window and the nodes each cut into n equal strata, sample
  //    i in time stratum a(i) and node stratum b(i) of two random permutations, uniform within
  //    them. Each failure is still uniform in time and node, so the mean cost stays unbiased; its
  //    variance is at most n / (n - 1) times that of independent draws (Owen 1997) and far lower
  //    where the cost varies smoothly with the time, as a period's lost work does. The interval
  //    below uses the independent draws' formula: conservative.
  std::uint64_t stream = options.seed_base * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
  const auto uniform = [&stream] { return double(config::splitmix64(stream) >> 11) * 0x1.0p-53; };
  const auto permutation = [&uniform](std::size_t n) {
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[std::min(i - 1, std::size_t(uniform() * double(i)))]);
    return order;
  };
  const std::vector<std::size_t> time_strata = permutation(options.samples), node_strata = permutation(options.samples);
  Json failure_list = Json::array();
  const std::uint32_t machines = cfg.platform.machines();
  const double strata = double(options.samples);
  for (std::size_t i = 0; i < options.samples; ++i) {
    const double time = window_start + (double(time_strata[i]) + uniform()) / strata * (window_end - window_start);
    const double node_position = (double(node_strata[i]) + uniform()) / strata;
    const auto machine = std::min<std::uint32_t>(machines - 1, std::uint32_t(node_position * machines));
    failure_list.push_back(one_failure(cfg, time, machine));
  }
  std::cerr << fmt::format("ftsim estimate: seed base {} for the failures of the short job\n", options.seed_base);
  const auto one_failure_rows =
      run_sweep_section(short_job, {{"zip", {{"/failures", failure_list}}}}, options.samples, dir, "one-failure", options.jobs);
  RunCounts counts;
  const auto samples = samples_of(one_failure_rows, counts);
  // Stationarity: a failure must leave the checkpoints as they were. Bytes per checkpoint of the
  // runs with a failure against the failure-free short job's (the runs have about half their
  // checkpoints after the failure).
  const auto bytes_per_checkpoint = [](const Json& row) -> std::optional<double> {
    if (!row.contains("checkpoint_bytes") || !row["checkpoint_bytes"].is_number() || !row["checkpoint_count"].is_number() ||
        row["checkpoint_count"].get<double>() <= 0) {
      return std::nullopt;
    }
    return row["checkpoint_bytes"].get<double>() / row["checkpoint_count"].get<double>();
  };
  std::optional<double> checkpoint_growth;
  if (const auto free_bytes = bytes_per_checkpoint(short_row); free_bytes && *free_bytes > 0) {
    double sum = 0;
    std::size_t n = 0;
    for (const Json& row : one_failure_rows) {
      if (const auto b = bytes_per_checkpoint(row)) {
        sum += *b;
        ++n;
      }
    }
    if (n > 0) checkpoint_growth = sum / double(n) / *free_bytes - 1;
  }
  std::vector<double> costs;
  for (const auto& s : samples) {
    if (s.complete) costs.push_back(s.makespan - short_makespan);
  }
  if (costs.size() < 2) throw config::ConfigError((dir / "one-failure.json").string(), "", "fewer than 2 runs with a failure completed");
  estimate::RenewalLaw law;
  law.mtbf = failures.mtbf;
  law.shape = failures.model == config::FailureModel::weibull ? failures.shape : 1.0;
  law.downtime = failures.downtime;
  law.nodes = machines;
  law.stationary = failures.stationary;
  // The check of stationarity that needs no assumption: a few runs of the whole job with one
  // failure at a time uniform in its middle 60% and a node uniform; their mean cost against the
  // short job's.
  std::optional<estimate::MeanInterval> whole_cost;
  if (options.check >= 2) {
    Json checks = Json::array();
    std::uint64_t check_stream = options.seed_base * 0xd1b54a32d192ed03ULL + 0x8cb92ba72f3d8dd7ULL;
    const auto check_uniform = [&check_stream] { return double(config::splitmix64(check_stream) >> 11) * 0x1.0p-53; };
    for (std::size_t i = 0; i < options.check; ++i) {
      const double time = t0 * (0.2 + 0.6 * check_uniform());
      const auto machine = std::min<std::uint32_t>(machines - 1, std::uint32_t(check_uniform() * machines));
      checks.push_back(one_failure(cfg, time, machine));
    }
    Json whole = base;
    if (whole.contains("run") && whole["run"].is_object()) whole["run"].erase("reference");
    const auto check_rows =
        run_sweep_section(whole, {{"zip", {{"/failures", checks}}}}, options.check, dir, "whole-job-check", options.jobs);
    RunCounts check_counts;
    std::vector<double> check_costs;
    for (const auto& sample : samples_of(check_rows, check_counts)) {
      if (sample.complete) check_costs.push_back(sample.makespan - t0);
    }
    counts.wrong += check_counts.wrong;
    counts.errors += check_counts.errors;
    for (const auto& p : check_counts.problems) counts.problems.push_back(p);
    if (check_costs.size() >= 2) {
      std::vector<estimate::Sample> as_samples;
      for (double c : check_costs) as_samples.push_back({c + 1.0, true});
      const auto m = estimate::brute_force_estimate(1.0, 0, as_samples).makespan;
      whole_cost = estimate::MeanInterval{m.mean - 1.0, m.low - 1.0, m.high - 1.0, m.std_error};
    }
  }
  // A protocol that rolls every node back to its last commit, under exponential failures: the
  // regenerative estimate, exact to every order in the failure rate (docs/advise.md#regenerative-estimate);
  // otherwise the renewal estimate, exact to first order.
  const protocols::ProtocolModule& module = protocols::protocol_module(cfg);
  std::vector<estimate::PeriodFailure> placed;
  if (module.rolls_back_to_commit && law.shape == 1 && commits.size() >= 4) {
    for (const Json& row : one_failure_rows) {
      if (!row.value("complete", false) || !row.contains("makespan") || !row["makespan"].is_number()) continue;
      const Json& events = row.value("failures.events", Json());
      if (!events.is_array() || events.size() != 1 || !events[0].contains("time")) continue;
      const double time = events[0]["time"].get<double>();
      // The period around the failure: from the last commit before it (or the start) to the next.
      const auto next = std::upper_bound(commits.begin(), commits.end(), time);
      if (next == commits.end()) continue;
      const double last = next == commits.begin() ? 0.0 : *(next - 1);
      placed.push_back({row["makespan"].get<double>() - short_makespan, time - last, *next - last});
    }
  }
  const bool regenerative = placed.size() >= 2 && placed.size() == costs.size();
  const estimate::LongJobEstimate e =
      regenerative ? estimate::regenerative_estimate(t0, law, placed) : estimate::long_job_estimate(t0, law, costs);
  auto flags = e.flags;
  flags.insert(flags.end(), schedule_flags.begin(), schedule_flags.end());
  if (checkpoint_growth && std::fabs(*checkpoint_growth) > 0.05) {
    flags.push_back(fmt::format("checkpoints are {:+.1f}% bytes after a failure than without: a failure's cost grows with the job "
                                "left after it, which a short job does not see; the long-job estimate is then {}",
                                100 * *checkpoint_growth, *checkpoint_growth > 0 ? "too low" : "too high"));
  }
  if (whole_cost) {
    // Different beyond both sampling errors (3 standard errors of the difference) and by more than 20%.
    const double difference = whole_cost->mean - e.cost_mean;
    const double spread = std::sqrt(whole_cost->std_error * whole_cost->std_error + e.cost_std_error * e.cost_std_error);
    if (std::fabs(difference) > 3 * spread && std::fabs(difference) > 0.2 * std::max(e.cost_mean, 1e-300)) {
      flags.push_back(fmt::format("a failure costs {} in the whole job ({} runs) against {} in the short job: its cost depends on "
                                  "where it strikes, and the long-job estimate is not to be trusted for the failures",
                                  config::format_seconds(whole_cost->mean), options.check, config::format_seconds(e.cost_mean)));
    }
  }
  if (counts.incomplete > 0) {
    flags.push_back(fmt::format("{} of {} runs with one failure did not complete: the job's loss is not estimated here",
                                counts.incomplete, samples.size()));
  }

  say << fmt::format("\n{}: protocol {}, {} failures, per-node MTBF {}, {} nodes; long job: {} iterations, failure costs "
                           "from a short job of {} iterations\n",
                           cfg.name, cfg.protocol.type, failures.model == config::FailureModel::weibull ? "Weibull" : "exponential",
                           config::format_seconds(failures.mtbf), cfg.platform.nodes, iterations, short_iterations);
  run::Table table({"quantity", "value"});
  table.add_row({"failure-free makespan (simulated)", config::format_seconds(t0)});
  if (reference > 0) table.add_row({"none's failure-free makespan", config::format_seconds(reference)});
  table.add_row({"cost of one failure (mean [90%])",
                 fmt::format("{} [{}, {}] over {} runs", config::format_seconds(e.cost_mean),
                             config::format_seconds(e.cost_mean - student_t95_of(costs.size()) * e.cost_std_error),
                             config::format_seconds(e.cost_mean + student_t95_of(costs.size()) * e.cost_std_error), costs.size())});
  if (whole_cost) {
    table.add_row({"cost of one failure in the whole job (check)",
                   fmt::format("{} [{}, {}] over {} runs", config::format_seconds(whole_cost->mean), config::format_seconds(whole_cost->low),
                               config::format_seconds(whole_cost->high), options.check)});
  }
  if (regenerative) {
    table.add_row({"restart: cost beyond the lost progress (mean [90%])",
                   fmt::format("{} [{}, {}]", config::format_seconds(e.restart_mean),
                               config::format_seconds(e.restart_mean - student_t95_of(costs.size()) * e.restart_std_error),
                               config::format_seconds(e.restart_mean + student_t95_of(costs.size()) * e.restart_std_error))});
  }
  table.add_row({"expected failures", fmt::format("{:.4g}", e.expected_failures)});
  table.add_row({"model", regenerative ? "regenerative (rollback to the last commit, exponential failures)"
                                       : "renewal (first order in the failure rate)"});
  table.add_row({"expected makespan [90%]", fmt::format("{} [{}, {}]", config::format_seconds(e.makespan), config::format_seconds(e.low),
                                                        config::format_seconds(e.high))});
  if (reference > 0) {
    table.add_row({"overhead [90%]", fmt::format("{} [{}, {}]", pct(e.makespan / reference - 1), pct(e.low / reference - 1),
                                                 pct(e.high / reference - 1))});
    table.add_row({"of which checkpointing", pct(t0 / reference - 1)});
    table.add_row({"of which failures [90%]", fmt::format("{} [{}, {}]", pct((e.makespan - t0) / reference),
                                                          pct((e.low - t0) / reference), pct((e.high - t0) / reference))});
  }
  table.print(say);
  for (const auto& f : flags) say << "warning: " << f << "\n";
  Json out = {{"config", options.config},
              {"name", cfg.name},
              {"protocol", cfg.protocol.type},
              {"method", "long-job"},
              {"model", regenerative ? "regenerative" : "renewal"},
              {"seed_base", options.seed_base},
              {"failure_free_makespan", t0},
              {"reference_makespan", reference > 0 ? Json(reference) : Json()},
              {"short_job", {{"iterations", short_iterations}, {"makespan", short_makespan}, {"window", {window_start, window_end}}}},
              {"failure_cost", {{"mean", e.cost_mean}, {"std_error", e.cost_std_error}, {"samples", costs.size()}}},
              {"restart", regenerative ? Json{{"mean", e.restart_mean}, {"std_error", e.restart_std_error}} : Json()},
              {"failure_free_checkpoints", free_rows[0].value("checkpoint_count", Json())},
              {"whole_job_failure_cost", whole_cost ? Json{{"mean", whole_cost->mean}, {"std_error", whole_cost->std_error},
                                                           {"samples", options.check}}
                                                    : Json()},
              {"expected_failures", e.expected_failures},
              {"makespan", {{"mean", e.makespan}, {"low", e.low}, {"high", e.high}}},
              {"recovering_share", e.recovering_share},
              {"checkpoint_growth", checkpoint_growth ? Json(*checkpoint_growth) : Json()},
              {"flags", flags},
              {"runs", {{"complete", counts.ok}, {"incomplete", counts.incomplete}, {"wrong", counts.wrong}, {"errors", counts.errors}}}};
  if (reference > 0) {
    out["overhead"] = {{"mean", e.makespan / reference - 1}, {"low", e.low / reference - 1}, {"high", e.high / reference - 1}};
  }
  for (const std::filesystem::path& path : {dir / "estimate.json", std::filesystem::path(options.json)}) {
    if (path.empty()) continue;
    std::ofstream f(path);
    f << out.dump(2) << "\n";
  }
  say << "estimate: " << (dir / "estimate.json").string() << "\n";
  if (counts.wrong > 0 || counts.errors > 0) {
    std::cerr << fmt::format("ftsim estimate: {} wrong result(s) and {} error(s) among the runs\n", counts.wrong, counts.errors);
    for (const auto& p : counts.problems) std::cerr << "  " << p << "\n";
    return kExitRunFailed;
  }
  return kExitOk;
}

}  // namespace

int run_estimate(const EstimateOptions& options) {
  std::ostream& say = options.quiet ? null_stream() : std::cout;
  if (under_mpirun()) {
    throw config::ConfigError("ftsim estimate", "",
                              "not under mpirun: run the sweeps it writes (DIR/*.json) under mpirun with `ftsim sweep`, "
                              "then ftsim estimate again on one process to combine their rows");
  }
  const auto overrides = config::parse_overrides(options.sets, options.cfgs);
  const config::Config cfg = protocols::load_config(options.config, overrides);
  const auto& failures = cfg.failures;
  if (failures.model != config::FailureModel::exponential && failures.model != config::FailureModel::weibull) {
    throw config::ConfigError(options.config, "/failures/model",
                              "ftsim estimate needs failures drawn at random (exponential or weibull); a list, trace or log "
                              "is one scenario: ftsim run it");
  }
  if (failures.first_before > 0) {
    throw config::ConfigError(options.config, "/failures/first_before", "is set by ftsim estimate itself: remove it");
  }
  if (failures.prediction) {
    throw config::ConfigError(options.config, "/failures/prediction",
                              "ftsim estimate cannot condition failures that a predictor announces ahead");
  }
  if (options.samples < 2) throw config::ConfigError("--samples", "", "at least 2 samples are needed for an interval");
  const std::filesystem::path dir = options.output_dir.empty() ? std::filesystem::path("out") / (cfg.name + "-estimate")
                                                               : std::filesystem::path(options.output_dir);
  std::filesystem::create_directories(dir);
  const Json base = config::with_absolute_file_paths(cfg.document, options.config);
  if (options.long_job) return run_long_job(options, cfg, base, dir);

  // 1. The protocol without failures (twice, with two seeds: the identity below needs a
  //    failure-free run that the seed does not change), and none's for the overheads.
  Json failure_free = base;
  failure_free["failures"] = {{"model", "none"}};
  if (options.reference_makespan <= 0) failure_free["run"]["reference"] = true;
  const std::vector<Json> free_rows = run_points(failure_free, failure_free_seeds(cfg), dir, "failure-free", options.jobs);
  std::vector<double> free_makespans;
  double reference = 0;
  for (const Json& row : free_rows) {
    if (row.value("status", std::string()) != "ok" || !row["makespan"].is_number()) {
      throw config::ConfigError(options.config, "",
                                fmt::format("the failure-free run failed ({}): see {}", row.value("reason", Json()).dump(),
                                            (dir / "failure-free").string()));
    }
    free_makespans.push_back(row["makespan"].get<double>());
    if (options.reference_makespan > 0) {
      reference = options.reference_makespan;
    } else if (row["reference_makespan"].is_number()) {
      reference = row["reference_makespan"].get<double>();
    }
  }
  const double t0 = free_makespans.front();
  if (free_makespans.size() > 1 && free_makespans[1] != t0) {
    throw config::ConfigError(options.config, "",
                              fmt::format("the failure-free makespan depends on the seed ({} and {}): the estimator needs "
                                          "one failure-free run for all samples (docs/advise.md)",
                                          config::format_seconds(t0), config::format_seconds(free_makespans[1])));
  }

  std::vector<std::uint64_t> seeds;
  for (std::size_t i = 1; i <= options.samples; ++i) seeds.push_back(options.seed_base + i);
  std::cerr << fmt::format("ftsim estimate: seed base {} (seeds {} to {})\n", options.seed_base, seeds.front(), seeds.back());
  Json runs = base;
  if (runs.contains("run") && runs["run"].is_object()) runs["run"].erase("reference");

  std::vector<estimate::Estimate> estimates;
  RunCounts counts;
  double probability = 1;
  if (options.method == "conditioned" || options.method == "both") {
    // 2. E[M | S]: failures drawn given a first one before T0.
    Json conditioned = runs;
    conditioned["failures"]["first_before"] = t0;
    config::FailureConfig with_condition = failures;
    with_condition.first_before = t0;
    probability = world::FailureSchedule::condition_probability(with_condition, cfg.platform.machines());
    const auto samples = samples_of(run_points(conditioned, seeds, dir, "conditioned", options.jobs), counts);
    if (!samples.empty()) estimates.push_back(estimate::conditioned_estimate(t0, reference, probability, samples));
  }
  if (options.method == "brute" || options.method == "both") {
    const auto samples = samples_of(run_points(runs, seeds, dir, "brute", options.jobs), counts);
    if (!samples.empty()) estimates.push_back(estimate::brute_force_estimate(t0, reference, samples));
  }

  // The answer.
  say << fmt::format("\n{}: protocol {}, {} failures, per-node MTBF {}{}, {} nodes\n", cfg.name, cfg.protocol.type,
                           failures.model == config::FailureModel::weibull ? "Weibull" : "exponential",
                           config::format_seconds(failures.mtbf),
                           failures.model == config::FailureModel::weibull ? fmt::format(" (shape {})", failures.shape) : "",
                           cfg.platform.nodes);
  say << fmt::format("failure-free makespan {} (none: {}); P(a failure before its end) = {:.4g}\n\n",
                           config::format_seconds(t0), reference > 0 ? config::format_seconds(reference) : "unknown", probability);
  run::Table table({"method", "samples", "expected makespan [90%]", "overhead [90%]", "of which failures [90%]", "P(incomplete) [90%]"});
  for (const auto& e : estimates) {
    table.add_row({e.method, fmt::format("{} ({} complete)", e.samples, e.complete),
                   fmt::format("{:.6g} s [{:.6g}, {:.6g}]", e.makespan.mean, e.makespan.low, e.makespan.high),
                   reference > 0 ? percent_interval(e.overhead) : "-", reference > 0 ? percent_interval(e.overhead_failures) : "-",
                   fmt::format("{:.3g} [{:.3g}, {:.3g}]", e.incomplete.mean, e.incomplete.low, e.incomplete.high)});
  }
  table.print(say);
  if (reference > 0) say << "overhead: checkpointing " << pct(t0 / reference - 1) << " (failure-free, exact)\n";
  if (counts.incomplete > 0) {
    say << fmt::format("{} run(s) did not complete: the expected makespan is over the complete runs (docs/advise.md)\n",
                             counts.incomplete);
  }

  Json out = {{"config", options.config},
              {"name", cfg.name},
              {"protocol", cfg.protocol.type},
              {"seed_base", options.seed_base},
              {"failure_free_makespan", t0},
              {"failure_free_checkpoints", free_rows[0].value("checkpoint_count", Json())},
              {"reference_makespan", reference > 0 ? Json(reference) : Json()},
              {"probability", probability},
              {"runs", {{"complete", counts.ok}, {"incomplete", counts.incomplete}, {"wrong", counts.wrong}, {"errors", counts.errors}}},
              {"estimates", Json::array()}};
  for (const auto& e : estimates) out["estimates"].push_back(estimate_json(e));
  for (const std::filesystem::path& path : {dir / "estimate.json", std::filesystem::path(options.json)}) {
    if (path.empty()) continue;
    std::ofstream file(path);
    file << out.dump(2) << "\n";
    if (!file) throw config::ConfigError(path.string(), "", "cannot write this file");
  }
  say << "estimate: " << (dir / "estimate.json").string() << "\n";
  if (counts.wrong > 0 || counts.errors > 0) {
    std::cerr << fmt::format("ftsim estimate: {} wrong result(s) and {} error(s) among the samples: the estimate leaves them out "
                             "and is not to be trusted\n",
                             counts.wrong, counts.errors);
    for (const auto& p : counts.problems) std::cerr << "  " << p << "\n";
    return kExitRunFailed;
  }
  return kExitOk;
}

Command add_estimate_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "estimate", "Expected makespan and overheads under the config's failure model, with 90% intervals, at any MTBF "
                  "(rare-event sampling: docs/advise.md)");
  auto options = std::make_shared<EstimateOptions>();
  command->add_option("CONFIG", options->config, "JSON config file with /failures/model exponential or weibull")->required();
  command->add_option("-n,--samples", options->samples, "Simulations with failures per method (default 100)");
  command->add_option("--method", options->method,
                      "conditioned (failures drawn given one before the failure-free end; default), brute (drawn as they "
                      "come) or both")
      ->check(CLI::IsMember({"conditioned", "brute", "both"}));
  command->add_option("-j,--jobs", options->jobs, "Simulations at once (default 1)")->check(CLI::PositiveNumber);
  command->add_option("--seed-base", options->seed_base, "The samples' seeds are BASE + 1 ... BASE + N (default 0)");
  command->add_option("-o,--output", options->output_dir, "Output directory (default: out/<config name>-estimate/)");
  command->add_option("--json", options->json, "Also write the estimate to this file");
  command->add_flag("--long-job", options->long_job,
                    "Estimate a long job from a short one: one failure at a random time and node of a few periods, N times, "
                    "combined with the failure process over the whole job (iterative applications, periodic protocols)");
  command->add_option("--check", options->check,
                      "--long-job: runs of the whole job with one failure whose mean cost is compared with the short job's "
                      "(default 8; 0: none)");
  command->add_option("--periods", options->periods, "--long-job: periods of the short job (default 6, at least 5)")
      ->check(CLI::Range(5, 1000));
  command->add_option("--set", options->sets, config::kSetOptionHelp)->allow_extra_args(false);
  command->add_option("--cfg", options->cfgs, config::kCfgOptionHelp)->allow_extra_args(false);
  return [options] { return run_estimate(*options); };
}

}  // namespace ftsim::cli
