#pragma once
// The origin side of the buddy protocol: this node's own checkpoints and its message log.
//  - Saves (Lion & Thibault 2020 §V; Lion 2022 §2.4): when the last writer before cut c of a datum
//    it produced completes, the datum goes to each buddy at once (a data message of traffic
//    "checkpoint", through the runtime, whose send holds later writers: write-after-read; or, with
//    cow, from a copy). Only data modified since the previous checkpoint are saved, never initial
//    values. A save is free when the buddy receives that version through an application transfer
//    (the cache, Lion 2020 §IV-A and Fig. 4: CACHED counters).
//  - Validation: checkpoint c is valid when its tasks before the cut are done and every buddy with
//    entries for c acknowledged; it then sends VALIDATE(c) to its buddies (the thesis sends it to
//    the principal buddy only; every buddy needs it here to collect its garbage).
//  - Re-protection: a replaced buddy holds nothing; this node sends it, in one message, the full
//    state of a checkpoint R it can still produce (and the saves of later checkpoints already
//    made), so that the buddy can serve R once it is valid.
//  - Message log (Lion 2022 §3.3): every application data message it sends is logged by reference
//    (the version stays pinned), for replays to a restarted reader (BuddyReplay). Log GC: when this
//    node validates c, its buddies keep c - 1 and c, so it will never restart before c - 1: it
//    tells the nodes it receives data from, which drop the entries its tasks before that cut read.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/buddy_options.hpp"
#include "sim/node/flat_multimap.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::buddy {

class BuddyOrigin {
public:
  explicit BuddyOrigin(const BuddyOptions& options) : options_(options) {}

  // This node's saves per version, the buddies each checkpoint waits for, the nodes it reads from.
  void plan(node::ProtocolContext& ctx);
  // The VALUE entries of checkpoints from_checkpoint on: saved when the checkpoint is submitted.
  void send_values(node::ProtocolContext& ctx, std::uint32_t from_checkpoint);
  // A task ran for the first time: the versions it wrote that a checkpoint saves go to the buddies.
  void save_outputs(node::ProtocolContext& ctx, node::TaskId task);
  // The send-queue priority of a save of (h, v): its checkpoint's (/protocol/priority).
  std::int32_t save_priority(graphs::HandleId h, graphs::Version v) const;
  // Validates, in order, the checkpoints whose tasks are done and whose buddies all acknowledged.
  void try_validate(node::ProtocolContext& ctx);
  void on_ack(node::ProtocolContext& ctx, node::NodeId buddy, std::uint32_t checkpoint);
  // `buddy` was replaced (its `incarnation`, or kAnyIncarnation) and holds nothing of this node.
  void reprotect(node::ProtocolContext& ctx, node::NodeId buddy, std::uint32_t incarnation);
  // A restore installed checkpoint n: those up to n count as valid, validation goes on from n + 1.
  void on_restored(std::uint32_t n) {
    next_to_validate_ = n + 1;
    released_ = 0;
  }
  bool all_valid() const { return next_to_validate_ > options_.saves.checkpoints(); }

  // With levels (buddy_levels.hpp): the oldest checkpoint a level may restart this node from. Its
  // log release never passes it (kNoBound without levels); a rise may release more now.
  void raise_restart_floor(node::ProtocolContext& ctx, std::uint32_t floor);

  // --- the message log ---
  void log(node::ProtocolContext& ctx, const node::Message& m);
  // `reader` will restart at checkpoint `checkpoint` or later (LOG_RELEASE).
  void release_log(node::ProtocolContext& ctx, node::NodeId reader, std::uint32_t checkpoint);
  // A rollback: the logged versions are replaced by the restored ones, re-execution logs again.
  void drop_log(node::ProtocolContext& ctx);
  // `reader` (any of its incarnations) let this node drop log entries: it cannot restart from the input.
  bool released_by(node::NodeId reader) const {
    return std::binary_search(released_by_.begin(), released_by_.end(), reader);
  }

  // --- /checkpoint_data ---
  // Saves waiting for a core to hash and compress them start on the free cores; one finished (its
  // token) leaves for its buddy.
  void start_encodes(node::ProtocolContext& ctx);
  void on_encode_done(node::ProtocolContext& ctx, std::uint64_t token);
  static constexpr std::uint64_t kEncodeTokenBit = 1ull << 62;
  // A rollback: what it remembers of its saves describes a state it has left; the next are full.
  void forget_saves() {
    if (writer_) writer_->forget_all();
  }

  // What it waits for, for the stall reports (empty: nothing).
  std::string phase(node::ProtocolContext& ctx) const;

private:
  struct OwnSave {  // a save this node makes
    std::uint32_t checkpoint;
    node::NodeId buddy;
    bool cached;
  };
  struct OwnCheckpoint {
    std::vector<node::NodeId> waiting;  // buddies with entries that have not acknowledged yet
    double first_save = -1, last_save = -1;
    std::uint64_t bytes = 0;
    std::uint64_t logical_bytes = 0;  // /checkpoint_data: what the saves stand for
    double encode_seconds = 0;
  };
  struct Encoding {  // /checkpoint_data: a save waiting for its encoding's CPU time
    node::NodeId buddy = 0;
    messages::SavedCopy copy;
    std::uint64_t bytes = 0;
    double seconds = 0;
    std::uint64_t token = 0;  // 0: not started
    bool done = false;
  };
  struct LogEntry {
    std::uint64_t version_key;
    std::uint64_t store_key;  // the entry in the log store
  };
  void save_version(node::ProtocolContext& ctx, graphs::HandleId h, graphs::Version v);

  const BuddyOptions& options_;
  node::FlatMultimap64<OwnSave> own_saves_;  // by version key, planned once
  // A bit per task of the node (by local slot): it writes a version that own_saves_ holds. Tasks
  // end in about slot order, so this is read from a few cache lines, where a lookup of each version
  // written in own_saves_ missed the cache at most tasks (3% of a 64-node stencil run).
  std::vector<std::uint64_t> saving_tasks_;
  std::vector<OwnCheckpoint> checkpoints_;                             // by checkpoint - 1
  std::uint32_t next_to_validate_ = 1;
  std::uint32_t restart_floor_ = messages::kNoBound;  // levels: the log release stops there
  std::uint32_t released_ = 0;                         // the last LOG_RELEASE sent (since the last restore)
  void send_log_release(node::ProtocolContext& ctx);
  std::unordered_map<node::NodeId, std::uint32_t> reprotecting_;  // the checkpoint R, per replaced buddy
  std::vector<node::NodeId> producers_;  // the nodes whose versions this node's tasks read (log GC)
  // Sender-based log by reference: what it sent to whom; the versions stay pinned until the
  // destination's restart cut is past all their readers (release_log).
  std::unordered_map<node::NodeId, std::vector<LogEntry>> log_;
  std::uint64_t next_log_key_ = 1;
  // The nodes that let this node drop log entries (any of their incarnations), sorted: the few it
  // sends data to, not a flag per node of the job (N^2 bytes over the job).
  std::vector<node::NodeId> released_by_;
  // /checkpoint_data: the block hashes of what it saved to each buddy, and the encodings waiting
  // for a core and running.
  std::optional<content::DatumWriter> writer_;
  // In the order of the saves: they leave in that order (an incremental image after the one it
  // builds on), whichever encoding ends first.
  std::deque<Encoding> encodes_;
  std::uint64_t next_encode_ = 1;
};

}  // namespace ftsim::protocols::buddy
