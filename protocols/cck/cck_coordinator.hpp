#pragma once
// CCK's coordinator (Besseron 2006 §3.4.1, Fig. 3; §3.5.5): it starts a checkpoint every period
// (or at each graph cut), validates it after N ACKs and erases the older server copies; on a
// failure notice it aborts a checkpoint in progress and opens a restart round, RESTART(r, K) to
// every node, which it closes after N DONEs. On a node ("coordinator": n) it keeps a record (last
// valid checkpoint, last started) on checkpoint server 0, which its node's replacement reads back
// before it opens a round for every failure notified so far.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocols/cck/cck_post.hpp"

namespace ftsim::protocols::cck {

// What the coordinator is doing (one state for the whole job: checkpoints and restarts alternate).
enum class CoordinatorState : std::uint8_t {
  idle,           // between checkpoints and rounds (a period timer may be armed)
  starting,       // checkpoint c requested: recording that it started (on a node), before INIT
  checkpointing,  // INIT(c) sent: waiting for N ACKs
  validating,     // N ACKs: recording c as valid (on a node), before c is the restart point
  restarting,     // RESTART(r, K) sent: waiting for N DONEs
  recovering,     // its node's replacement: reading its record back
};

class Coordinator {
public:
  Coordinator(const CckOptions& options, Post& post) : options_(options), post_(post) {}

  void start(node::ProtocolContext& ctx);
  // The coordinator's node failed and this process replaces it (`self`): its state died with it.
  void restart(node::ProtocolContext& ctx, NodeId self, const node::RestartInfo& info);
  void on_timer(node::ProtocolContext& ctx, std::uint64_t token);
  // Its record written (kRecordToken | c) or read back (kRecordReadToken).
  void on_record(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content);
  void on_ack(node::ProtocolContext& ctx, NodeId from, const Control& c);
  void on_done(node::ProtocolContext& ctx, NodeId from, std::uint32_t incarnation, const Control& c);
  void on_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice);
  std::string phase(node::ProtocolContext& ctx) const;

private:
  // The only place the state changes: a transition the protocol does not allow is a bug.
  void enter(CoordinatorState next);
  // After a validation or a round: the next cut's checkpoint, or the period's timer.
  void next_checkpoint(node::ProtocolContext& ctx);
  void arm_period(node::ProtocolContext& ctx);
  void write_record(node::ProtocolContext& ctx, std::uint64_t token);
  void start_checkpoint(node::ProtocolContext& ctx);
  void broadcast_init(node::ProtocolContext& ctx);
  void validate(node::ProtocolContext& ctx);
  void open_round(node::ProtocolContext& ctx, std::uint64_t round, const node::FailureNotice& cause);

  // The nodes that answered the checkpoint or the round in progress (ACK or DONE).
  struct Answers {
    std::vector<std::uint8_t> from;  // per node
    std::uint32_t count = 0;
    void reset() {
      std::fill(from.begin(), from.end(), 0);
      count = 0;
    }
    bool add(NodeId node) {
      if (from[node]) return false;
      from[node] = 1;
      ++count;
      return true;
    }
  };
  // The checkpoint in progress (or the last one).
  struct Checkpoint {
    node::CheckpointRecord record;
    std::uint64_t messages = 0, message_bytes = 0;  // its control messages, over every node
  };
  // The restart round in progress (or the last one).
  struct Round {
    std::uint64_t key = 0;  // round_key(sequence, incarnation)
    node::FailureNotice cause{};
    std::uint32_t involved = 0, restored = 0;  // nodes that restored or re-executed; that restored
    std::uint64_t tasks = 0, resends = 0;
    double began = 0;
  };

  const CckOptions& options_;
  Post& post_;
  CoordinatorState state_ = CoordinatorState::idle;
  std::uint32_t incarnation_ = 0;  // its process's: part of its rounds' keys
  std::uint32_t valid_ = 0, next_ = 1, current_ = 0;  // checkpoint ids
  Answers answers_;
  Checkpoint checkpoint_;
  std::vector<std::uint32_t> aborted_;  // checkpoint ids whose server copies are still to erase
  Round round_;
  std::uint64_t completed_ = 0;  // the last round completed
  std::vector<node::FailureNotice> unrecovered_;
  std::vector<std::uint32_t> incarnations_;  // per node: the newest incarnation heard from (DONE)
  std::optional<std::uint64_t> timer_;
  std::optional<node::FailureNotice> notice_while_validating_;
};

}  // namespace ftsim::protocols::cck
