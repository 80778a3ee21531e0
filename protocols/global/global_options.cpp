#include "protocols/global/global_options.hpp"

#include "graphs/cut_selection.hpp"
#include "protocols/coordinated_schedule.hpp"

namespace ftsim::protocols::global {

GlobalConfig read_global_options(const config::Config& config, config::JsonReader block) {
  GlobalConfig options;
  block.expect_object();
  block.at("type").as_string();
  const CoordinatedSchedule schedule = read_coordinated_schedule(config, block, "global");
  options.at_cuts = schedule.at_cuts;
  options.period = schedule.period;
  const std::uint32_t servers = config.platform.storage.hosts;
  if (auto levels = block.find("levels")) {
    // Two levels (Moody et al. 2010's partner and PFS levels): buddies' memory, then stable storage.
    if (block.find("storage")) levels->fail("gives each level's storage: not with /protocol/storage");
    const std::string shape = R"([{"storage": "buddy"}, {"storage": "stable", "every": K}])";
    if (!levels->is_array() || levels->size() != 2) levels->fail_expected("two levels, " + shape);
    auto first = (*levels)[0];
    first.expect_object();
    if (first.at("storage").as_choice({"buddy"}) != "buddy") first.fail_expected(shape);
    if (auto every = first.find("every"); every && every->as_int(1, 1) != 1) every->fail_expected("1");
    first.finish();
    auto second = (*levels)[1];
    second.expect_object();
    second.at("storage").as_choice({"stable"});
    options.stable_every = static_cast<std::uint32_t>(second.at("every").as_int(1, 1 << 30));
    second.finish();
    if (servers == 0) levels->fail("the \"stable\" level needs servers: set /platform/storage/hosts to 1 or more");
    if (config.platform.nodes < 2) levels->fail("the \"buddy\" level needs at least 2 nodes (a node cannot be its own buddy)");
    if (config.checkpoint_data.enabled) {
      levels->fail("is not built with /checkpoint_data yet (an image chain across two levels): remove one of them");
    }
    options.stable_storage = false;
  } else if (auto storage = block.find("storage")) {
    options.stable_storage = storage->as_choice({"stable", "buddy"}) == "stable";
    if (options.stable_storage && servers == 0) {
      storage->fail("\"stable\" storage needs servers: set /platform/storage/hosts to 1 or more");
    }
    if (!options.stable_storage && config.platform.nodes < 2) {
      storage->fail("\"buddy\" storage needs at least 2 nodes (a node cannot be its own buddy)");
    }
  } else if (servers == 0) {
    block.fail("the global protocol saves to \"storage\": \"stable\" (needs /platform/storage) or \"buddy\"");
  }
  if (auto cost = block.find("restart_cost")) options.restart_cost = cost->as_seconds();
  block.finish();
  return options;
}

std::shared_ptr<const GlobalOptions> make_global_options(const config::Config& config, config::JsonReader block,
                                                             const graphs::TaskGraph& graph) {
  auto options = std::make_shared<GlobalOptions>();
  static_cast<GlobalConfig&>(*options) = read_global_options(config, block);
  options->content = content::make_settings(config, graph);
  if (options->at_cuts || !options->stable_storage) {
    const config::CheckpointConfig placement =
        config.checkpoints.empty() ? config::CheckpointConfig{} : config.checkpoints.front();
    if (options->at_cuts) {
      const graphs::CutSelection cuts(placement, graph, config.file);
      for (graphs::CutId cut : cuts.cuts()) options->cut_positions.push_back(graph.cut_position(cut));
    }
    if (!options->stable_storage) options->buddies.emplace(placement.buddy, config.distribution, graph.node_count());
  }
  return options;
}

std::string buddy_list(const GlobalOptions& options, NodeId node) {
  std::string text = "buddy node";
  const auto buddies = options.buddies->buddies(node);
  if (buddies.size() > 1) text += "s";
  for (std::size_t i = 0; i < buddies.size(); ++i) text += (i == 0 ? " " : ", ") + std::to_string(buddies[i]);
  return text;
}

}  // namespace ftsim::protocols::global
