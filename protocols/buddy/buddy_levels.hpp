#pragma once
// The levels of the buddy protocol beside the buddies' memory (/protocol/levels; docs/multilevel.md,
// "Levels in buddy"): every k-th checkpoint of /checkpoints, this node's whole state at the cut (the
// newest version of each datum it owns that a task wrote before the cut) also goes to its own local
// storage (SCR's cache, FTI's L1) or to its stable-storage server (the PFS). Each version is written
// when it is produced, as the buddy saves are; the checkpoint does not wait for it (an asynchronous
// flush). Once every entry of a level checkpoint is written, a small manifest naming it is written
// after them (written last, as SCR's flush marks a checkpoint complete): a replacement reads the
// manifest to learn what it may restore.
//
// What a level keeps: a node that restores an older level checkpoint L may need versions that
// another node wrote before L and has replaced since; that node must then roll back to L or before
// (the cascade of Lion 2022 §3.5). So every node keeps its level checkpoints from the oldest one
// complete at every node on (as SCR counts a flush only once every rank's files are on the PFS):
// each node tells all the others when a level checkpoint of its own is complete (LEVEL_DONE, N - 1
// small messages), and erases only what is older than every node's. A replacement knows nothing of
// the others until they tell it again: it erases nothing meanwhile.
//
// A restart from a level checkpoint L needs its senders' logs from cut L on, so the node's log
// release (LOG_RELEASE) never passes the oldest checkpoint its levels keep: restart_floor().
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/buddy_options.hpp"
#include "sim/node/flat_multimap.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::buddy {

// Storage tokens (on_storage_done): a level write or read. The top bits say which; a write names
// its level, its generation (begin() starts one: a write of an abandoned plan is ignored) and its
// checkpoint; a read its level, the recovery's read sequence and the entry's index.
namespace level_tokens {
inline constexpr std::uint64_t kWrite = 1ull << 62, kRead = 1ull << 63, kManifest = 1ull << 61;
inline constexpr std::uint64_t make(std::uint64_t kind, bool manifest, std::uint32_t level, std::uint32_t sequence,
                                    std::uint32_t value) {
  return kind | (manifest ? kManifest : 0) | (std::uint64_t(level & 0xF) << 56) |
         (std::uint64_t(sequence & 0xFFFFFF) << 32) | value;
}
inline constexpr std::uint32_t level_of(std::uint64_t token) { return static_cast<std::uint32_t>(token >> 56) & 0xF; }
inline constexpr std::uint32_t sequence_of(std::uint64_t token) { return static_cast<std::uint32_t>(token >> 32) & 0xFFFFFF; }
inline constexpr std::uint32_t value_of(std::uint64_t token) { return static_cast<std::uint32_t>(token); }
}  // namespace level_tokens

// What a level's manifest holds: the newest level checkpoint whose entries are all written and the
// oldest one still kept (0: none); a replacement may restore those between, on the level's
// period (one it finds incomplete it strikes off).
struct LevelManifest {
  std::uint32_t newest = 0, oldest = 0;
  template <class F> void fields(F& f) { f(newest, oldest); }
};

class BuddyLevels {
public:
  explicit BuddyLevels(const BuddyOptions& options) : options_(options) {}
  bool enabled() const { return !options_.levels.empty(); }
  std::size_t count() const { return options_.levels.size(); }

  // The entries of every level checkpoint of this node, from the save plan.
  void plan(node::ProtocolContext& ctx);
  // This node runs from checkpoint n (0: the start): the level checkpoints after n are written, the
  // versions written before cut n (restored) at once, from the node's store.
  void begin(node::ProtocolContext& ctx, std::uint32_t n);
  // A task ran: the versions it wrote that a pending level checkpoint holds are written.
  void on_task_completed(node::ProtocolContext& ctx, node::TaskId task);
  // A write is done: a manifest landed (the restart floor may have risen), or a level checkpoint
  // became whole; either way the levels may be all written.
  struct Written {
    bool manifest = false;
    bool whole = false;
  };
  Written on_written(node::ProtocolContext& ctx, std::uint64_t token);
  // Another node's level checkpoint is complete (LEVEL_DONE). True if the restart floor may have risen.
  bool on_level_done(node::ProtocolContext& ctx, node::NodeId from, const messages::LevelDone& done);
  // What a level's storage holds (a replacement read the manifest).
  void known_complete(std::uint32_t level, const LevelManifest& manifest);

  // The oldest checkpoint a level may restart this node from (kNoBound without levels, 0 while
  // a level has none complete).
  std::uint32_t restart_floor() const;
  // Every level checkpoint it still writes is complete (the run may end).
  bool all_written() const;

  // --- reads, for a restart ---
  std::uint32_t server(node::ProtocolContext& ctx, std::uint32_t level) const;
  std::uint64_t manifest_key(node::ProtocolContext& ctx) const;
  std::uint64_t entry_key(node::ProtocolContext& ctx, std::uint32_t checkpoint, graphs::HandleId h) const;
  // This node's entries of level checkpoint `checkpoint` (a multiple of the level's every).
  const std::vector<std::pair<graphs::HandleId, graphs::Version>>& entries(std::uint32_t level, std::uint32_t checkpoint) const;
  static const char* name(const BuddyLevel& level) { return level.local ? "local storage" : "stable storage"; }
  const BuddyLevel& level(std::uint32_t i) const { return options_.levels[i]; }

  std::string phase() const;  // what it waits for (empty: nothing)

private:
  struct LevelCheckpoint {
    std::uint32_t id = 0;
    std::vector<std::pair<graphs::HandleId, graphs::Version>> entries;  // by handle
    std::uint32_t remaining = 0;  // writes not done yet (pending only)
    bool pending = false;         // being written by this plan
    bool whole = false;           // every entry written (by this process or, a manifest says, before)
    bool stored = false;          // some entry is in storage (to erase once superseded)
  };
  struct Level {
    std::vector<LevelCheckpoint> checkpoints;  // [c / every - 1]
    std::uint32_t complete = 0;                // the newest checkpoint whose manifest is written
    std::uint32_t manifest_wanted = 0;         // the newest whole, whose manifest is due
    bool manifest_in_flight = false;
    bool manifest_stale = false;               // asked for while one was in flight
    std::vector<std::uint32_t> reported;       // per node: the newest complete it told (0: unknown)
  };
  struct Target {
    std::uint32_t level;
    std::uint32_t index;
  };
  void write_entry(node::ProtocolContext& ctx, std::uint32_t level, LevelCheckpoint& c, graphs::HandleId h, graphs::Version v);
  void entry_done(node::ProtocolContext& ctx, std::uint32_t level, LevelCheckpoint& c);
  void request_manifest(node::ProtocolContext& ctx, std::uint32_t level);
  void write_manifest(node::ProtocolContext& ctx, std::uint32_t level);
  // Erases what is older than every node's complete checkpoint (and than its own).
  void erase_older(node::ProtocolContext& ctx, std::uint32_t level);
  // Its oldest whole checkpoint in storage, up to `upto` (0: none).
  std::uint32_t oldest_kept(std::uint32_t level, std::uint32_t upto) const;

  const BuddyOptions& options_;
  std::vector<Level> levels_;
  node::FlatMultimap64<Target> by_version_;  // the level checkpoints each version belongs to
  std::uint32_t generation_ = 0;
};

}  // namespace ftsim::protocols::buddy
