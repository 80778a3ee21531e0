#include "protocols/buddy/buddy_options.hpp"

#include <string>

#include "graphs/cut_selection.hpp"
#include "sim/config/config_error.hpp"

namespace ftsim::protocols {

namespace {

// A checkpoint store key packs the origin and the checkpoint in 16 bits each (buddy_keeper.cpp).
constexpr std::uint32_t kLimit = 1u << 16;

const config::CheckpointConfig& the_placement(const config::Config& config) { return config.checkpoints.front(); }

}  // namespace

void check_buddy_options(const config::Config& config, config::JsonReader block) {
  block.expect_object();
  block.at("type").as_string();
  if (auto cow = block.find("cow")) cow->as_bool();
  if (auto cost = block.find("copy_cost")) cost->as_seconds();
  if (auto value = block.find("value_bytes")) value->as_bytes();
  if (config.checkpoints.empty()) {
    block.fail("the buddy protocol checkpoints at graph cuts: add /checkpoints (which cuts, e.g. {\"count\": 4, \"buddy\": \"next\"})");
  }
  if (config.checkpoints.size() > 1) {
    config::JsonReader(config.document, config.file).at("checkpoints").fail(
        "the buddy protocol takes one checkpoint placement, got " + std::to_string(config.checkpoints.size()));
  }
  if (config.platform.nodes < 2) block.fail("the buddy protocol needs at least 2 nodes (a node cannot be its own buddy)");
  if (config.platform.nodes >= kLimit) block.fail("the buddy protocol supports up to 65535 nodes");
  block.finish();
}

BuddyOptions::BuddyOptions(const config::Config& config, const graphs::TaskGraph& graph)
    : buddies(the_placement(config).buddy, config.distribution, graph.node_count()),
      saves(graph, graphs::CutSelection(the_placement(config), graph, config.file), buddies) {
  config::JsonReader block(config.protocol.block, config.file, "/protocol");
  if (auto c = block.find("cow")) cow = c->as_bool();
  if (auto c = block.find("copy_cost")) copy_cost = c->as_seconds();
  if (auto c = block.find("value_bytes")) value_bytes = c->as_bytes();
  content = content::make_settings(config, graph);
  if (saves.checkpoints() >= kLimit) {
    throw config::ConfigError(config.file, "/checkpoints", "the buddy protocol supports up to 65535 checkpoints");
  }
}

std::uint32_t BuddyOptions::section_of(graphs::TaskId task) const {
  std::uint32_t c = 0;
  while (c < saves.checkpoints() && saves.position(c + 1) <= task) ++c;
  return c;
}

}  // namespace ftsim::protocols
