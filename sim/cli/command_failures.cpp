// ftsim failures fit LOG --format lanl|fta [--system ID] [--from DATE] [--to DATE] [--json FILE]:
// exponential and Weibull laws fitted to a real machine's failures, per system (its interruptions)
// and per node (the times between two failures of one node, pooled over the system's nodes), with
// 90% intervals (docs/advise.md#failure-logs).
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/cli/commands.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/failure_log.hpp"
#include "sim/config/log_dates.hpp"
#include "sim/config/units.hpp"
#include "sim/estimate/failure_fit.hpp"
#include "sim/run/table.hpp"

namespace ftsim::cli {

namespace {

using Json = nlohmann::json;

struct FitOptions {
  std::string log;
  std::string format;
  std::optional<std::int64_t> system;
  std::string from, to;  // dates (UTC)
  std::string json;
};

double date_option(const std::string& text, const std::string& option) {
  const auto date = config::parse_iso_date(text);
  if (!date) throw config::ConfigError(option, "", "expected a date YYYY-MM-DD[ HH:MM[:SS]] or epoch seconds, got \"" + text + "\"");
  return *date;
}

struct SystemFit {
  std::int64_t system = 0;
  std::size_t failures = 0, nodes = 0;
  double first = 0, last = 0;
  std::optional<estimate::Fit> whole, node;
  std::string whole_note, node_note;  // why a fit is missing
};

std::optional<estimate::Fit> try_fit(const std::vector<double>& gaps, std::string& note) {
  try {
    return estimate::fit_gaps(gaps);
  } catch (const std::invalid_argument& e) {
    note = e.what();
    return std::nullopt;
  }
}

Json interval_json(const estimate::Interval90& i) { return {{"value", i.value}, {"low", i.low}, {"high", i.high}}; }

Json fit_json(const std::optional<estimate::Fit>& fit, const std::string& note) {
  if (!fit) return {{"error", note}};
  return {{"gaps", fit->exponential.n},
          {"exponential", {{"mtbf", interval_json(fit->exponential.mtbf)}, {"log_likelihood", fit->exponential.log_likelihood}}},
          {"weibull",
           {{"shape", interval_json(fit->weibull.shape)},
            {"scale", interval_json(fit->weibull.scale)},
            {"mtbf", interval_json(fit->weibull.mtbf)},
            {"log_likelihood", fit->weibull.log_likelihood}}},
          {"likelihood_ratio", fit->likelihood_ratio},
          {"weibull_preferred", fit->weibull_preferred}};
}

std::string hours(const estimate::Interval90& i) {
  return fmt::format("{:.4g} h [{:.4g}, {:.4g}]", i.value / 3600, i.low / 3600, i.high / 3600);
}
std::string plain(const estimate::Interval90& i) { return fmt::format("{:.3f} [{:.3f}, {:.3f}]", i.value, i.low, i.high); }

int run_fit(const FitOptions& options) {
  const auto failures = options.format == "lanl" ? config::read_lanl_log(options.log) : config::read_fta_log(options.log);
  const double from = options.from.empty() ? -INFINITY : date_option(options.from, "--from");
  const double to = options.to.empty() ? INFINITY : date_option(options.to, "--to");
  // By system: every failure's date (the system's interruptions), and each node's.
  std::map<std::int64_t, std::vector<double>> by_system;
  std::map<std::int64_t, std::map<std::int64_t, std::vector<double>>> by_node;
  for (const auto& f : failures) {
    if (options.system && f.system != *options.system) continue;
    if (f.start < from || f.start >= to) continue;
    by_system[f.system].push_back(f.start);
    if (f.node != config::LogFailure::kNoNode) by_node[f.system][f.node].push_back(f.start);
  }
  if (by_system.empty()) {
    throw config::ConfigError(options.log, "", options.system ? fmt::format("no failure of system {} in the window", *options.system)
                                                              : std::string("no failure in the window"));
  }
  std::vector<SystemFit> fits;
  for (auto& [system, dates] : by_system) {
    SystemFit s;
    s.system = system;
    const auto gaps = estimate::gaps_between(dates);
    s.failures = gaps.size() + 1;
    s.first = *std::min_element(dates.begin(), dates.end());
    s.last = *std::max_element(dates.begin(), dates.end());
    s.whole = try_fit(gaps, s.whole_note);
    std::vector<double> node_gaps;
    for (auto& [node, node_dates] : by_node[system]) {
      const auto g = estimate::gaps_between(node_dates);
      node_gaps.insert(node_gaps.end(), g.begin(), g.end());
    }
    s.nodes = by_node[system].size();
    s.node = try_fit(node_gaps, s.node_note);
    fits.push_back(std::move(s));
  }

  std::cout << fmt::format("{}: {} failures read; times between failures fitted by maximum likelihood, 90% intervals\n",
                           options.log, failures.size());
  run::Table table({"system", "interruptions", "years", "MTBF (exponential)", "Weibull shape", "MTBF (Weibull)", "prefers",
                    "nodes", "node MTBF (exponential)", "node shape", "node MTBF (Weibull)"});
  Json out = {{"log", options.log}, {"format", options.format}, {"systems", Json::array()}};
  for (const auto& s : fits) {
    const auto prefers = [](const std::optional<estimate::Fit>& f) {
      return !f ? std::string("-") : f->weibull_preferred ? std::string("Weibull") : std::string("either");
    };
    table.add_row({std::to_string(s.system), std::to_string(s.failures), fmt::format("{:.2f}", (s.last - s.first) / (365.25 * 86400)),
                   s.whole ? hours(s.whole->exponential.mtbf) : s.whole_note, s.whole ? plain(s.whole->weibull.shape) : "-",
                   s.whole ? hours(s.whole->weibull.mtbf) : "-", prefers(s.whole), std::to_string(s.nodes),
                   s.node ? hours(s.node->exponential.mtbf) : "-", s.node ? plain(s.node->weibull.shape) : "-",
                   s.node ? hours(s.node->weibull.mtbf) : "-"});
    out["systems"].push_back({{"system", s.system},
                              {"interruptions", s.failures},
                              {"first", s.first},
                              {"last", s.last},
                              {"nodes", s.nodes},
                              {"system_fit", fit_json(s.whole, s.whole_note)},
                              {"node_fit", fit_json(s.node, s.node_note)}});
  }
  table.print(std::cout);
  std::cout << "(interruptions: failures at distinct dates; node fits pool the times between two failures of one node, "
               "over the system's nodes; prefers: Weibull when the likelihood ratio rejects shape 1 at 1%)\n";
  if (!options.json.empty()) {
    std::ofstream file(options.json);
    file << out.dump(2) << "\n";
    if (!file) throw config::ConfigError(options.json, "", "cannot write this file");
  }
  return kExitOk;
}

}  // namespace

Command add_failures_command(CLI::App& app) {
  auto* command = app.add_subcommand("failures", "Failure logs of real machines: fit failure models to them");
  command->require_subcommand(1);
  auto* fit = command->add_subcommand(
      "fit", "Fit exponential and Weibull laws to a failure log's times between failures, per system and per node, with 90% intervals");
  auto options = std::make_shared<FitOptions>();
  fit->add_option("LOG", options->log, "The failure log (LANL CSV or FTA event trace)")->required();
  fit->add_option("--format", options->format, "lanl or fta")->required()->check(CLI::IsMember({"lanl", "fta"}));
  fit->add_option("--system", options->system, "Only this system (LANL System, FTA platform_id)");
  fit->add_option("--from", options->from, "Only failures from this date (UTC, YYYY-MM-DD[ HH:MM])");
  fit->add_option("--to", options->to, "Only failures before this date");
  fit->add_option("--json", options->json, "Also write the fits to this file");
  return [options] { return run_fit(*options); };
}

}  // namespace ftsim::cli
