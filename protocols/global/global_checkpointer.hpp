#pragma once
// A node's part in the blocking coordinated checkpoint: it counts the data messages of the epoch
// (per destination sent, received), stops and answers READY with its counts once quiescent (after
// REQUEST, or at cuts once it reached the cut), waits after SAVE until it received as many as the
// others sent it (the flush), saves its state (GlobalCopies: a local copy, and one on stable storage
// or at its buddies), answers SAVED once that is acknowledged, and on COMMIT resumes and drops what
// the commit made useless. The recovery (global_recovery.hpp) aborts a session and hands it back
// the state it restored.
#include <cstdint>
#include <map>
#include <string>

#include "protocols/global/global_copies.hpp"
#include "protocols/global/global_keeper.hpp"
#include "protocols/global/global_options.hpp"

namespace ftsim::protocols::global {

// Where this node is in a checkpoint (checkpoint_ says which). It replaces the three counters
// ready_for_, save_for_ and saving_ of the single class this protocol once was.
enum class SessionState : std::uint8_t {
  idle,      // no checkpoint under way: working, or stopped by a failure
  armed,     // READY owed once quiescent: after REQUEST (paused) or, at cuts, once the cut is reached
  ready,     // READY sent: waiting for SAVE
  flushing,  // SAVE received: waiting for the data messages sent to it before the others stopped
  saving,    // state saved: waiting for GlobalCopies to have it acknowledged
  saved,     // SAVED sent: waiting for COMMIT
};

// What moves a session; step() holds the transitions.
enum class SessionEvent : std::uint8_t {
  request,     // REQUEST: stop and report
  next_cut,    // the run's start, RESUME (at cuts: READY owed at the next cut, if any)
  ready_sent,  // quiescent (and at the cut): READY sent
  save,        // SAVE
  flushed,     // every message it was owed arrived: state saved
  stored,      // acknowledged by storage or by every buddy: SAVED sent
  commit,      // COMMIT (at cuts: READY owed at the next cut, if any)
  abort,       // a failure: the session is over
  restored,    // the recovery restored a state
};

class GlobalCheckpointer {
public:
  GlobalCheckpointer(const GlobalOptions& options, GlobalCopies& copies, GlobalKeeper& keeper)
      : options_(options), copies_(copies), keeper_(keeper) {}

  void on_start(ProtocolContext& ctx);
  // Data messages of this epoch, counted for the flush.
  void count_sent(NodeId to) { ++sent_[to]; }
  void count_received() { ++received_; }
  // A task finished, a sent message left, a received one was stored: READY or the save may follow.
  void on_task_completed(ProtocolContext& ctx) { try_ready(ctx); }
  void on_data_released(ProtocolContext& ctx);
  void on_stored(ProtocolContext& ctx);
  // The coordinator's messages (the caller checked the epoch and that this node holds a state).
  void on_request(ProtocolContext& ctx, std::uint32_t checkpoint);
  void on_save(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint64_t expected_received);
  void on_commit(ProtocolContext& ctx, std::uint32_t checkpoint);
  // Where the saved state went: a buddy's acknowledgement, a storage write done, an image encoded.
  void on_ack(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch);
  void on_written(ProtocolContext& ctx, std::uint64_t token);
  void on_encoded(ProtocolContext& ctx, std::uint64_t token) { copies_.on_encoded(ctx, token); }

  // For the recovery: a failure ends the session; a restored state (0: the start) starts the
  // epoch's counts again with the task limit at the next cut, but READY for it only after RESUME.
  void abort();
  void restored(ProtocolContext& ctx, std::uint32_t checkpoint);
  void resume(ProtocolContext& ctx);  // RESUME
  std::string phase() const;

private:
  // The one place the state changes; throws std::logic_error on a transition not listed.
  // `checkpoint`: the session's (for next_cut and commit: the next cut's, 0 if none).
  void step(SessionEvent event, std::uint32_t checkpoint = 0);
  // At cuts: the task limit at the next cut; returns the checkpoint of that cut (0: none, or periodic).
  std::uint32_t set_next_cut(ProtocolContext& ctx);
  void try_ready(ProtocolContext& ctx);
  void maybe_save(ProtocolContext& ctx);
  void saved(ProtocolContext& ctx);

  const GlobalOptions& options_;
  GlobalCopies& copies_;  // where a save goes
  GlobalKeeper& keeper_;  // its copies for others are collected at each commit
  SessionState state_ = SessionState::idle;
  std::uint32_t checkpoint_ = 0;  // of the session (0 when idle)
  std::uint32_t committed_ = 0;   // last checkpoint this node knows committed
  std::map<NodeId, std::uint64_t> sent_;  // data messages sent in this epoch, per node
  std::uint64_t received_ = 0;            // data messages received in this epoch
  std::uint64_t expected_received_ = 0;   // flushing: how many it must have received
  double began_ = -1;                     // for the trace span
};

}  // namespace ftsim::protocols::global
