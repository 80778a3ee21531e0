#pragma once
// A node's part in the blocking coordinated checkpoint: it counts the data messages of the epoch
// (per destination sent, received), stops and answers READY with its counts once quiescent (after
// REQUEST, or at cuts once it reached the cut), waits after SAVE until it received as many as the
// others sent it (the flush), saves its state to stable storage or to its buddies keeping a local
// copy, answers SAVED once acknowledged, and on COMMIT resumes and drops what the commit made
// useless. The recovery (global_recovery.hpp) aborts a session, reads its local copies and hands
// it back the state it restored.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "protocols/checkpoint_content.hpp"
#include "protocols/global/global_keeper.hpp"
#include "protocols/global/global_options.hpp"

namespace ftsim::protocols {

// Where this node is in a checkpoint (checkpoint_ says which). It replaces the three counters
// ready_for_, save_for_ and saving_ of the single class this protocol once was.
enum class SessionState : std::uint8_t {
  idle,      // no checkpoint under way: working, or stopped by a failure
  armed,     // READY owed once quiescent: after REQUEST (paused) or, at cuts, once the cut is reached
  ready,     // READY sent: waiting for SAVE
  flushing,  // SAVE received: waiting for the data messages sent to it before the others stopped
  saving,    // state saved: its image encoded (/checkpoint_data), then waiting for storage or buddies
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
  GlobalCheckpointer(const GlobalOptions& options, GlobalKeeper& keeper);

  void on_start(ProtocolContext& ctx);
  // Data messages of this epoch, counted for the flush.
  void count_sent(NodeId to) { ++sent_[to]; }
  void count_received() { ++received_; }
  // A task finished, a sent message left, a received one was stored: READY or the save may follow.
  void on_task_completed(ProtocolContext& ctx) { try_ready(ctx); }
  void on_data_released(ProtocolContext& ctx);
  void on_stored(ProtocolContext& ctx);
  // The coordinator's messages (the caller checked that this node holds a state to save).
  void on_request(ProtocolContext& ctx, std::uint32_t checkpoint);
  void on_save(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint64_t expected_received);
  void on_commit(ProtocolContext& ctx, std::uint32_t checkpoint);
  // Where the saved state went: a buddy's acknowledgement, a storage write done.
  void on_ack(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch);
  void on_written(ProtocolContext& ctx, std::uint32_t checkpoint);
  // /checkpoint_data: the CPU time of encoding the image is over (its token).
  void on_encoded(ProtocolContext& ctx, std::uint64_t token);

  // For the recovery: a failure ends the session; the copies it keeps; the state it restored.
  void abort();
  const core::NodeSnapshot* local_copy(std::uint32_t checkpoint) const;
  void keep_copy(std::uint32_t checkpoint, const core::NodeSnapshot& snapshot) { local_[checkpoint] = snapshot; }
  void adopt_chain(std::span<const core::Bytes* const> chain);  // its images on storage now
  // Restored checkpoint `checkpoint` (0: the start): the epoch's counts start again, the task limit
  // is the next cut's, but READY for it only after RESUME.
  void restored(ProtocolContext& ctx, std::uint32_t checkpoint);
  void resume(ProtocolContext& ctx);  // RESUME
  std::string phase() const;

private:
  // The one place the state changes; throws std::logic_error on a transition not listed.
  // `checkpoint`: the session's (for next_cut and commit: the next cut's, 0 if none).
  void step(SessionEvent event, std::uint32_t checkpoint = 0);
  std::uint32_t saving() const { return state_ == SessionState::saving ? checkpoint_ : 0; }
  // At cuts: the task limit at the next cut; returns the checkpoint of that cut (0: none, or periodic).
  std::uint32_t set_next_cut(ProtocolContext& ctx);
  void try_ready(ProtocolContext& ctx);
  void maybe_save(ProtocolContext& ctx);
  void save(ProtocolContext& ctx);
  void send_saved(ProtocolContext& ctx);
  void saved(ProtocolContext& ctx);
  void erase_stored_images(ProtocolContext& ctx);

  const GlobalOptions& options_;
  GlobalKeeper& keeper_;  // its copies for others are collected at each commit
  SessionState state_ = SessionState::idle;
  std::uint32_t checkpoint_ = 0;  // of the session (0 when idle)
  std::uint32_t committed_ = 0;   // last checkpoint this node knows committed
  std::map<std::uint32_t, core::NodeSnapshot> local_;  // its own copies (pending and committed)
  std::map<NodeId, std::uint64_t> sent_;  // data messages sent in this epoch, per node
  std::uint64_t received_ = 0;            // data messages received in this epoch
  std::uint64_t expected_received_ = 0;   // flushing: how many it must have received
  std::uint64_t saved_bytes_ = 0;
  std::uint32_t acks_missing_ = 0;        // buddy acknowledgements still to come
  double began_ = -1;                     // for the trace span
  // /checkpoint_data: its images, and a save waiting for the CPU time of its encoding (tokens carry
  // a sequence number: a stale one is ignored).
  std::optional<content::ImageWriter> writer_;
  struct PendingSave {
    std::uint32_t checkpoint = 0;
    core::Bytes content;
    std::uint64_t bytes = 0;
  };
  std::optional<PendingSave> pending_save_;
  std::uint32_t encode_sequence_ = 0;
};

}  // namespace ftsim::protocols
