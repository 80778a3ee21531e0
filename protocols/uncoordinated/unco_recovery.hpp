#pragma once
// The recovery of Figs. 3 and 4 on an application process: stop on a failure notice or ROUND
// (l. 55), report its dependency table (l. 47-56), roll back to the line (l. 58-61) — a replacement
// first reads its own last checkpoint back and reports as restarted — then the lists, the
// notification and the phases (Replays) until READY(infinity) ends the round. The state machine
// is RecoveryState; it drives the other parts: the checkpointer stops and restores, the store
// reads a checkpoint back, the log gives its tables and learns the line.
#include <cstdint>
#include <optional>
#include <string>

#include "protocols/uncoordinated/unco_checkpointer.hpp"
#include "protocols/uncoordinated/unco_replay.hpp"

namespace ftsim::protocols::uncoordinated {

// Where this process is in a recovery (it replaces the recovery enum and the replacement and
// probing flags of the single class it once was). Transitions: Recovery::transition.
enum class RecoveryState : std::uint8_t {
  running,    // no recovery under way
  restarted,  // a failed node's new process, holding nothing: it waits for ROUND
  reloading,  // that process reading its last checkpoint back (then it reports as restarted)
  stopped,    // stopped and reported (l. 55-56): it waits for the recovery line
  restoring,  // rolling back to the line's checkpoint: reading it back
  applied,    // the line applied (l. 62-68): lists, notification; it waits for READY of its phase
  released,   // running again (l. 73): it waits for READY(infinity)
};

class Recovery {
public:
  Recovery(const Options& options, node::NodeId node, Clock& clock, MessageLog& log, Checkpointer& checkpointer,
           CheckpointStore& store, Replays& replays)
      : options_(options), node_(node), clock_(clock), log_(log), checkpointer_(checkpointer), store_(store), replays_(replays) {}

  bool under_way() const { return state_ != RecoveryState::running; }
  // Not while stopped for a recovery (until the line is applied): data, LISTS and the re-sends wait.
  bool waits_for_line() const {
    return state_ == RecoveryState::restarted || state_ == RecoveryState::reloading || state_ == RecoveryState::stopped ||
           state_ == RecoveryState::restoring;
  }
  std::uint32_t round() const { return round_; }

  void on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) {
    cause_ = notice;
    stop(ctx);
  }
  void on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info);
  void on_round(node::ProtocolContext& ctx, const messages::Round& round);
  void on_line(node::ProtocolContext& ctx, messages::Line line);
  void on_lists(node::ProtocolContext& ctx, node::NodeId from, messages::Lists lists);
  void on_ready(node::ProtocolContext& ctx, const messages::Ready& ready);
  void on_read(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content);  // from the store
  void on_decoded(node::ProtocolContext& ctx);  // the store's decompression charge is over
  std::string phase() const;  // "" if none is under way

private:
  void transition(RecoveryState next);
  void stop(node::ProtocolContext& ctx);
  void report(node::ProtocolContext& ctx);
  void apply_line(node::ProtocolContext& ctx);
  void install(node::ProtocolContext& ctx, Saved saved);
  void restored(node::ProtocolContext& ctx);
  void serve_replays(node::ProtocolContext& ctx);
  void maybe_run(node::ProtocolContext& ctx);
  void end_recovery(node::ProtocolContext& ctx);

  const Options& options_;
  node::NodeId node_;
  Clock& clock_;
  MessageLog& log_;
  Checkpointer& checkpointer_;
  CheckpointStore& store_;
  Replays& replays_;
  RecoveryState state_ = RecoveryState::running;
  std::uint32_t round_ = 0;
  std::uint32_t restart_epoch_ = messages::kNoEpoch;  // restarted since the last complete recovery
  std::optional<messages::Line> line_;
  node::FailureNotice cause_{};
  double began_ = 0;
};

}  // namespace ftsim::protocols::uncoordinated
