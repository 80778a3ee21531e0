#include "protocols/buddy/buddy_options.hpp"

#include <bit>
#include <string>

#include "graphs/cut_selection.hpp"
#include "protocols/level_storage.hpp"
#include "sim/config/config_error.hpp"

namespace ftsim::protocols::buddy {

namespace {

const config::CheckpointConfig& the_placement(const config::Config& config) { return config.checkpoints.front(); }

}  // namespace

std::vector<BuddyLevel> read_buddy_levels(const config::Config& config, config::JsonReader block) {
  std::vector<BuddyLevel> levels;
  auto list = block.find("levels");
  if (!list) return levels;
  const std::string shape = R"(the levels in this order, "buddy" required: {"storage": "local", "every": K1}, )"
                            R"({"storage": "buddy"}, {"storage": "stable", "every": K2})";
  if (!list->is_array() || list->size() < 1 || list->size() > 3) list->fail_expected(shape);
  int previous = -1;  // 0 local, 1 buddy, 2 stable
  bool buddy = false;
  for (std::size_t i = 0; i < list->size(); ++i) {
    auto entry = (*list)[i];
    entry.expect_object();
    const std::string storage = entry.at("storage").as_choice({"local", "buddy", "xor", "stable"});
    if (storage == "xor") {
      entry.at("storage").fail("is a level of global only: buddy saves each datum as it is produced, so a parity "
                               "over a set would be recomputed at every save (docs/multilevel.md, \"Levels in buddy\")");
    }
    const int rank = storage == "local" ? 0 : storage == "buddy" ? 1 : 2;
    if (rank <= previous) entry.at("storage").fail_expected(shape);
    previous = rank;
    if (rank == 1) {
      // The protocol's own level: every checkpoint of /checkpoints.
      buddy = true;
      if (auto every = entry.find("every"); every && every->as_int(1, 1 << 30) != 1) {
        every->fail_expected("1 (the buddies keep every checkpoint of /checkpoints)");
      }
      entry.finish();
      continue;
    }
    BuddyLevel level;
    level.local = rank == 0;
    level.every = static_cast<std::uint32_t>(entry.at("every").as_int(1, 1 << 30));
    require_level_storage(config, entry, level.local);
    entry.finish();
    levels.push_back(level);
  }
  if (!buddy) list->fail_expected(shape);
  if (config.checkpoint_data.enabled && !levels.empty()) {
    list->fail("is not built with /checkpoint_data yet (an image chain on a level): remove one of them");
  }
  return levels;
}

void check_buddy_options(const config::Config& config, config::JsonReader block) {
  block.expect_object();
  block.at("type").as_string();
  if (auto cow = block.find("cow")) cow->as_bool();
  if (auto cost = block.find("copy_cost")) cost->as_seconds();
  if (auto value = block.find("value_bytes")) value->as_bytes();
  if (auto priority = block.find("priority")) {
    if (priority->is_string()) {
      priority->as_choice({"iteration", "max", "min"});
    } else {
      priority->as_int(INT32_MIN, INT32_MAX);
    }
  }
  read_buddy_levels(config, block);
  if (config.checkpoints.empty()) {
    block.fail("the buddy protocol checkpoints at graph cuts: add /checkpoints (which cuts, e.g. {\"count\": 4, \"buddy\": \"next\"})");
  }
  if (config.checkpoints.size() > 1) {
    config::JsonReader(config.document, config.file).at("checkpoints").fail(
        "the buddy protocol takes one checkpoint placement, got " + std::to_string(config.checkpoints.size()));
  }
  if (config.platform.nodes < 2) block.fail("the buddy protocol needs at least 2 nodes (a node cannot be its own buddy)");
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
  levels = read_buddy_levels(config, block);
  if (config.platform.network.send_window > 0) {
    // "iteration" (the default), "max", "min" or a number
    const auto p = block.find("priority");
    const std::string rule = !p ? "iteration" : p->is_string() ? p->as_choice({"iteration", "max", "min"}) : "number";
    const std::int32_t fixed = rule == "max"      ? INT32_MAX
                               : rule == "min"    ? INT32_MIN
                               : rule == "number" ? static_cast<std::int32_t>(p->as_int(INT32_MIN, INT32_MAX))
                                                  : 0;
    checkpoint_priority.assign(saves.checkpoints(), fixed);
    if (rule == "iteration") {
      graphs::TaskId begin = 0;
      for (std::uint32_t c = 1; c <= saves.checkpoints(); ++c) {
        const graphs::TaskId end = saves.position(c);
        std::int32_t highest = INT32_MIN;
        for (graphs::TaskId t = begin; t < end; ++t) highest = std::max(highest, graph.priority(t));
        checkpoint_priority[c - 1] = begin < end ? highest : 0;
        begin = end;
      }
    }
  }
  if (!entry_keys.layout(graph.node_count(), saves.checkpoints(), graph.handle_count())) {
    throw config::ConfigError(config.file, "/checkpoints",
                              "the buddy protocol's store keys take " + std::to_string(graph.node_count()) + " nodes, " +
                                  std::to_string(saves.checkpoints()) + " checkpoints and " +
                                  std::to_string(graph.handle_count()) + " data handles in 63 bits: too many");
  }
}

bool EntryKeys::layout(std::uint64_t nodes, std::uint64_t checkpoints, std::uint64_t handles) {
  const unsigned origin_bits = std::bit_width(nodes > 0 ? nodes - 1 : 0);
  checkpoint_bits_ = std::bit_width(checkpoints);   // checkpoints 0 (none yet) to n
  handle_bits_ = std::bit_width(handles);           // handles 0 to n - 1, and n for the VALUE entries
  handles_ = handles;
  return origin_bits + checkpoint_bits_ + handle_bits_ <= 63;
}

std::uint32_t BuddyOptions::section_of(graphs::TaskId task) const {
  std::uint32_t c = 0;
  while (c < saves.checkpoints() && saves.position(c + 1) <= task) ++c;
  return c;
}

}  // namespace ftsim::protocols::buddy
