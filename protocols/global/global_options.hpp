#pragma once
// The global protocol's options: its /protocol block, read and checked by the protocol itself, and
// what every process of a run derives from it once (the cut positions, the buddies), read-only.
//   {"type": "global", "period": DURATION | "at": "cuts", "storage": "stable" | "buddy",
//            "restart_cost": DURATION}
// or, with two levels instead of "storage" (docs/multilevel.md):
//   "levels": [{"storage": "local"}, {"storage": "buddy", "every": K0},
//              {"storage": "xor", "group": k, "every": K1},
//              {"storage": "stable", "every": K2}]     (one to four of them, in this order)
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphs/buddy_mapping.hpp"
#include "graphs/task_graph.hpp"
#include "protocols/checkpoint_content.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"
#include "sim/node/protocol.hpp"

namespace ftsim::protocols::global {

using node::FailureNotice;
using node::Message;
using node::NodeId;
using node::ProtocolContext;
using node::TaskId;

// A checkpoint level of /protocol/levels (docs/multilevel.md), from the fastest to the most
// durable: the node's own local storage (/platform/local_storage: survives a process failure
// only), the buddies' memory, an XOR group over nodes of different failure groups (SCR's and
// VeloC's XOR, Moody et al. 2010), stable storage. Checkpoint `id` is on the level if `every`
// divides it.
enum class LevelStorage : std::uint8_t { local, buddy, xor_group, stable };
struct LevelConfig {
  LevelStorage storage = LevelStorage::buddy;
  std::uint32_t every = 1;
  std::uint32_t group = 0;  // xor_group: nodes per XOR set (k)
  double rate = 0;          // xor_group: bytes per second a core XORs
};
const char* level_name(LevelStorage storage);  // "local storage", "the buddies", "the XOR set", "stable storage"

struct GlobalConfig {
  bool at_cuts = false;
  double period = 0;
  bool stable_storage = true;
  double restart_cost = 0;   // seconds a restarted process needs before it can restore
  // /protocol/levels (1 to 4, in that order, each every a multiple of the one before); empty: one
  // level, stable_storage says which.
  std::vector<LevelConfig> levels;
  // The stable level's every (ids K, 2K, ...); 0 without levels or without a stable level.
  std::uint32_t stable_every = 0;

  // Whether checkpoint `id` is saved on the level of that storage.
  bool on_level(std::uint32_t id, LevelStorage storage) const {
    if (levels.empty()) return storage == (stable_storage ? LevelStorage::stable : LevelStorage::buddy);
    for (const LevelConfig& level : levels) {
      if (level.storage == storage) return id % level.every == 0;
    }
    return false;
  }
  bool on_stable(std::uint32_t id) const { return on_level(id, LevelStorage::stable); }
  bool uses(LevelStorage storage) const { return on_level(0, storage); }
  const LevelConfig* level(LevelStorage storage) const {
    for (const LevelConfig& l : levels) {
      if (l.storage == storage) return &l;
    }
    return nullptr;
  }
  // The latest checkpoint up to `id` that is on stable storage (0: the initial state).
  std::uint32_t last_stable(std::uint32_t id) const {
    return stable_storage ? id : stable_every > 0 ? id - id % stable_every : 0;
  }
  // Levels: the most durable level checkpoint `id` is on (an index into levels).
  std::size_t top_level(std::uint32_t id) const;
  // Levels: where every node goes back when checkpoint `id` is lost at every level it is on: the
  // latest checkpoint up to `id` on the next more durable level (0: the initial state); none if
  // `id` was on the most durable one.
  std::optional<std::uint32_t> fallback(std::uint32_t id) const;
  // Levels: the local copies a node keeps beside the committed one, which a fallback may need:
  // the latest up to `id` on each level above the first.
  bool keep_for_fallback(std::uint32_t copy, std::uint32_t id) const;
};
GlobalConfig read_global_options(const config::Config& config, config::JsonReader block);

// What every process of the run uses: the block plus what it implies on this graph.
struct GlobalOptions : GlobalConfig {
  std::vector<TaskId> cut_positions;  // at_cuts: position of checkpoint k at [k - 1]
  std::optional<graphs::BuddyMapping> buddies;  // buddy storage or a buddy level
  // An XOR level: its sets (each member in a different failure group of /platform/group_size),
  // and each node's set and position in it.
  std::vector<std::vector<NodeId>> xor_sets;
  std::vector<std::uint32_t> xor_set_of, xor_position;
  // /checkpoint_data: the images of protocols/checkpoint_content.hpp (null: the snapshot as it is).
  std::shared_ptr<const content::Settings> content;
};

std::shared_ptr<const GlobalOptions> make_global_options(const config::Config& config, config::JsonReader block,
                                                             const graphs::TaskGraph& graph);

// The XOR sets of an XOR level of k nodes per set (options.xor_*); false, with `error`, if a node
// has no node of another failure group to share a set with.
bool make_xor_sets(GlobalOptions& options, std::uint32_t nodes, std::uint32_t group_size, std::uint32_t k, std::string& error);

// "buddy node 3" or "buddy nodes 3, 4": where `node` saves, for notes and error messages.
std::string buddy_list(const GlobalOptions& options, NodeId node);

}  // namespace ftsim::protocols::global
