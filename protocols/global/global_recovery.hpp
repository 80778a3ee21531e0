#pragma once
// A node's part in a global rollback. On a failure notice it stops at once (abort, pause): what runs
// now will be rolled back. The coordinator says to which checkpoint (RECOVER): the node restores
// its local copy, the initial state (checkpoint 0) or, a replacement that lost its copy, the one on
// stable storage or at its buddies in turn (all of which may have lost it too: then the job is
// unrecoverable); it answers RESTORED and, once the coordinator has every node's, resumes (RESUME).
// A replacement first pays /protocol/restart_cost (RECOVER waits), and until it has restored a
// state it takes no part in a checkpoint: its failure may not even be detected yet.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "protocols/checkpoint_content.hpp"
#include "protocols/global/global_checkpointer.hpp"
#include "protocols/global/global_copies.hpp"
#include "protocols/global/global_messages.hpp"
#include "protocols/global/global_options.hpp"
#include "protocols/global/global_xor.hpp"

namespace ftsim::protocols::global {

// Where this node is in a rollback. A notice while it fetches or decodes leaves the state as it is:
// the answer it waits for is stale if the notice moved the epoch, and the next RECOVER fetches again.
enum class RecoveryState : std::uint8_t {
  running,   // no rollback under way
  stopped,   // a notice stopped it, or it is a replacement: waiting for RECOVER
  fetching,  // its checkpoint asked of stable storage or of its buddies
  decoding,  // /checkpoint_data: the chain read back, its decompression charged to a core
  restored,  // RESTORED sent: waiting for RESUME
};

// What moves a rollback; step() holds the transitions.
enum class RecoveryEvent : std::uint8_t {
  notice,     // a failure notice
  replaced,   // this process is a replacement
  fetch,      // RECOVER of a checkpoint it holds no copy of
  decode,     // the chain is in, its decompression charged
  restore,    // RECOVER with a copy at hand, or the checkpoint fetched (and decoded)
  resume,     // RESUME
};

// A replacement's start, apart from the rollback: it may take part in one (even be resumed by the
// RESUME its predecessor earned) before its own failure is detected.
enum class Replacement : std::uint8_t {
  none,         // the first process of its rank, or a replacement that restored a state
  paying_cost,  // paying /protocol/restart_cost: RECOVER waits
  empty,        // it has restored nothing yet: no REQUEST or SAVE is for it
};

class GlobalRecovery {
public:
  GlobalRecovery(const GlobalOptions& options, GlobalCheckpointer& checkpointer, GlobalCopies& copies)
      : options_(options), checkpointer_(checkpointer), copies_(copies), rebuild_(options) {}

  // May this node take part in a checkpoint (it holds a state to save)?
  bool holds_state() const { return replacement_ == Replacement::none; }

  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice);
  void on_restart(ProtocolContext& ctx, const node::RestartInfo& info);
  void on_restart_cost_paid(ProtocolContext& ctx);  // kRestartDelayToken
  void on_recover(ProtocolContext& ctx, const messages::Control& recover);
  void on_resume(ProtocolContext& ctx, const messages::Control& resume);
  void on_restore_data(ProtocolContext& ctx, const messages::Control& data);  // from a buddy
  void on_not_held(ProtocolContext& ctx, const messages::Control& answer);    // from a buddy
  void on_storage_read(ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content);
  void on_xor_pieces(ProtocolContext& ctx, NodeId from, const messages::Control& pieces);  // from an XOR set member
  void on_xor_not_held(ProtocolContext& ctx, const messages::Control& answer);
  // /checkpoint_data: the CPU time of decoding the chain is over (its token).
  void on_decoded(ProtocolContext& ctx, std::uint64_t token);
  // What it waits for, for the stall reports (empty if nothing of the rollback).
  std::string phase() const;

private:
  // The one place the state changes; throws std::logic_error on a transition not listed.
  void step(RecoveryEvent event);
  void become(Replacement to);  // the same, for the replacement's start
  // The checkpoint being fetched or decoded (0: none).
  std::uint32_t restoring() const {
    return state_ == RecoveryState::fetching || state_ == RecoveryState::decoding ? restored_from_ : 0;
  }
  void recover(ProtocolContext& ctx, std::uint32_t epoch, std::uint32_t checkpoint, const FailureNotice& cause);
  // Levels: asks the levels from `first` on that hold `checkpoint` in turn (past the last, LOST to
  // the coordinator).
  void fetch_from_level(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch, std::size_t first);
  void restore_chain(ProtocolContext& ctx, std::span<const node::Bytes* const> chain);
  void restore(ProtocolContext& ctx, const node::NodeSnapshot& snapshot);

  const GlobalOptions& options_;
  GlobalCheckpointer& checkpointer_;  // aborted on a failure, given the restored state
  GlobalCopies& copies_;              // its local copies; where a fetched one is kept
  RecoveryState state_ = RecoveryState::running;
  Replacement replacement_ = Replacement::none;
  std::uint32_t restored_from_ = 0;  // the checkpoint of the last RECOVER (0: the initial state)
  std::size_t asked_buddy_ = 0;      // fetching from buddies: which one was asked last
  std::size_t level_ = 0;            // levels: the one being asked (an index into options_.levels)
  std::uint32_t read_sequence_ = 0;  // levels: the storage read awaited (level_read_token)
  XorRebuild rebuild_;               // an XOR level: the rebuild under way
  bool rebuilt_ = false;             // the restore under way is of a rebuild (its parity block is back)
  FailureNotice cause_{};            // the failure the current rollback repairs
  double began_ = -1;                // for the trace span
  std::optional<messages::Control> deferred_recover_;  // RECOVER received while paying the cost
  // /checkpoint_data: a chain being read back, a restore waiting for the CPU time of its decoding.
  content::ChainFetch fetch_;
  std::optional<node::NodeSnapshot> pending_restore_;
  std::uint32_t decode_sequence_ = 0;
};

}  // namespace ftsim::protocols::global
