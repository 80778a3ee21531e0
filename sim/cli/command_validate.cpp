// ftsim validate CONFIG: load and check a config (or every point of a sweep); print what it resolves to.
#include <iostream>
#include <memory>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "graphs/cut_selection.hpp"
#include "graphs/graph_stats.hpp"
#include "graphs/size_check.hpp"
#include "protocols/checkpoint_content.hpp"
#include "protocols/registry.hpp"
#include "sim/cli/commands.hpp"
#include "sim/run/run_estimate.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"
#include "sim/config/units.hpp"

#include <fmt/format.h>

namespace ftsim::cli {

namespace {

bool given(const config::Config& cfg, const char* pointer) {
  return cfg.document.contains(config::Json::json_pointer(pointer));
}

std::string failures_line(const config::Config& cfg) {
  const config::FailureConfig& f = cfg.failures;
  switch (f.model) {
    case config::FailureModel::none: return "none";
    case config::FailureModel::list:
    case config::FailureModel::trace:
    case config::FailureModel::log:
      return fmt::format("{} failure(s) {}, downtime {}, detection {}", f.events.size(),
                         f.model == config::FailureModel::list ? "listed" : "from " + f.trace_file,
                         config::format_seconds(f.downtime),
                         config::format_seconds(f.detection));
    case config::FailureModel::exponential:
    case config::FailureModel::weibull:
      // With several ranks per machine the renewal processes are per machine (failure_schedule.hpp).
      return fmt::format("{} per {}, MTBF {} (the platform's: {}), seed {}, at most {} failures; downtime {}, detection {}",
                         f.model == config::FailureModel::exponential ? "exponential" : fmt::format("Weibull (shape {})", f.shape),
                         cfg.platform.ranks_per_machine > 1 ? "machine" : "node",
                         config::format_seconds(f.mtbf), config::format_seconds(f.mtbf / std::max(1u, cfg.platform.machines())),
                         cfg.seed, f.max_failures, config::format_seconds(f.downtime), config::format_seconds(f.detection));
  }
  return "";
}

// When the config checkpoints: at graph cuts (its /checkpoints placements), on a period of its
// protocol, or never; "0 checkpoint placement(s)" would hide a periodic schedule.
std::string checkpoints_phrase(const config::Config& cfg) {
  if (!cfg.checkpoints.empty()) {
    return fmt::format("{} checkpoint placement{}", cfg.checkpoints.size(), cfg.checkpoints.size() == 1 ? "" : "s");
  }
  if (cfg.protocol.block.contains("period")) {
    const double period = config::JsonReader(cfg.protocol.block, cfg.file, "/protocol").at("period").as_positive_seconds();
    return "checkpoints every " + config::format_seconds(period) + " (/protocol/period)";
  }
  return "no checkpoints";
}

// What the config resolves to, beyond its syntax: the protocol and its options, the failures it
// draws, the defaults applied, and how many checkpoints a periodic schedule gives.
void print_resolved(const config::Config& cfg, std::ostream& out) {
  const protocols::ProtocolModule& module = protocols::protocol_module(cfg);
  config::Json options = cfg.protocol.block;
  options.erase("type");
  out << "  protocol     " << module.id << (options.empty() ? "" : " " + options.dump()) << ": " << module.summary << "\n";
  for (const config::CheckpointConfig& c : cfg.checkpoints) {
    out << "  checkpoints  "
        << (c.placement == config::CutPlacement::count ? fmt::format("{} cuts spread over the submission", c.count)
                                                       : fmt::format("a cut every {} outer iteration(s)", c.every))
        << ", buddy " << to_string(c.buddy.kind) << "\n";
  }
  if (cfg.protocol.block.contains("period")) {
    // A periodic schedule: a checkpoint after each period of work, so about (failure-free
    // makespan / period) of them; the makespan is at least the critical path and the work per core.
    const graphs::TaskGraph graph = graphs::build_application(cfg);
    const graphs::CostModel cost(cfg, graph);
    const graphs::GraphStats stats = graphs::compute_stats(graph, cost);
    const double cores = double(cfg.platform.nodes) * cfg.platform.cores_per_node;
    const double bound = std::max(stats.critical_path_seconds.value_or(0), stats.total_seconds.value_or(0) / cores);
    const double period = config::JsonReader(cfg.protocol.block, cfg.file, "/protocol").at("period").as_positive_seconds();
    out << "  schedule     a checkpoint every " << config::format_seconds(period)
        << fmt::format(" of work: at least {} over the run (its failure-free makespan is at least {}: critical path and "
                       "work per core)\n",
                       static_cast<std::uint64_t>(bound / period), config::format_seconds(bound));
  }
  if (cfg.checkpoint_data.enabled) {
    const config::CheckpointDataConfig& c = cfg.checkpoint_data;
    std::vector<std::string> parts;
    if (c.zero_blocks) parts.push_back("zero blocks");
    if (c.incremental) parts.push_back(fmt::format("incremental (a full checkpoint every {})", c.full_every));
    if (c.zstd) parts.push_back(fmt::format("zstd level {}", c.level));
    std::string line;
    for (const auto& part : parts) line += (line.empty() ? "" : ", ") + part;
    out << "  checkpoint data  " << line << ", blocks of " << config::format_bytes(double(c.block_size)) << ": "
        << protocols::checkpoint_data_status(cfg) << "\n";
    if (!c.profile_families.empty()) {
      // The families a profile names must be the graph's (an error names the JSON path).
      const graphs::TaskGraph graph = graphs::build_application(cfg);
      protocols::content::Settings settings(cfg, graph);
    }
  }
  out << "  failures     " << failures_line(cfg) << "\n";
  if (const auto& p = cfg.failures.prediction) {
    out << fmt::format("  prediction   recall {}, precision {}, lead time {}; migration to a spare: spawn {}, chunks of {} "
                       "bytes (docs/migration.md)\n",
                       p->recall, p->precision, config::format_seconds(p->lead_time), config::format_seconds(p->spawn),
                       p->chunk);
  }
  std::vector<std::string> defaults;
  if (!given(cfg, "/seed")) defaults.push_back("seed 1");
  if (!given(cfg, "/protocol")) defaults.push_back("protocol none");
  if (!given(cfg, "/platform/network/model")) defaults.push_back("network model " + std::string(config::to_string(cfg.platform.network.model)));
  if (!given(cfg, "/platform/network/contention")) {
    defaults.push_back("network contention " + std::string(config::to_string(cfg.platform.network.contention)));
  }
  if (!given(cfg, "/platform/network/solver") && cfg.platform.network.contention == config::Contention::flows) {
    defaults.push_back("sharing solver " + std::string(config::to_string(cfg.platform.network.solver)));
  }
  if (!given(cfg, "/platform/spares")) defaults.push_back("unlimited spares");
  if (cfg.failures.model != config::FailureModel::none) {
    if (!given(cfg, "/failures/downtime")) defaults.push_back("failure downtime 0");
    if (!given(cfg, "/failures/detection")) defaults.push_back("failure detection 0");
  }
  if (!given(cfg, "/run/time_limit")) defaults.push_back("time limit derived from the graph");
  if (!defaults.empty()) {
    std::string line;
    for (const auto& d : defaults) line += (line.empty() ? "" : ", ") + d;
    out << "  defaults     " << line << "\n";
  }
}

// Up to this many tasks (about half a second of building) the estimate counts the graph built;
// beyond, it takes the graph's estimate, whose transfers are an upper bound (2.6x for a stencil).
constexpr double kMaxTasksBuilt = 1e6;

// What the run will cost (run_estimate.hpp), from the graph's size.
void print_estimate(const config::Config& cfg, std::ostream& out) {
  run::GraphSize size;
  const graphs::GraphEstimate estimate = graphs::estimate_application(cfg);
  if (config::is_graph_file(cfg.application.type) || estimate.tasks <= kMaxTasksBuilt) {
    const graphs::TaskGraph graph = graphs::build_application(cfg);
    size = {double(graph.task_count()), double(graph.transfers().size())};
  } else {
    size = {estimate.tasks, estimate.transfers};
  }
  const run::RunEstimate e = run::estimate_run(cfg, size);
  out << fmt::format("  estimate     `ftsim run` takes about {} of wall time and {} of memory on a 2-core machine ({} "
                     "simulation{} of about {:.2g} events{}; protocols and failures add to it)\n",
                     config::format_seconds(e.wall_seconds), config::format_bytes(e.peak_bytes), e.simulations,
                     e.simulations == 1 ? "" : "s", e.events, e.simulations == 1 ? "" : ": the run and its failure-free references");
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  auto* command = app.add_subcommand("validate", "Check a config file: types, ranges, units, unknown keys");
  struct Options {
    std::string path;
    std::vector<std::string> sets, cfgs;  // config overrides
  };
  auto options = std::make_shared<Options>();
  command->add_option("CONFIG", options->path, "JSON config file")->required();
  command->add_option("--set", options->sets, config::kSetOptionHelp)->allow_extra_args(false);
  command->add_option("--cfg", options->cfgs, config::kCfgOptionHelp)->allow_extra_args(false);
  return [options] {
    const std::string* path = &options->path;
    const std::vector<config::ConfigOverride> overrides = config::parse_overrides(options->sets, options->cfgs);
    std::string shown = *path;  // the config as checked: the file and its overrides
    for (const auto& o : overrides) shown += " " + o.text;
    // A sweep config: every point must load (sweep_plan.hpp).
    if (sweep::has_sweep_section(config::read_json_file(*path))) {
      const auto plan = sweep::SweepPlan::load(*path, overrides);
      for (const auto& warning : plan.warnings()) std::cerr << "warning: " << warning << "\n";
      std::cout << shown << ": ok (sweep " << plan.name() << ": " << plan.points().size() << " points, each a valid config; "
                << plan.varied_columns().size() << " varied columns)\n";
      return kExitOk;
    }
    const config::Config cfg = protocols::load_config(*path, overrides);
    // What ftsim graph, volumes and run would refuse before building: sizes, memory, durations.
    graphs::check_application_size(cfg);
    if (config::is_graph_file(cfg.application.type)) {
      // A user's graph file is checked too: its syntax, its kernels' speeds, its cuts.
      const graphs::TaskGraph graph = graphs::build_application(cfg);
      graphs::CostModel cost(cfg, graph);
      for (const auto& placement : cfg.checkpoints) graphs::CutSelection(placement, graph, cfg.file);
    }
    if (cfg.application.type != config::ApplicationType::json && !cfg.platform.kernel_models.empty()) {
      // A StarPU model must have an entry for the tile size used: only the graph tells.
      const graphs::TaskGraph graph = graphs::build_application(cfg);
      graphs::CostModel cost(cfg, graph);
    }
    std::cout << shown << ": ok (" << cfg.name << ": " << to_string(cfg.application.type) << " on "
              << cfg.platform.nodes << " nodes x " << cfg.platform.cores_per_node << " cores, distribution "
              << to_string(cfg.distribution.type);
    if (cfg.distribution.type == config::DistributionType::block_cyclic) {
      std::cout << " " << cfg.distribution.P << "x" << cfg.distribution.Q;
    }
    if (!cfg.distribution.given) std::cout << " (application default)";
    std::cout << ", " << checkpoints_phrase(cfg) << ")\n";
    print_resolved(cfg, std::cout);
    print_estimate(cfg, std::cout);
    // A failure log is mapped onto the nodes: say what was dropped (events before the window,
    // on machine nodes left out, of other systems), as nothing else would.
    if (cfg.failures.model == config::FailureModel::log) {
      std::cout << "note: failure log " << cfg.failures.trace_file << ": " << cfg.failures.log_note << "\n";
    }
    return kExitOk;
  };
}

}  // namespace ftsim::cli
