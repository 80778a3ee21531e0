#pragma once
// The buddy protocol's options: what every process of a run shares, read-only, derived once from
// the config and the task graph (the cuts, the buddies and the save plan), and the check of
// /protocol and /checkpoints that `ftsim validate` runs.
#include <cstdint>
#include <vector>

#include "graphs/buddy_mapping.hpp"
#include "graphs/checkpoint_saves.hpp"
#include "graphs/task_graph.hpp"
#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/checkpoint_content.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::protocols::buddy {

// The key of a stored save in a keeper's checkpoint store: origin, checkpoint and handle (the VALUE
// entries' handle last), each in as many bits as the job needs, in that order from the top (the
// store's key order is (origin, checkpoint, handle) whatever the sizes).
class EntryKeys {
public:
  EntryKeys() = default;
  // False if the three do not fit in 63 bits (a node count, checkpoint count and handle count
  // whose bits add up to more).
  bool layout(std::uint64_t nodes, std::uint64_t checkpoints, std::uint64_t handles);
  std::uint64_t key(graphs::NodeId origin, std::uint32_t checkpoint, graphs::HandleId h) const {
    const std::uint64_t handle = h == messages::kValueHandle ? handles_ : h;
    return (((std::uint64_t(origin) << checkpoint_bits_) | checkpoint) << handle_bits_) | handle;
  }

private:
  unsigned checkpoint_bits_ = 16, handle_bits_ = 32;
  std::uint64_t handles_ = 0;
};

// A level under the buddies' memory or above it (docs/multilevel.md, "Levels in buddy"): every
// `every`-th checkpoint of /checkpoints, this node's whole state at the cut also goes to its own
// local storage (SCR's cache, FTI's L1) or to its stable-storage server (the PFS), written as the
// versions are produced and not awaited by the checkpoint (an asynchronous flush).
struct BuddyLevel {
  bool local = false;  // the node's local storage; false: its stable-storage server
  std::uint32_t every = 1;
};
// /protocol/levels, checked (errors name the JSON path); empty without levels.
std::vector<BuddyLevel> read_buddy_levels(const config::Config& config, config::JsonReader block);

struct BuddyOptions {
  BuddyOptions(const config::Config& config, const graphs::TaskGraph& graph);
  // /protocol/levels besides the buddies' memory: local first, then stable (at most one each).
  std::vector<BuddyLevel> levels;
  EntryKeys entry_keys;
  graphs::BuddyMapping buddies;
  graphs::CheckpointSaves saves;
  // /protocol/cow: a save copies the datum at once (sent from the copy), instead of holding its
  // next writer until the save has left (write-after-read).
  bool cow = false;
  // /protocol/copy_cost: the buddy's copy task per entry received (StarPU copies each received
  // checkpoint datum into a handle of its own; Lion 2022 §2.5 measured about 100 us per 320 x 320
  // tile), taking one of its cores; the entry counts once copied.
  double copy_cost = 0;
  // /protocol/value_bytes: the user VALUE entries of each checkpoint (e.g. the loop index), saved
  // with the checkpoint's submission.
  std::uint64_t value_bytes = 0;
  // /checkpoint_data: each save is a datum image (protocols/checkpoint_content.hpp), sent from its
  // encoded copy (as with cow) once its hashing and compression took a core; null: as it is.
  std::shared_ptr<const content::Settings> content;

  // /protocol/priority, with a send window (/platform/network/send_window): the priority of each
  // checkpoint's transfers, [c - 1] for checkpoint c; empty without a window (nothing is queued).
  // "iteration" (Lion 2022 §2.3.4, its runs): the highest priority of the tasks submitted between
  // the previous checkpoint and this one; "max" / "min": above / below every task; or a number.
  std::vector<std::int32_t> checkpoint_priority;
  std::int32_t priority_of_checkpoint(std::uint32_t c) const {
    return checkpoint_priority.empty() ? 0 : checkpoint_priority[c - 1];
  }

  // The section of a task: how many checkpoints have their cut at or before it.
  std::uint32_t section_of(graphs::TaskId task) const;
};

// Checks /protocol and /checkpoints for buddy (errors name the JSON path).
void check_buddy_options(const config::Config& config, config::JsonReader block);

}  // namespace ftsim::protocols::buddy
