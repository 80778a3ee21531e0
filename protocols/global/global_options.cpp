#include "protocols/global/global_options.hpp"

#include <algorithm>

#include "graphs/cut_selection.hpp"
#include "protocols/coordinated_schedule.hpp"
#include "protocols/level_storage.hpp"

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
    // Moody et al. 2010's levels: local storage, the buddies' memory (partner), an XOR group,
    // stable storage (PFS).
    if (block.find("storage")) levels->fail("gives each level's storage: not with /protocol/storage");
    const std::string shape = "one to four levels in this order: " +
                              std::string(R"({"storage": "local"}, {"storage": "buddy", "every": K0}, )") +
                              R"({"storage": "xor", "group": k, "every": K1}, {"storage": "stable", "every": K2})";
    if (!levels->is_array() || levels->size() < 1 || levels->size() > 4) levels->fail_expected(shape);
    for (std::size_t i = 0; i < levels->size(); ++i) {
      auto entry = (*levels)[i];
      entry.expect_object();
      LevelConfig level;
      const std::string storage = entry.at("storage").as_choice({"local", "buddy", "xor", "stable"});
      level.storage = storage == "local"   ? LevelStorage::local
                      : storage == "buddy" ? LevelStorage::buddy
                      : storage == "xor"   ? LevelStorage::xor_group
                                           : LevelStorage::stable;
      if (!options.levels.empty() && level.storage <= options.levels.back().storage) {
        entry.at("storage").fail_expected("a level more durable than the one before (" + shape + ")");
      }
      if (i == 0) {
        if (auto every = entry.find("every"); every && every->as_int(1, 1) != 1) every->fail_expected("1 (the first level takes every checkpoint)");
      } else {
        auto every = entry.at("every");
        level.every = static_cast<std::uint32_t>(every.as_int(1, 1 << 30));
        if (level.every % options.levels.back().every != 0) {
          every.fail_expected("a multiple of the level before's every (" + std::to_string(options.levels.back().every) + "): the levels nest");
        }
      }
      if (level.storage == LevelStorage::xor_group) {
        level.group = static_cast<std::uint32_t>(entry.at("group").as_int(2, 1024));
        level.rate = 5e9;  // the schema's default: XOR streams at memory speed on one core
        if (auto rate = entry.find("rate")) level.rate = rate->as_bandwidth();
      }
      if (level.storage == LevelStorage::stable) options.stable_every = level.every;
      if (level.storage == LevelStorage::stable || level.storage == LevelStorage::local) {
        require_level_storage(config, entry, level.storage == LevelStorage::local);
      }
      if (level.storage == LevelStorage::buddy && config.platform.nodes < 2) {
        entry.fail("the \"buddy\" level needs at least 2 nodes (a node cannot be its own buddy)");
      }
      entry.finish();
      options.levels.push_back(level);
    }
    if (config.checkpoint_data.enabled) {
      levels->fail("is not built with /checkpoint_data yet (an image chain across levels): remove one of them");
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
    if (options->on_level(0, LevelStorage::buddy)) options->buddies.emplace(placement.buddy, config.distribution, graph.node_count());
  }
  for (std::size_t i = 0; i < options->levels.size(); ++i) {
    if (options->levels[i].storage != LevelStorage::xor_group) continue;
    std::string error;
    if (!make_xor_sets(*options, graph.node_count(), config.platform.group_size, options->levels[i].group, error)) {
      block.at("levels")[i].at("group").fail(error);
    }
  }
  return options;
}

bool make_xor_sets(GlobalOptions& options, std::uint32_t nodes, std::uint32_t group_size, std::uint32_t k,
                   std::string& error) {
  // SCR's rule: the members of a set are in different failure groups, so that one group lost
  // loses at most one member of each set. Node n is at position n % g of group n / g; the nodes at
  // one position, in group order, are cut into sets of k (a last one of a single node joins the
  // set before it).
  const std::uint32_t g = group_size > 0 ? group_size : 1;
  options.xor_sets.clear();
  options.xor_set_of.assign(nodes, 0);
  options.xor_position.assign(nodes, 0);
  for (std::uint32_t position = 0; position < std::min(g, nodes); ++position) {
    std::vector<NodeId> column;
    for (std::uint32_t n = position; n < nodes; n += g) column.push_back(n);
    if (column.size() < 2) {
      error = "an XOR set needs nodes in two failure groups or more: node " + std::to_string(column.front()) + " has none beside it (" +
              std::to_string(nodes) + " nodes" + (group_size > 0 ? ", groups of " + std::to_string(group_size) + ")" : ")");
      return false;
    }
    for (std::size_t first = 0, last = 0; first < column.size(); first = last) {
      last = std::min<std::size_t>(first + k, column.size());
      if (column.size() - last == 1) last = column.size();  // no set of one
      options.xor_sets.emplace_back(column.begin() + static_cast<std::ptrdiff_t>(first), column.begin() + static_cast<std::ptrdiff_t>(last));
    }
  }
  for (std::uint32_t s = 0; s < options.xor_sets.size(); ++s) {
    for (std::uint32_t i = 0; i < options.xor_sets[s].size(); ++i) {
      options.xor_set_of[options.xor_sets[s][i]] = s;
      options.xor_position[options.xor_sets[s][i]] = i;
    }
  }
  return true;
}

const char* level_name(LevelStorage storage) {
  switch (storage) {
    case LevelStorage::local: return "local storage";
    case LevelStorage::buddy: return "the buddies";
    case LevelStorage::xor_group: return "the XOR set";
    case LevelStorage::stable: return "stable storage";
  }
  return "?";
}

std::size_t GlobalConfig::top_level(std::uint32_t id) const {
  std::size_t top = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (id % levels[i].every == 0) top = i;
  }
  return top;
}

std::optional<std::uint32_t> GlobalConfig::fallback(std::uint32_t id) const {
  const std::size_t next = top_level(id) + 1;
  if (next >= levels.size()) return std::nullopt;
  return id - id % levels[next].every;
}

bool GlobalConfig::keep_for_fallback(std::uint32_t copy, std::uint32_t id) const {
  for (std::size_t i = 1; i < levels.size(); ++i) {
    if (copy == id - id % levels[i].every) return true;
  }
  return false;
}

std::string buddy_list(const GlobalOptions& options, NodeId node) {
  std::string text = "buddy node";
  const auto buddies = options.buddies->buddies(node);
  if (buddies.size() > 1) text += "s";
  for (std::size_t i = 0; i < buddies.size(); ++i) text += (i == 0 ? " " : ", ") + std::to_string(buddies[i]);
  return text;
}

}  // namespace ftsim::protocols::global
