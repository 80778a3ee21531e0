// ftsim advise CONFIG [--mtbf D [--shape K] | --failures LOG --format lanl|fta [--system ID]]
//              [--protocols global,buddy,...] [--budget SECONDS] [-n SAMPLES] [-j N] [-o DIR] [--json FILE]:
// which protocol and which checkpoint period cost least under a failure model, and how sure that is
// (docs/advise.md#ftsim-advise). For each protocol: its checkpoint cost measured without failures,
// Daly's period from it, candidates around that period each estimated by `ftsim estimate` (the
// rare-event estimator when failures are rare in a job, the long-job estimate when they are not),
// a fitted curve overhead(P) = a/P + b P + c whose minimum is then estimated too; then a ranking.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/multilevel_period.hpp"
#include "analysis/optimal_period.hpp"
#include "graphs/buddy_mapping.hpp"
#include "protocols/registry.hpp"
#include "sim/cli/commands.hpp"
#include "sim/cli/estimate_command.hpp"
#include "sim/config/config.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/config_overrides.hpp"
#include "sim/config/failure_log.hpp"
#include "sim/config/relative_paths.hpp"
#include "sim/config/units.hpp"
#include "sim/estimate/failure_fit.hpp"
#include "sim/estimate/rare_event_estimate.hpp"
#include "sim/run/table.hpp"
#include "sim/sweep/sweep_options.hpp"

namespace ftsim::cli {

namespace {

using Json = nlohmann::json;

struct AdviseOptions {
  std::string config, output_dir, json;
  std::string mtbf;            // a duration: exponential (or Weibull with --shape) at this per-node MTBF
  std::optional<double> shape;
  std::string log, format = "lanl";  // --failures LOG: the node law fitted to it
  std::optional<std::int64_t> system;
  std::string protocols = "global,buddy,cck,uncoordinated";
  double budget = 600;         // wall seconds
  std::size_t samples = 40;    // per candidate
  std::size_t jobs = 1;
  std::uint64_t seed_base = 0;
  std::vector<std::string> sets, cfgs;
  bool levels = false;  // --levels: which of global's /protocol/levels, how often (docs/multilevel.md)
};

struct Candidate {
  std::int64_t every = 0;  // a checkpoint every K iterations
  double period = 0;       // K x the time of an iteration, seconds
  std::string method;
  estimate::MeanInterval overhead;  // over none's failure-free makespan
  double checkpointing = 0, failures = 0;
  bool fitted = false;  // the fitted curve's minimum
};

struct ProtocolAdvice {
  std::string protocol;
  std::string skipped;  // why it was not evaluated
  double checkpoint_cost = 0;  // C, measured without failures
  double daly_period = 0;      // work seconds between checkpoints
  double daly_overhead = -1;   // Daly's model at its period (blocking protocols)
  std::vector<Candidate> candidates;
  std::optional<double> fitted_period;
  std::size_t best = 0;
  // The search's state: the protocol's block, the candidates tried (checkpoint every K iterations).
  Json block;
  std::set<std::int64_t> tried;
};

// A candidate whose estimate could not be trusted: the protocol is reported with the reason.
struct CandidateFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Json read_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw config::ConfigError(path.string(), "", "cannot read this file");
  return Json::parse(in);
}

// The protocol's block as advise tries it; "" with a reason when the platform cannot run it.
Json protocol_block(const std::string& protocol, bool storage, std::uint32_t nodes, std::string& skipped) {
  if (protocol == "global") return {{"type", "global"}, {"at", "cuts"}, {"storage", storage ? "stable" : "buddy"}};
  if (protocol == "buddy") return {{"type", "buddy"}};
  if (protocol == "cck") {
    if (!storage) skipped = "needs checkpoint servers: /platform/storage/hosts";
    return {{"type", "cck"}, {"at", "cuts"}};
  }
  if (protocol == "uncoordinated") {
    if (!storage) skipped = "needs stable storage: /platform/storage/hosts";
    return {{"type", "uncoordinated"}, {"logging", "send-deterministic"}, {"schedule", "clusters"},
            {"clusters", std::min<std::uint32_t>(4, nodes)}};
  }
  skipped = "advise tries global, buddy, cck and uncoordinated (periodic protocols)";
  return {};
}

// Weighted least squares of y = a/P + b P + c; the minimum sqrt(a/b) when a, b > 0.
std::optional<double> fitted_minimum(const std::vector<Candidate>& candidates) {
  if (candidates.size() < 3) return std::nullopt;
  double m[3][4] = {};
  for (const auto& c : candidates) {
    const double x[3] = {1 / c.period, c.period, 1};
    const double se = std::max(c.overhead.std_error, 1e-6 * std::fabs(c.overhead.mean) + 1e-12);
    const double w = 1 / (se * se);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) m[i][j] += w * x[i] * x[j];
      m[i][3] += w * x[i] * c.overhead.mean;
    }
  }
  // Gaussian elimination with partial pivoting.
  for (int i = 0; i < 3; ++i) {
    int pivot = i;
    for (int r = i + 1; r < 3; ++r) {
      if (std::fabs(m[r][i]) > std::fabs(m[pivot][i])) pivot = r;
    }
    for (int k = 0; k < 4; ++k) std::swap(m[i][k], m[pivot][k]);
    if (std::fabs(m[i][i]) < 1e-300) return std::nullopt;
    for (int r = 0; r < 3; ++r) {
      if (r == i) continue;
      const double f = m[r][i] / m[i][i];
      for (int k = i; k < 4; ++k) m[r][k] -= f * m[i][k];
    }
  }
  const double a = m[0][3] / m[0][0], b = m[1][3] / m[1][1];
  if (!(a > 0 && b > 0)) return std::nullopt;
  return std::sqrt(a / b);
}

class Advisor {
public:
  Advisor(const AdviseOptions& options) : options_(options), start_(std::chrono::steady_clock::now()) {}

  int run();

private:
  // Reads the config and the failure law, runs none failure-free: what every mode needs.
  config::Config setup();
  // --levels: global's checkpoint levels of the config, which subset and which periods.
  int run_levels(const config::Config& cfg);
  // The makespan of a failure-free run of `document` (one seed), in `dir`; throws CandidateFailed.
  double failure_free(Json document, const std::filesystem::path& dir);
  int write_advice(Json& out) const;  // advice.json (and --json), its path printed
  double elapsed() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  bool within_budget() const { return elapsed() < options_.budget; }
  // Estimate of `document` in `dir`: its estimate.json.
  Json estimate(const Json& document, const std::filesystem::path& dir, const std::string& method);
  void failure_model(Json& base, const config::Config& cfg);
  Candidate evaluate(const std::string& protocol, const Json& block, std::int64_t every);
  // The search, in rounds over the protocols so that a budget shortens every protocol's search
  // rather than leaving the last ones out: each step runs under `guarded` (a candidate that fails
  // reports its protocol with the reason).
  void search(std::vector<ProtocolAdvice>& advice);
  void probe(ProtocolAdvice& advice);
  void try_factor(ProtocolAdvice& advice, double factor);
  void refine(ProtocolAdvice& advice);
  template <class Step>
  void guarded(ProtocolAdvice& advice, Step step);
  std::int64_t clamp_every(double every) const {
    // Up to the whole job: a checkpoint every `iterations` iterations is no checkpoint at all.
    return std::clamp<std::int64_t>(std::llround(every), 1, std::max<std::int64_t>(1, iterations_));
  }

  const AdviseOptions& options_;
  std::chrono::steady_clock::time_point start_;
  std::filesystem::path dir_;
  Json base_;
  std::string failure_note_;
  double mtbf_ = 0, shape_ = 1, downtime_ = 0;
  std::uint32_t machines_ = 1;
  std::int64_t iterations_ = 0;
  double none_makespan_ = 0, iteration_seconds_ = 0;
  bool storage_ = false;
};

Json Advisor::estimate(const Json& document, const std::filesystem::path& dir, const std::string& method) {
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "config.json";
  {
    std::ofstream out(file);
    out << document.dump(1) << "\n";
  }
  EstimateOptions e;
  e.config = file.string();
  e.output_dir = (dir / "estimate").string();
  e.samples = options_.samples;
  e.jobs = options_.jobs;
  e.seed_base = options_.seed_base;
  e.quiet = true;
  e.reference_makespan = none_makespan_;
  e.check = 4;  // long-job: the whole-job check, lighter than ftsim estimate's default
  e.long_job = method == "long-job";
  e.method = method == "long-job" ? "conditioned" : method;
  const int code = run_estimate(e);
  Json result = read_json(dir / "estimate" / "estimate.json");
  const bool empty = method != "long-job" && (!result.contains("estimates") || result["estimates"].empty());
  if (code != kExitOk || empty) {
    throw CandidateFailed(fmt::format("its estimate in {} has wrong results or errors among its runs (runs: {})",
                                      (dir / "estimate").string(), result.value("runs", Json()).dump()));
  }
  return result;
}

void Advisor::failure_model(Json& base, const config::Config& cfg) {
  downtime_ = cfg.failures.downtime;
  if (!options_.log.empty()) {
    const auto log = options_.format == "lanl" ? config::read_lanl_log(options_.log) : config::read_fta_log(options_.log);
    std::map<std::int64_t, std::vector<double>> by_node;
    for (const auto& f : log) {
      if (options_.system && f.system != *options_.system) continue;
      if (f.node != config::LogFailure::kNoNode) by_node[f.node].push_back(f.start);
    }
    std::vector<double> gaps;
    for (auto& [node, dates] : by_node) {
      const auto g = estimate::gaps_between(dates);
      gaps.insert(gaps.end(), g.begin(), g.end());
    }
    if (gaps.size() < 2) throw config::ConfigError(options_.log, "", "fewer than 2 times between failures of one node to fit");
    const auto fit = estimate::fit_gaps(gaps);
    if (fit.weibull_preferred) {
      mtbf_ = fit.weibull.mtbf.value;
      shape_ = fit.weibull.shape.value;
    } else {
      mtbf_ = fit.exponential.mtbf.value;
    }
    failure_note_ = fmt::format("node failures fitted to {}{}: {} per-node MTBF {} [{}, {}]{}", options_.log,
                                options_.system ? fmt::format(" (system {})", *options_.system) : "",
                                fit.weibull_preferred ? "Weibull" : "exponential", config::format_seconds(mtbf_),
                                config::format_seconds(fit.weibull_preferred ? fit.weibull.mtbf.low : fit.exponential.mtbf.low),
                                config::format_seconds(fit.weibull_preferred ? fit.weibull.mtbf.high : fit.exponential.mtbf.high),
                                fit.weibull_preferred ? fmt::format(", shape {:.3f}", shape_) : "");
  } else if (!options_.mtbf.empty()) {
    const auto seconds = config::parse_duration_seconds(options_.mtbf);
    if (!seconds || *seconds <= 0) throw config::ConfigError("--mtbf", "", "expected a positive duration (\"1d\", \"6h\"), got \"" + options_.mtbf + "\"");
    mtbf_ = *seconds;
    shape_ = options_.shape.value_or(1.0);
    failure_note_ = fmt::format("{} node failures, per-node MTBF {}", shape_ == 1 ? "exponential" : fmt::format("Weibull (shape {})", shape_),
                                config::format_seconds(mtbf_));
  } else {
    if (cfg.failures.model != config::FailureModel::exponential && cfg.failures.model != config::FailureModel::weibull) {
      throw config::ConfigError(options_.config, "/failures/model",
                                "advise needs a failure law: exponential or weibull in the config, --mtbf, or --failures LOG");
    }
    mtbf_ = cfg.failures.mtbf;
    shape_ = cfg.failures.model == config::FailureModel::weibull ? cfg.failures.shape : 1.0;
    failure_note_ = fmt::format("the config's node failures, per-node MTBF {}", config::format_seconds(mtbf_));
  }
  Json f = {{"model", shape_ == 1 ? "exponential" : "weibull"}, {"mtbf", mtbf_}};
  if (shape_ != 1) f["shape"] = shape_;
  if (cfg.failures.stationary) f["age"] = "stationary";
  if (cfg.failures.downtime > 0) f["downtime"] = cfg.failures.downtime;
  if (cfg.failures.detection > 0) f["detection"] = cfg.failures.detection;
  if (options_.levels && cfg.document.contains("failures") && cfg.document["failures"].contains("classes")) {
    f["classes"] = cfg.document["failures"]["classes"];  // what each level survives depends on them
  }
  base["failures"] = f;
}

Candidate Advisor::evaluate(const std::string& protocol, const Json& block, std::int64_t every) {
  Candidate c;
  c.every = every;
  c.period = double(every) * iteration_seconds_;
  Json document = base_;
  document["protocol"] = block;
  if (protocol == "uncoordinated") {
    document["protocol"]["period"] = c.period;
    document.erase("checkpoints");
  } else {
    document["checkpoints"] = {{"every", every}, {"buddy", "next"}};
  }
  // Failures per job: few, the rare-event estimator; many, the long-job estimate when the job
  // has periods enough; else brute force.
  const double failures_per_job = none_makespan_ * machines_ / mtbf_;
  c.method = failures_per_job < 0.3 ? "conditioned" : iterations_ / every >= 12 ? "long-job" : "brute";
  std::cerr << fmt::format("ftsim advise: {} every {} iterations ({}): {} estimate, {} samples [{:.0f} s of {:.0f}]\n", protocol, every,
                           config::format_seconds(c.period), c.method, options_.samples, elapsed(), options_.budget);
  const Json result = estimate(document, dir_ / protocol / fmt::format("every-{}", every), c.method);
  if (c.method == "long-job") {
    const auto& m = result.at("overhead");
    c.overhead = {m["mean"].get<double>(), m["low"].get<double>(), m["high"].get<double>(),
                  (m["high"].get<double>() - m["low"].get<double>()) / (2 * 1.6448536)};
    const double t0 = result["failure_free_makespan"].get<double>(), reference = result["reference_makespan"].get<double>();
    c.checkpointing = t0 / reference - 1;
    c.failures = c.overhead.mean - c.checkpointing;
  } else {
    const Json& e = result.at("estimates").at(0);
    c.overhead = {e["overhead"]["mean"].get<double>(), e["overhead"]["low"].get<double>(), e["overhead"]["high"].get<double>(),
                  e["overhead"]["std_error"].get<double>()};
    c.checkpointing = e["overhead_checkpointing"].get<double>();
    c.failures = e["overhead_failures"]["mean"].get<double>();
  }
  std::cerr << fmt::format("ftsim advise: {} every {}: overhead {:.4g}% [{:.4g}%, {:.4g}%]\n", protocol, every, 100 * c.overhead.mean,
                           100 * c.overhead.low, 100 * c.overhead.high);
  return c;
}

template <class Step>
void Advisor::guarded(ProtocolAdvice& advice, Step step) {
  if (!advice.skipped.empty()) return;
  try {
    step();
  } catch (const CandidateFailed& e) {
    advice.skipped = e.what();
    advice.candidates.clear();
  }
}

void Advisor::search(std::vector<ProtocolAdvice>& advice) {
  // Round 1: every protocol's checkpoint cost and its candidate at Daly's period. The budget
  // bounds the wall time: no simulation starts after it, and a protocol not reached says so.
  for (ProtocolAdvice& a : advice) {
    if (!within_budget()) {
      if (a.skipped.empty()) {
        a.skipped = fmt::format("the budget of {:.3g} s ran out before it (--budget)", options_.budget);
      }
      continue;
    }
    guarded(a, [&] { probe(a); });
    if (within_budget()) guarded(a, [&] { try_factor(a, 1.0); });
  }
  // Rounds 2-5: the other periods around Daly's, one per protocol in turn.
  for (const double factor : {0.5, 2.0, 0.7, 1.4}) {
    for (ProtocolAdvice& a : advice) {
      if (within_budget()) guarded(a, [&] { try_factor(a, factor); });
    }
  }
  // Round 6: each protocol's fitted minimum.
  for (ProtocolAdvice& a : advice) {
    if (within_budget()) guarded(a, [&] { refine(a); });
  }
  for (ProtocolAdvice& a : advice) {
    if (!a.skipped.empty()) continue;
    if (a.candidates.empty()) {
      a.skipped = fmt::format("the budget of {:.3g} s ran out before its first candidate (--budget)", options_.budget);
      continue;
    }
    a.best = 0;
    for (std::size_t i = 1; i < a.candidates.size(); ++i) {
      if (a.candidates[i].overhead.mean < a.candidates[a.best].overhead.mean) a.best = i;
    }
  }
}

void Advisor::probe(ProtocolAdvice& advice) {
  advice.block = protocol_block(advice.protocol, storage_, machines_, advice.skipped);
  if (!advice.skipped.empty()) return;
  const Json& block = advice.block;
  // The checkpoint cost without failures, at a checkpoint every tenth of the job.
  const std::int64_t probe = std::max<std::int64_t>(1, iterations_ / 10);
  Json document = base_;
  document["protocol"] = block;
  if (advice.protocol == "uncoordinated") {
    document["protocol"]["period"] = double(probe) * iteration_seconds_;
  } else {
    document["checkpoints"] = {{"every", probe}, {"buddy", "next"}};
  }
  double makespan = 0;
  try {
    makespan = failure_free(document, dir_ / advice.protocol / "probe");
  } catch (const CandidateFailed& e) {
    advice.skipped = e.what();
    return;
  }
  const double checkpoints = std::max(1.0, double((iterations_ - 1) / probe));
  advice.checkpoint_cost = std::max(1e-9, (makespan - none_makespan_) / checkpoints);
  const double system_mtbf = mtbf_ / machines_;
  advice.daly_period = analysis::daly_period(advice.checkpoint_cost, system_mtbf);
  if (advice.protocol == "global" || advice.protocol == "cck") {
    // Daly's complete model at its period: restart = downtime + reading the checkpoint back (~C).
    advice.daly_overhead = analysis::daly_wall_time(advice.daly_period, advice.checkpoint_cost, system_mtbf,
                                                    downtime_ + advice.checkpoint_cost, none_makespan_) /
                               none_makespan_ -
                           1;
  }
}

void Advisor::try_factor(ProtocolAdvice& advice, double factor) {
  const std::int64_t every = clamp_every(advice.daly_period / iteration_seconds_ * factor);
  if (!advice.tried.insert(every).second) return;
  advice.candidates.push_back(evaluate(advice.protocol, advice.block, every));
}

void Advisor::refine(ProtocolAdvice& advice) {
  // The fitted curve's minimum, if it is a period not tried yet.
  advice.fitted_period = fitted_minimum(advice.candidates);
  if (!advice.fitted_period) return;
  const std::int64_t every = clamp_every(*advice.fitted_period / iteration_seconds_);
  if (!advice.tried.insert(every).second) return;
  std::cerr << fmt::format("ftsim advise: {}: refining at the fitted minimum, every {} iterations\n", advice.protocol, every);
  advice.candidates.push_back(evaluate(advice.protocol, advice.block, every));
  advice.candidates.back().fitted = true;
}

Json interval_json(const estimate::MeanInterval& m) {
  return {{"mean", m.mean}, {"low", m.low}, {"high", m.high}, {"std_error", m.std_error}};
}

config::Config Advisor::setup() {
  const auto overrides = config::parse_overrides(options_.sets, options_.cfgs);
  const config::Config cfg = protocols::load_config(options_.config, overrides);
  base_ = config::with_absolute_file_paths(cfg.document, options_.config);
  const std::string app = base_["application"].value("type", std::string());
  if (app != "stencil" && app != "cg" && app != "spmd") {
    throw config::ConfigError(options_.config, "/application/type",
                              "advise searches checkpoint periods in iterations: an iterative application (stencil, cg, spmd)");
  }
  iterations_ = base_["application"].value("iterations", 0);
  machines_ = cfg.platform.machines();
  storage_ = cfg.platform.storage.hosts > 0;
  failure_model(base_, cfg);
  if (base_.contains("run") && base_["run"].is_object()) base_["run"].erase("reference");
  dir_ = options_.output_dir.empty() ? std::filesystem::path("out") / (cfg.name + "-advise") : std::filesystem::path(options_.output_dir);
  std::filesystem::create_directories(dir_);
  std::cerr << "ftsim advise: " << failure_note_ << "; seed base " << options_.seed_base << "; output " << dir_.string() << "\n";

  // none without failures: the base of every overhead, and the time of an iteration.
  Json none = base_;
  none["protocol"] = {{"type", "none"}};
  none.erase("checkpoints");
  try {
    none_makespan_ = failure_free(none, dir_ / "none");
  } catch (const CandidateFailed&) {
    throw config::ConfigError(options_.config, "", "the failure-free run of none failed");
  }
  iteration_seconds_ = none_makespan_ / double(iterations_);
  return cfg;
}

int Advisor::run() {
  const config::Config cfg = setup();
  if (options_.levels) return run_levels(cfg);
  std::vector<ProtocolAdvice> advice;
  std::string item;
  std::stringstream list(options_.protocols);
  while (std::getline(list, item, ',')) {
    ProtocolAdvice a;
    a.protocol = item;
    advice.push_back(std::move(a));
  }
  search(advice);

  // The ranking: each protocol at its best period.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < advice.size(); ++i) {
    if (advice[i].skipped.empty() && !advice[i].candidates.empty()) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return advice[a].candidates[advice[a].best].overhead.mean < advice[b].candidates[advice[b].best].overhead.mean;
  });
  std::cout << fmt::format("\n{}: {} nodes, {} iterations, failure-free {} under none; {}\n\n", cfg.name, cfg.platform.nodes, iterations_,
                           config::format_seconds(none_makespan_), failure_note_);
  run::Table table({"rank", "protocol", "checkpoint every", "period", "overhead [90%]", "checkpointing", "failures", "estimate",
                    "Daly: period, overhead"});
  Json out = {{"config", options_.config},
              {"name", cfg.name},
              {"failure_model", {{"mtbf", mtbf_}, {"shape", shape_}, {"downtime", downtime_}, {"note", failure_note_}}},
              {"none_makespan", none_makespan_},
              {"seed_base", options_.seed_base},
              {"protocols", Json::array()},
              {"ranking", Json::array()}};
  for (std::size_t r = 0; r < order.size(); ++r) {
    const auto& a = advice[order[r]];
    const auto& c = a.candidates[a.best];
    // No cut left: no checkpoint in the job (a period in seconds, uncoordinated's, still staggers
    // its clusters' checkpoints inside the job: said as a period).
    const bool none_taken = c.every >= iterations_ && a.protocol != "uncoordinated";
    table.add_row({std::to_string(r + 1), a.protocol,
                   none_taken ? std::string("never") : fmt::format("{} iterations", c.every),
                   none_taken ? std::string("-") : config::format_seconds(c.period),
                   fmt::format("{:.4g}% [{:.4g}%, {:.4g}%]", 100 * c.overhead.mean, 100 * c.overhead.low, 100 * c.overhead.high),
                   fmt::format("{:.4g}%", 100 * c.checkpointing), fmt::format("{:.4g}%", 100 * c.failures), c.method,
                   a.daly_overhead >= 0 ? fmt::format("{}, {:.4g}%", config::format_seconds(a.daly_period + a.checkpoint_cost),
                                                      100 * a.daly_overhead)
                                        : fmt::format("{}, -", config::format_seconds(a.daly_period + a.checkpoint_cost))});
    out["ranking"].push_back(a.protocol);
  }
  table.print(std::cout);
  if (order.size() >= 2) {
    const auto& first = advice[order[0]].candidates[advice[order[0]].best];
    const auto& second = advice[order[1]].candidates[advice[order[1]].best];
    const double p = estimate::probability_lower(first.overhead, second.overhead);
    std::cout << fmt::format("P({} at its period beats {} at its period) = {:.3f}\n", advice[order[0]].protocol, advice[order[1]].protocol, p);
    out["p_best_beats_second"] = p;
  }
  for (const auto& a : advice) {
    if (!a.skipped.empty()) std::cout << fmt::format("{}: not tried: {}\n", a.protocol, a.skipped);
  }
  std::cout << "(period: the time of the iterations between two checkpoints without failures; Daly: his period for the "
               "checkpoint cost measured without failures, and his complete model's overhead for the blocking protocols)\n";
  for (const auto& a : advice) {
    Json p = {{"protocol", a.protocol}, {"skipped", a.skipped.empty() ? Json() : Json(a.skipped)}};
    if (a.skipped.empty()) {
      p["checkpoint_cost"] = a.checkpoint_cost;
      p["daly_period"] = a.daly_period + a.checkpoint_cost;
      p["daly_overhead"] = a.daly_overhead >= 0 ? Json(a.daly_overhead) : Json();
      p["fitted_period"] = a.fitted_period ? Json(*a.fitted_period) : Json();
      p["candidates"] = Json::array();
      for (const auto& c : a.candidates) {
        p["candidates"].push_back({{"every", c.every}, {"period", c.period}, {"method", c.method}, {"overhead", interval_json(c.overhead)},
                                   {"checkpointing", c.checkpointing}, {"failures", c.failures}, {"fitted", c.fitted}});
      }
      p["recommended"] = a.candidates.empty() ? Json() : Json(a.candidates[a.best].every);
    }
    out["protocols"].push_back(p);
  }
  return write_advice(out);
}

int Advisor::write_advice(Json& out) const {
  out["wall_seconds"] = elapsed();
  for (const std::filesystem::path& path : {dir_ / "advice.json", std::filesystem::path(options_.json)}) {
    if (path.empty()) continue;
    std::ofstream f(path);
    f << out.dump(2) << "\n";
  }
  std::cout << "advice: " << (dir_ / "advice.json").string() << fmt::format(" ({:.0f} s)\n", elapsed());
  return kExitOk;
}

double Advisor::failure_free(Json document, const std::filesystem::path& dir) {
  document["failures"] = {{"model", "none"}};
  document["sweep"] = {{"seeds", {base_.value("seed", 1)}}};
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "config.json");
    out << document.dump(1) << "\n";
  }
  sweep::SweepOptions s;
  s.config = (dir / "config.json").string();
  s.output_dir = (dir / "run").string();
  s.quiet = true;
  run_sweep(s);
  std::ifstream rows(dir / "run" / "rows.jsonl");
  std::string line;
  std::getline(rows, line);
  const Json row = line.empty() ? Json() : Json::parse(line);
  if (!row.is_object() || row.value("status", std::string()) != "ok") {
    throw CandidateFailed(fmt::format("its failure-free run in {} failed: {}", dir.string(),
                                      row.is_object() ? row.value("reason", Json()).dump() : "no row"));
  }
  return row["makespan"].get<double>();
}

// --levels. The config's levels (global's /protocol/levels, cheapest first) are the candidates; a
// subset that ends with the most durable one is a configuration global runs. For each subset:
// the cost of a checkpoint on its first i levels, measured without failures (a checkpoint every
// tenth of the job, on those levels only: level i's part is the difference, so what the levels
// write at once is counted as it overlaps); the rate of the failures each level is the first of the
// subset to survive (a node failure: the first level; a group failure: a buddy level only if no
// node has a buddy in its group, an XOR level, stable storage; a job failure: stable storage only);
// then the best whole counts and W of the first-order model (analysis/multilevel_period.hpp).
// The subset of least H is recommended, estimated at its pattern against the most durable level
// alone at Young's period.
int Advisor::run_levels(const config::Config& cfg) {
  const Json protocol = base_.value("protocol", Json::object());
  if (!protocol.is_object() || protocol.value("type", std::string()) != "global" || !protocol.contains("levels")) {
    throw config::ConfigError(options_.config, "/protocol", "--levels reads the candidate levels from a global protocol with /protocol/levels");
  }
  const Json levels = protocol["levels"];
  const std::size_t k = levels.size();
  std::vector<std::string> storage;
  for (const Json& level : levels) storage.push_back(level.at("storage").get<std::string>());
  const auto& shares = cfg.failures.class_shares;
  const double total_rate = double(cfg.platform.nodes) / mtbf_;  // failure events per second
  // Does a buddy level survive a group failure (no node's buddy in its own group)?
  bool buddy_survives_group = cfg.platform.group_size > 0;
  if (buddy_survives_group) {
    config::BuddyConfig next;  // the advisor's checkpoints name buddy "next"
    const graphs::BuddyMapping mapping(next, cfg.distribution, cfg.platform.nodes);
    for (graphs::NodeId n = 0; n < cfg.platform.nodes; ++n) {
      for (graphs::NodeId b : mapping.buddies(n)) buddy_survives_group &= b / cfg.platform.group_size != n / cfg.platform.group_size;
    }
  }
  const auto survives = [&](const std::string& level, config::FailureClass kind) {
    if (level == "stable" || kind == config::FailureClass::process) return true;
    if (level == "local" || kind == config::FailureClass::job) return false;  // local: the node's own storage
    if (kind == config::FailureClass::node) return true;
    return level == "xor" || buddy_survives_group;
  };
  const Json restart = protocol.value("restart_cost", Json(0));
  const double restart_cost = restart.is_number() ? restart.get<double>() : config::parse_duration_seconds(restart.get<std::string>()).value_or(0);
  const std::int64_t probe = std::max<std::int64_t>(1, iterations_ / 10);
  const double probe_checkpoints = std::max(1.0, double((iterations_ - 1) / probe));

  // A block of global on the levels `used` (indices, increasing) with these everies.
  const auto block_of = [&](const std::vector<std::size_t>& used, const std::vector<std::uint64_t>& every) {
    Json block = protocol;
    block.erase("period");
    block["at"] = "cuts";  // the checkpoints of /checkpoints/every, as for every protocol here
    block["levels"] = Json::array();
    for (std::size_t i = 0; i < used.size(); ++i) {
      Json level = levels[used[i]];
      level.erase("every");
      if (i > 0) level["every"] = every[i];
      block["levels"].push_back(level);
    }
    return block;
  };
  std::map<std::vector<std::size_t>, double> cumulative;  // a checkpoint on all these levels, seconds
  const auto cost_of = [&](const std::vector<std::size_t>& prefix) {
    if (auto it = cumulative.find(prefix); it != cumulative.end()) return it->second;
    std::string name = "levels";
    for (std::size_t l : prefix) name += "-" + storage[l];
    Json document = base_;
    document["protocol"] = block_of(prefix, std::vector<std::uint64_t>(prefix.size(), 1));
    document["checkpoints"] = {{"every", probe}, {"buddy", "next"}};
    std::cerr << fmt::format("ftsim advise: the cost of a checkpoint on {} (without failures)\n", name.substr(7));
    const double makespan = failure_free(document, dir_ / "levels" / name);
    return cumulative[prefix] = std::max(1e-9, (makespan - none_makespan_) / probe_checkpoints);
  };

  struct Subset {
    std::vector<std::size_t> used;
    std::vector<analysis::CheckpointLevel> model;
    analysis::MultilevelPattern pattern;
    std::string skipped;
  };
  std::vector<Subset> subsets;
  for (std::uint32_t mask = 0; mask < (1u << (k - 1)); ++mask) {
    Subset s;
    for (std::size_t l = 0; l + 1 < k; ++l) {
      if (mask & (1u << l)) s.used.push_back(l);
    }
    s.used.push_back(k - 1);
    // Each failure class goes to the first level of the subset that survives it.
    std::vector<double> rates(s.used.size(), 0);
    for (std::size_t c = 0; c < config::kFailureClasses; ++c) {
      if (shares[c] == 0) continue;
      bool placed = false;
      for (std::size_t i = 0; i < s.used.size() && !placed; ++i) {
        if (survives(storage[s.used[i]], config::FailureClass(c))) {
          rates[i] += shares[c] * total_rate;
          placed = true;
        }
      }
      if (!placed) s.skipped = fmt::format("no level of it survives a {} failure", config::failure_class_name(config::FailureClass(c)));
    }
    if (s.skipped.empty() && within_budget()) {
      double below = 0;
      std::vector<std::size_t> prefix;
      for (std::size_t i = 0; i < s.used.size(); ++i) {
        prefix.push_back(s.used[i]);
        const double all = cost_of(prefix);
        // R: the downtime and detection, the restart cost, and reading the levels back (about
        // as long as writing them).
        s.model.push_back({std::max(1e-9, all - below), rates[i], downtime_ + cfg.failures.detection + restart_cost + all});
        below = all;
      }
      std::vector<std::uint32_t> used_model(s.used.size());
      for (std::uint32_t i = 0; i < used_model.size(); ++i) used_model[i] = i;
      s.pattern = analysis::best_multilevel_pattern(s.model, used_model);
    } else if (s.skipped.empty()) {
      s.skipped = fmt::format("the budget of {:.3g} s ran out before it (--budget)", options_.budget);
    }
    subsets.push_back(std::move(s));
  }
  std::size_t best = subsets.size();
  for (std::size_t i = 0; i < subsets.size(); ++i) {
    if (subsets[i].skipped.empty() && (best == subsets.size() || subsets[i].pattern.overhead < subsets[best].pattern.overhead)) best = i;
  }
  if (best == subsets.size()) {
    throw config::ConfigError(options_.config, "/protocol/levels", "no subset of these levels survives every failure class of the model");
  }
  const auto name_of = [&](const std::vector<std::size_t>& used, const char* between = " + ") {
    std::string text;
    for (std::size_t l : used) text += (text.empty() ? "" : between) + storage[l];
    return text;
  };
  // The recommended pattern as a config: level-1 checkpoints every `every` iterations, level i on
  // every (n_1 / n_i)-th of them.
  const Subset& chosen = subsets[best];
  const std::int64_t every = clamp_every(chosen.pattern.spacing(0) / iteration_seconds_);
  // A level whose spacing is longer than the job (a level whose failures are rare: it is there
  // for the failures nothing else survives) is taken past the job's end: "never" in this job.
  const std::uint64_t past_end = std::uint64_t(iterations_ / every) + 1;
  std::vector<std::uint64_t> level_every;
  for (std::uint64_t n : chosen.pattern.counts) {
    std::uint64_t e = chosen.pattern.counts.front() / n;
    if (!level_every.empty() && e > past_end) e = (past_end + level_every.back() - 1) / level_every.back() * level_every.back();
    level_every.push_back(e);
  }
  const Json recommended = block_of(chosen.used, level_every);
  // The reference: the most durable level alone (stable, or whatever the last level is), at
  // Young's period for its cost and the whole failure rate.
  const Subset& alone = subsets.front();  // mask 0: the last level only
  std::optional<Candidate> estimate_best, estimate_alone;
  if (within_budget()) estimate_best = evaluate("global-levels-" + name_of(chosen.used, "-"), recommended, every);
  std::int64_t alone_every = 0;
  if (alone.skipped.empty() && best != 0 && within_budget()) {
    alone_every = clamp_every(alone.pattern.spacing(0) / iteration_seconds_);
    estimate_alone = evaluate("global-levels-" + storage[k - 1], block_of(alone.used, {1}), alone_every);
  }

  std::cout << fmt::format("\n{}: {} nodes, {} iterations, failure-free {} under none; {}\n", cfg.name, cfg.platform.nodes, iterations_,
                           config::format_seconds(none_makespan_), failure_note_);
  std::cout << fmt::format("failure classes: node {:.3g}, group {:.3g}, job {:.3g} of {:.4g} failures per second{}\n\n", shares[0],
                           shares[1], shares[2], total_rate, cfg.failures.burst ? " (bursts are not in the model)" : "");
  run::Table table({"levels", "cost of each level", "failures per level (/s)", "checkpoints per pattern", "work per pattern",
                    "model overhead", "bound"});
  Json out = {{"config", options_.config},
              {"name", cfg.name},
              {"mode", "levels"},
              {"failure_model", {{"mtbf", mtbf_}, {"shape", shape_}, {"downtime", downtime_}, {"note", failure_note_},
                                 {"class_shares", {shares[0], shares[1], shares[2]}}}},
              {"none_makespan", none_makespan_},
              {"seed_base", options_.seed_base},
              {"subsets", Json::array()}};
  for (const Subset& s : subsets) {
    Json row = {{"levels", Json::array()}, {"skipped", s.skipped.empty() ? Json() : Json(s.skipped)}};
    for (std::size_t l : s.used) row["levels"].push_back(storage[l]);
    if (!s.skipped.empty()) {
      table.add_row({name_of(s.used), "-", "-", "-", "-", "-", s.skipped});
      out["subsets"].push_back(row);
      continue;
    }
    std::string costs, rates, counts;
    for (std::size_t i = 0; i < s.model.size(); ++i) {
      costs += (i ? ", " : "") + config::format_seconds(s.model[i].checkpoint);
      rates += fmt::format("{}{:.3g}", i ? ", " : "", s.model[i].failure_rate);
      counts += fmt::format("{}{}", i ? ", " : "", s.pattern.counts[i]);
      row["cost"].push_back(s.model[i].checkpoint);
      row["failure_rate"].push_back(s.model[i].failure_rate);
      row["recovery"].push_back(s.model[i].recovery);
    }
    row["counts"] = s.pattern.counts;
    row["work"] = s.pattern.work;
    row["model_overhead"] = s.pattern.overhead;
    row["bound"] = analysis::multilevel_bound(s.model);
    table.add_row({name_of(s.used) + (&s == &chosen ? " *" : ""), costs, rates, counts, config::format_seconds(s.pattern.work),
                   fmt::format("{:.4g}%", 100 * s.pattern.overhead), fmt::format("{:.4g}%", 100 * analysis::multilevel_bound(s.model))});
    out["subsets"].push_back(row);
  }
  table.print(std::cout);
  std::cout << fmt::format("\nrecommended (*): levels {}, a checkpoint every {} iterations ({}), level everies {}\n", name_of(chosen.used),
                           every, config::format_seconds(double(every) * iteration_seconds_), Json(level_every).dump());
  std::cout << "  \"protocol\": " << recommended.dump() << ", \"checkpoints\": {\"every\": " << every << "}\n";
  out["recommended"] = {{"protocol", recommended}, {"checkpoints_every", every}, {"levels", Json::array()}};
  for (std::size_t l : chosen.used) out["recommended"]["levels"].push_back(storage[l]);
  const auto report = [&](const char* what, const std::optional<Candidate>& c, const char* key) {
    if (!c) return;
    std::cout << fmt::format("  {}: overhead {:.4g}% [{:.4g}%, {:.4g}%] ({} estimate, {} samples; checkpointing {:.4g}%)\n", what,
                             100 * c->overhead.mean, 100 * c->overhead.low, 100 * c->overhead.high, c->method, options_.samples,
                             100 * c->checkpointing);
    out[key] = {{"every", c->every}, {"overhead", interval_json(c->overhead)}, {"checkpointing", c->checkpointing},
                {"failures", c->failures}, {"method", c->method}};
  };
  report("estimated", estimate_best, "estimate");
  if (estimate_alone) {
    std::cout << fmt::format("against {} alone, a checkpoint every {} iterations (Young):\n", storage[k - 1], alone_every);
    report("estimated", estimate_alone, "estimate_last_level_alone");
    if (estimate_best) {
      const double p = estimate::probability_lower(estimate_best->overhead, estimate_alone->overhead);
      std::cout << fmt::format("P(the recommended levels beat {} alone) = {:.3f}\n", storage[k - 1], p);
      out["p_recommended_beats_last_level_alone"] = p;
    }
  }
  std::cout << "(cost: each level's part of a checkpoint, measured without failures; model overhead: H of the first-order model at the "
               "pattern; bound: the sum of sqrt(2 lambda C) + lambda R)\n";
  return write_advice(out);
}

}  // namespace

Command add_advise_command(CLI::App& app) {
  auto* command = app.add_subcommand(
      "advise", "Which protocol and which checkpoint period cost least under a failure law, with 90% intervals (docs/advise.md)");
  auto options = std::make_shared<AdviseOptions>();
  command->add_option("CONFIG", options->config, "JSON config: the application and platform (an iterative application)")->required();
  command->add_option("--mtbf", options->mtbf, "Per-node MTBF (\"1d\", \"6h\"): exponential failures, Weibull with --shape");
  command->add_option("--shape", options->shape, "Weibull shape of the node failures (with --mtbf)")->check(CLI::Range(0.1, 100.0));
  command->add_option("--failures", options->log, "A failure log: the node law fitted to it (ftsim failures fit)");
  command->add_option("--format", options->format, "The log's format: lanl (default) or fta")->check(CLI::IsMember({"lanl", "fta"}));
  command->add_option("--system", options->system, "The log's system");
  command->add_option("--protocols", options->protocols, "Protocols to try (default global,buddy,cck,uncoordinated)");
  command->add_option("--budget", options->budget, "Wall seconds after which no new simulation starts (default 600); the search goes round the protocols, so a budget shortens each one's")
      ->check(CLI::PositiveNumber);
  command->add_option("-n,--samples", options->samples, "Simulations per candidate (default 40)")->check(CLI::Range(2, 1000000));
  command->add_option("-j,--jobs", options->jobs, "Simulations at once (default 1)")->check(CLI::PositiveNumber);
  command->add_option("--seed-base", options->seed_base, "Seeds of the samples start after this (default 0)");
  command->add_option("-o,--output", options->output_dir, "Output directory (default: out/<config name>-advise/)");
  command->add_option("--json", options->json, "Also write the advice to this file");
  command->add_flag("--levels", options->levels,
                    "Which of the config's global /protocol/levels to use and how often (the first-order multi-level model "
                    "on costs measured without failures, then estimated; docs/multilevel.md)");
  command->add_option("--set", options->sets, config::kSetOptionHelp)->allow_extra_args(false);
  command->add_option("--cfg", options->cfgs, config::kCfgOptionHelp)->allow_extra_args(false);
  return [options] {
    if (!options->log.empty() && !options->mtbf.empty()) {
      throw config::ConfigError("--failures", "", "give a failure log or an MTBF, not both");
    }
    return Advisor(*options).run();
  };
}

}  // namespace ftsim::cli
