#pragma once
// An application process of the uncoordinated protocol (Guermouche 2011, Fig. 3), one per node.
// Its parts, one file each:
//  - unco_process.cpp     the failure-free part: dates, epochs and phases piggybacked on every
//                         data message (l. 13-28), the acknowledgements and the logging rule
//                         (l. 34-39), the SPE table and the receipts (RPP), the log by reference,
//                         the garbage collection below the smallest epoch (§III-A.4);
//  - unco_checkpoint.cpp  the uncoordinated checkpoints (l. 41-45): their schedule (random,
//                         periodic with per-node offsets, clusters), the blocking save on stable
//                         storage and what a checkpoint holds, and restoring one;
//  - unco_rollback.cpp    the recovery (l. 47-74): stop and report on ROUND, roll back on LINE,
//                         the orphans and the missing versions (LISTS), the NOTIFICATION, the
//                         phases released by READY, the orphans counted (NO_ORPHAN_PHASE);
//  - unco_replay.cpp      the re-sends from memory a restarted process asks for, gated by phase.
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocols/uncoordinated/unco_messages.hpp"
#include "protocols/uncoordinated/unco_options.hpp"

namespace ftsim::protocols::uncoordinated {

class Process {
public:
  Process(const Options& options, core::NodeId node);

  // --- the failure-free part (unco_process.cpp) ---
  void on_start(core::ProtocolContext& ctx);
  core::SendVerdict on_send(core::ProtocolContext& ctx, core::Message& m);
  core::ReceiveVerdict on_receive(core::ProtocolContext& ctx, const core::Message& m);
  void on_ack(core::ProtocolContext& ctx, core::NodeId from, const messages::Ack& ack);
  void on_floor(core::ProtocolContext& ctx, std::uint32_t floor);
  // --- checkpoints (unco_checkpoint.cpp) ---
  void on_timer(core::ProtocolContext& ctx, std::uint64_t token);
  void on_storage_done(core::ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content);
  void on_activity_done(core::ProtocolContext& ctx, std::uint64_t token) { charged(ctx, token); }
  void try_checkpoint(core::ProtocolContext& ctx);  // a task ended, a message left, an ack came
  void on_task_completed(core::ProtocolContext& ctx) {
    ++progress_;
    try_checkpoint(ctx);
  }
  // --- recovery (unco_rollback.cpp) ---
  void on_failure_notice(core::ProtocolContext& ctx, const core::FailureNotice& notice);
  void on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info);
  void on_control(core::ProtocolContext& ctx, const core::Message& m);
  bool finished(core::ProtocolContext& ctx) const;
  std::string phase(core::ProtocolContext& ctx) const;

private:
  // A data message this process sent and keeps: unacknowledged (NonAck, l. 16), or logged (l. 37),
  // or, under the classic protocol, the channel state it must be able to send again. By
  // reference: the version stays pinned in memory.
  struct Sent {
    std::uint32_t date = 0, epoch = 0, phase = 0;
    std::uint32_t receiver_epoch = messages::kNoEpoch;  // from the acknowledgement
    bool acked = false;
    bool lost = false;      // unacknowledged when its receiver rolled back: its ack may never come
    bool confirmed = true;  // false: restored after a failure, its receive epoch may be stale (kept)
    std::uint64_t store_key = 0;  // its entry in the log store (0: none)
  };
  using SentKey = std::pair<core::NodeId, std::uint64_t>;  // destination, version key
  // A data message it received first-time (RPP, l. 26): kept for the orphans and the receive table.
  struct Receipt {
    core::NodeId source;
    std::uint64_t version;
    std::uint32_t date, send_epoch, phase, epoch;  // sender's date and epoch; its phase and epoch then
    std::uint32_t send_phase;                      // the sender's phase (a suppressed re-send keeps it)
  };
  // What a checkpoint holds (l. 42), encoded on stable storage.
  struct Saved {
    core::NodeSnapshot snapshot;
    std::uint32_t epoch = 0, phase = 0, date = 0;
    std::vector<std::uint32_t> epoch_dates;
    std::vector<std::pair<SentKey, Sent>> log;
    std::vector<Receipt> receipts;
    std::vector<std::pair<std::pair<std::uint32_t, core::NodeId>, std::uint32_t>> spe;
  };
  enum class Stage { running, draining, writing };                  // checkpoints
  enum class Recovery { none, stopped, restoring, applied, released };  // a recovery round
  enum class Status { running, blocked, rolled_back };              // Fig. 3 l. 1

  // unco_process.cpp
  void keep(core::ProtocolContext& ctx, const SentKey& key, Sent sent);
  void forget(core::ProtocolContext& ctx, std::map<SentKey, Sent>::iterator it);
  void log_entry(core::ProtocolContext& ctx, const SentKey& key, Sent& sent);
  bool stale(const core::Message& m, std::uint32_t send_epoch) const;
  // unco_checkpoint.cpp
  void arm_checkpoint_timer(core::ProtocolContext& ctx);
  void save(core::ProtocolContext& ctx);
  void saved(core::ProtocolContext& ctx);
  core::Bytes encode_saved(core::ProtocolContext& ctx, std::uint64_t& bytes, double& charge);
  core::NodeSnapshot saved_snapshot(core::ProtocolContext& ctx) const;
  void write_tables(core::WireWriter& w) const;  // what it restarts with besides its state
  static void read_tables(Saved& saved, core::WireReader& r);
  Saved decode_saved(const core::Bytes& content) const;
  // /checkpoint_data: reads the chain of restoring_ from storage; an image read; a charge over.
  void read_checkpoint(core::ProtocolContext& ctx);
  void read_image(core::ProtocolContext& ctx, const core::Bytes& image);
  void charged(core::ProtocolContext& ctx, std::uint64_t token);
  std::uint64_t storage_key(std::uint32_t checkpoint) const { return (std::uint64_t(node_) << 32) | checkpoint; }
  std::uint32_t server(core::ProtocolContext& ctx) const { return node_ % std::max(1u, ctx.storage_servers()); }
  void install(core::ProtocolContext& ctx, Saved saved, bool keep_memory);
  // unco_rollback.cpp
  void stop(core::ProtocolContext& ctx);
  void report(core::ProtocolContext& ctx);
  void apply_line(core::ProtocolContext& ctx);
  void restored(core::ProtocolContext& ctx);
  void send_lists(core::ProtocolContext& ctx);
  void notify(core::ProtocolContext& ctx);
  void on_ready(core::ProtocolContext& ctx, const messages::Ready& ready);
  void maybe_run(core::ProtocolContext& ctx);
  void end_recovery(core::ProtocolContext& ctx);
  void orphan_replayed(core::ProtocolContext& ctx, core::NodeId from, std::uint64_t version);
  void on_lists(core::ProtocolContext& ctx, core::NodeId from, const messages::Lists& lists);
  std::vector<messages::Dependency> dependencies() const;
  // unco_replay.cpp
  void serve_replays(core::ProtocolContext& ctx);
  std::vector<std::pair<core::NodeId, std::uint64_t>> missing_versions(core::ProtocolContext& ctx) const;

  const Options& options_;
  core::NodeId node_;
  // --- Fig. 3's local variables ---
  std::uint32_t date_ = 1, epoch_ = 1, phase_ = 1;
  std::vector<std::uint32_t> epoch_dates_;  // SPE[e].date: its date at the beginning of each epoch
  std::map<SentKey, Sent> sent_;            // NonAck and Logs
  std::vector<Receipt> receipts_;           // RPP, per message
  std::set<SentKey> received_;              // (source, version) of the receipts: duplicates
  std::map<std::pair<std::uint32_t, core::NodeId>, std::uint32_t> spe_;  // (send epoch, destination) -> receive epoch
  std::uint64_t next_store_key_ = 1;
  std::uint32_t floor_ = 0;
  // --- /checkpoint_data ---
  std::optional<content::ImageWriter> writer_;
  content::ChainFetch fetch_;
  std::optional<std::pair<std::uint32_t, core::Bytes>> pending_write_;  // (checkpoint, image)
  std::optional<Saved> pending_install_;
  std::uint32_t charge_sequence_ = 0;
  // --- checkpoints ---
  Stage stage_ = Stage::running;
  std::uint32_t checkpoints_ = 0;  // taken in this execution (its number: epoch_ - first epoch)
  std::uint32_t writing_ = 0;      // the checkpoint being written
  std::uint32_t abandoned_write_ = 0;  // a write a recovery abandoned, not complete yet (0: none)
  std::uint64_t progress_ = 1;     // tasks completed and messages received since its last save
  bool checkpoint_due_ = false;    // its time came during a recovery or a save
  std::optional<std::uint64_t> timer_;
  std::uint64_t timer_token_ = 0;
  std::uint32_t periods_ = 0;      // periodic: checkpoints scheduled so far
  std::mt19937_64 random_;
  double save_began_ = 0;
  std::uint64_t save_bytes_ = 0;
  // --- recovery ---
  Recovery recovery_ = Recovery::none;
  Status status_ = Status::running;
  std::uint32_t round_ = 0;
  bool replacement_ = false;       // a failed node's new process that has restored nothing yet
  std::uint32_t restart_epoch_ = messages::kNoEpoch;  // restarted since the last complete recovery
  std::uint32_t restoring_ = 0;    // the checkpoint being read back
  std::uint64_t read_token_ = 0;
  bool probing_ = false;           // reading the checkpoint after the last one the coordinator knew
  std::uint32_t probe_fallback_ = 0;
  std::optional<messages::Line> line_;
  bool rolled_to_start_ = false;   // restored the job's input: its initial values go again
  bool fresh_ = false;             // exactly at the checkpoint it restored (nothing ran since)
  std::vector<std::pair<core::NodeId, messages::Lists>> pending_lists_;  // arrived before its restore
  std::uint32_t lists_unanswered_ = 0;
  std::uint32_t ready_ = 0;
  std::uint32_t blocked_phase_ = 0;  // its phase when it applied the line (l. 73)
  core::FailureNotice cause_{};
  double recovery_began_ = 0;
  // Orphans it received and keeps, until their sender passes them again: by (source, version),
  // the phase they were received in; and the count per phase (OrphCount, l. 8).
  std::map<SentKey, std::uint32_t> orphans_;
  std::map<std::uint32_t, std::uint32_t> orphan_count_;
  // Re-sends not to make: (receiver, version) -> the receiver's epoch when it got it.
  std::map<SentKey, std::pair<std::uint32_t, std::uint32_t>> suppress_;  // orphan -> (receive epoch, send phase)
  // Per sender: its rollbacks (round, restart epoch), to recognise its messages from before one.
  std::unordered_map<core::NodeId, std::vector<std::pair<std::uint32_t, std::uint32_t>>> rollbacks_;
  // Re-sends asked of it: (destination, version), served once allowed.
  std::vector<SentKey> requests_;
  std::vector<std::pair<graphs::HandleId, graphs::Version>> unpin_later_;  // not during a recovery
  std::vector<std::pair<core::NodeId, messages::Ack>> pending_acks_;        // came during a recovery
};

}  // namespace ftsim::protocols::uncoordinated
