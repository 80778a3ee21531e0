#pragma once
// The global protocol's options: its /protocol block, read and checked by the protocol itself, and
// what every process of a run derives from it once (the cut positions, the buddies), read-only.
//   {"type": "global", "period": DURATION | "at": "cuts", "storage": "stable" | "buddy",
//            "restart_cost": DURATION}
// or, with two levels instead of "storage" (docs/multilevel.md):
//   "levels": [{"storage": "buddy"}, {"storage": "stable", "every": K}]
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

struct GlobalConfig {
  bool at_cuts = false;
  double period = 0;
  bool stable_storage = true;
  double restart_cost = 0;   // seconds a restarted process needs before it can restore
  // /protocol/levels: every checkpoint at the buddies, and every stable_every-th (ids K, 2K, ...)
  // on stable storage too. 0: one level (stable_storage says which).
  std::uint32_t stable_every = 0;

  // Whether checkpoint `id` is saved on stable storage (as well as at the buddies with levels).
  bool on_stable(std::uint32_t id) const { return stable_storage || (stable_every > 0 && id % stable_every == 0); }
  // The latest checkpoint up to `id` that is on stable storage (0: the initial state).
  std::uint32_t last_stable(std::uint32_t id) const {
    return stable_storage ? id : stable_every > 0 ? id - id % stable_every : 0;
  }
};
GlobalConfig read_global_options(const config::Config& config, config::JsonReader block);

// What every process of the run uses: the block plus what it implies on this graph.
struct GlobalOptions : GlobalConfig {
  std::vector<TaskId> cut_positions;  // at_cuts: position of checkpoint k at [k - 1]
  std::optional<graphs::BuddyMapping> buddies;
  // /checkpoint_data: the images of protocols/checkpoint_content.hpp (null: the snapshot as it is).
  std::shared_ptr<const content::Settings> content;
};

std::shared_ptr<const GlobalOptions> make_global_options(const config::Config& config, config::JsonReader block,
                                                             const graphs::TaskGraph& graph);

// "buddy node 3" or "buddy nodes 3, 4": where `node` saves, for notes and error messages.
std::string buddy_list(const GlobalOptions& options, NodeId node);

}  // namespace ftsim::protocols::global
