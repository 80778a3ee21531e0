// ftsim validate CONFIG: load and check a config (or every point of a sweep); print what it resolves to.
#include <iostream>
#include <memory>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "graphs/cut_selection.hpp"
#include "graphs/size_check.hpp"
#include "protocols/registry.hpp"
#include "sim/cli/commands.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::cli {

Command add_validate_command(CLI::App& app) {
  auto* command = app.add_subcommand("validate", "Check a config file: types, ranges, units, unknown keys");
  auto path = std::make_shared<std::string>();
  command->add_option("CONFIG", *path, "JSON config file")->required();
  return [path] {
    // A sweep config: every point must load (sweep_plan.hpp).
    if (sweep::has_sweep_section(config::read_json_file(*path))) {
      const auto plan = sweep::SweepPlan::load(*path);
      std::cout << *path << ": ok (sweep " << plan.name() << ": " << plan.points().size() << " points, each a valid config; "
                << plan.varied_columns().size() << " varied columns)\n";
      return kExitOk;
    }
    const config::Config cfg = protocols::load_config(*path);
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
    std::cout << *path << ": ok (" << cfg.name << ": " << to_string(cfg.application.type) << " on "
              << cfg.platform.nodes << " nodes x " << cfg.platform.cores_per_node << " cores, distribution "
              << to_string(cfg.distribution.type);
    if (cfg.distribution.type == config::DistributionType::block_cyclic) {
      std::cout << " " << cfg.distribution.P << "x" << cfg.distribution.Q;
    }
    if (!cfg.distribution.given) std::cout << " (application default)";
    std::cout << ", " << cfg.checkpoints.size() << " checkpoint placement(s))\n";
    // A failure log is mapped onto the nodes: say what was dropped (events before the window,
    // on machine nodes left out, of other systems), as nothing else would.
    if (cfg.failures.model == config::FailureModel::log) {
      std::cout << "note: failure log " << cfg.failures.trace_file << ": " << cfg.failures.log_note << "\n";
    }
    return kExitOk;
  };
}

}  // namespace ftsim::cli
