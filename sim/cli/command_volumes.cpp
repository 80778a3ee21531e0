// ftsim volumes CONFIG [--json FILE]: analytic checkpoint volumes per checkpoint placement
// (Lion & Thibault 2020 Table I), printed beside the config's reference figures if it has any.
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "analysis/volumes.hpp"
#include "graphs/application.hpp"
#include "graphs/buddy_mapping.hpp"
#include "graphs/cut_selection.hpp"
#include "graphs/huge_pages.hpp"
#include "sim/cli/commands.hpp"
#include "sim/run/table.hpp"
#include "sim/run/volumes_document.hpp"
#include "sim/config/config.hpp"
#include "sim/config/units.hpp"

namespace ftsim::cli {

namespace {

struct VolumesOptions {
  std::string config;
  std::string json_file;
  bool per_node = false;
  std::vector<std::uint32_t> counts;  // --count: placements to compute instead of /checkpoints
  std::vector<std::string> sets, cfgs;  // config overrides
};

const config::ReferenceVolumes* reference_row(const config::Config& cfg, std::size_t checkpoints) {
  if (!cfg.reference) return nullptr;
  for (const auto& row : cfg.reference->volumes) {
    if (row.checkpoints == checkpoints) return &row;
  }
  return nullptr;
}

// "892 MB (paper 892 MB, +0.0%)": sizes in a unit that fits them.
std::string with_reference(double value, const std::optional<double>& reference) {
  std::string text = config::format_bytes(value);
  if (reference) text += fmt::format(" (ref {}, {})", config::format_bytes(*reference), run::relative_gap(value, *reference));
  return text;
}

}  // namespace

Command add_volumes_command(CLI::App& app) {
  auto* command = app.add_subcommand("volumes",
                                     "Checkpoint bytes per node from the task graph alone: blind, differential, "
                                     "cached (Lion & Thibault 2020, Table I)");
  auto options = std::make_shared<VolumesOptions>();
  command->add_option("CONFIG", options->config, "JSON config file with a \"checkpoints\" placement or a list of them")
      ->required();
  command->add_option("--json", options->json_file, "Also write the figures, per node, as JSON");
  command->add_option("--set", options->sets, config::kSetOptionHelp)->allow_extra_args(false);
  command->add_option("--cfg", options->cfgs, config::kCfgOptionHelp)->allow_extra_args(false);
  command->add_flag("--per-node", options->per_node, "Print a per-node table for each placement");
  command->add_option("--count", options->counts,
                      "Checkpoint counts to compute (each spread over the submission, buddy next), instead of the "
                      "config's /checkpoints; e.g. --count 1,2,4,8")
      ->delimiter(',')
      ->check(CLI::Range(1u, 1000000u));
  return [options] {
    config::Config cfg = config::load_config(options->config, config::parse_overrides(options->sets, options->cfgs));
    if (!options->counts.empty()) {
      cfg.checkpoints.clear();
      for (std::uint32_t count : options->counts) {
        config::CheckpointConfig placement;
        placement.placement = config::CutPlacement::count;
        placement.count = count;
        placement.pointer = "--count";
        cfg.checkpoints.push_back(placement);
      }
    }
    if (cfg.checkpoints.empty()) {
      throw config::ConfigError(cfg.file, "/",
                                "missing required key \"checkpoints\" (where to cut and which buddy); add it, or give "
                                "the counts to compute with --count, e.g. --count 1,2,4,8");
    }
    graphs::set_huge_pages_default(false);  // built and read once: see graphs/huge_pages.hpp
    const graphs::TaskGraph graph = graphs::build_application(cfg);
    const std::vector<run::PlacementVolumes> placements = run::placement_volumes(cfg, graph);
    const analysis::PerNode application = analysis::application_bytes_sent(graph);

    std::cout << fmt::format("{}: {} on {} nodes, {} tasks, {} data handles ({})\n", cfg.name,
                             to_string(cfg.application.type), graph.node_count(), graph.task_count(),
                             graph.handle_count(), config::format_bytes(double(graph.total_data_bytes())));
    std::cout << "application bytes sent per node: " << config::format_bytes(application.average()) << " (min "
              << config::format_bytes(application.min()) << ", max " << config::format_bytes(application.max()) << ")";
    if (cfg.reference && cfg.reference->application_bytes_per_node) {
      std::cout << "; " << cfg.reference->source << ": " << config::format_bytes(*cfg.reference->application_bytes_per_node) << " ("
                << run::relative_gap(application.average(), *cfg.reference->application_bytes_per_node) << ")";
    }
    std::cout << "\n\n";

    run::Table table({"checkpoints", "buddy", "blind/node", "differential/node", "cached/node", "cached-any/node",
                      "peak held/node", "cached % of app"});
    for (const auto& [placement, v] : placements) {
      const auto* reference = reference_row(cfg, v.checkpoints);
      auto ref = [&](std::optional<double> config::ReferenceVolumes::*field) {
        return reference ? reference->*field : std::optional<double>{};
      };
      table.add_row({std::to_string(v.checkpoints), to_string(placement->buddy.kind),
                     with_reference(v.blind.average(), ref(&config::ReferenceVolumes::blind)),
                     with_reference(v.differential.average(), ref(&config::ReferenceVolumes::differential)),
                     with_reference(v.cached.average(), ref(&config::ReferenceVolumes::cached)),
                     config::format_bytes(v.cached_any.average()), config::format_bytes(v.peak_held.average()),
                     run::percent(v.cached.average() / std::max(application.average(), 1.0))});
    }
    if (cfg.reference && !cfg.reference->volumes.empty()) {
      std::cout << "bytes per node, averaged over nodes; in parentheses " << cfg.reference->source
                << " and ftsim's gap to it\n";
    } else {
      std::cout << "bytes per node, averaged over nodes\n";
    }
    table.print(std::cout);

    if (options->per_node) {
      for (const auto& [placement, v] : placements) {
        std::cout << "\n" << fmt::format("{} checkpoint(s), buddy {}", v.checkpoints, to_string(placement->buddy.kind)) << "\n";
        run::Table nodes({"node", "app sent", "blind", "differential", "cached", "cached-any", "peak held"});
        for (graphs::NodeId n = 0; n < graph.node_count(); ++n) {
          nodes.add_row({std::to_string(n), config::format_bytes(application.bytes[n]), config::format_bytes(v.blind.bytes[n]),
                         config::format_bytes(v.differential.bytes[n]), config::format_bytes(v.cached.bytes[n]),
                         config::format_bytes(v.cached_any.bytes[n]), config::format_bytes(v.peak_held.bytes[n])});
        }
        nodes.print(std::cout);
      }
    }

    if (!options->json_file.empty()) {
      const config::Json document = run::volumes_document(cfg, graph, placements);
      std::ofstream out(options->json_file);
      if (!out) throw config::ConfigError(options->json_file, "", "cannot write this file");
      out << document.dump(2) << "\n";
      std::cout << fmt::format("\nwrote {}: these figures per node, as JSON\n", options->json_file);
    }
    return kExitOk;
  };
}

}  // namespace ftsim::cli
