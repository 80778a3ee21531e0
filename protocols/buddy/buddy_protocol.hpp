#pragma once
// buddy: asynchronous checkpoints as task-graph cuts, saved in a buddy node's memory (Lion &
// Thibault 2020 §V; Lion 2022 §2.4–2.5), with sender-based message logging and a local restart of
// the failed node only (Lion 2022 §3). No coordinator and no pause: the checkpoints are cuts of the
// submission sequence chosen by /checkpoints, and every node derives the same save plan from the
// graph (graphs/checkpoint_saves), as StarPU-MPI nodes derive it from the templates.
//
// Every node plays three parts at once, one class each, all owned by BuddyProtocol:
//  - the origin (buddy_origin.hpp): its own checkpoints — saves to its buddies as soon as the
//    last writer before a cut completes, free when the buddy receives the version anyway (the
//    cache, Lion 2020 §IV-A), validation once every buddy acknowledged (ACK, VALIDATE),
//    re-protection of a replaced buddy — and its message log by reference (§3.3) with its GC;
//  - the keeper (buddy_keeper.hpp): the checkpoint copies it holds for the nodes whose buddy it is
//    — entries stored and copied (copy_cost), acknowledged once complete, the two newest valid
//    checkpoints kept, checkpoint N sent back to a restarting origin;
//  - with /protocol/levels, the levels (buddy_levels.hpp): every k-th checkpoint also on the node's
//    own storage or on stable storage, written as the versions are produced (not awaited);
//  - the recovery (buddy_recovery.hpp): an explicit state machine (RecoveryState) for its own
//    restart or rollback — info requests and answers, the choice of the restart checkpoint N
//    (§3.5), the restore — and its part in other nodes' restarts: replays from its log
//    (buddy_replay.hpp) and the cascade of §3.5 when a version is gone.
// The control messages are typed in buddy_messages.hpp, the options in buddy_options.hpp.
//
// Why classes and not one class with state structs: each part's state is private to it, and what
// one part asks of another is a short list of calls (the recovery drives the origin and the
// keeper; the keeper and the origin know nothing of each other or of the recovery). In particular
// the keeper's state is out of the recovery's reach: a node rolling back alive keeps what it holds
// for others, and the keeper's part of another node's restart never waits for this node's own
// (docs/protocols.md, "Concurrent buddy restarts").
#include <memory>
#include <string>

#include "protocols/buddy/buddy_keeper.hpp"
#include "protocols/buddy/buddy_levels.hpp"
#include "protocols/buddy/buddy_options.hpp"
#include "protocols/buddy/buddy_origin.hpp"
#include "protocols/buddy/buddy_recovery.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::buddy {

class BuddyProtocol final : public node::Protocol {
public:
  BuddyProtocol(std::shared_ptr<const BuddyOptions> options, bool coordinator);
  // The parts refer to each other and to the options: the object stays where it was made.
  BuddyProtocol(const BuddyProtocol&) = delete;
  BuddyProtocol& operator=(const BuddyProtocol&) = delete;

  void on_start(node::ProtocolContext& ctx) override;
  void on_task_completed(node::ProtocolContext& ctx, node::TaskId task, bool first_execution) override;
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& message) override;
  void on_stored(node::ProtocolContext& ctx, const node::Message& message) override;
  void on_control(node::ProtocolContext& ctx, const node::Message& message) override;
  void on_activity_done(node::ProtocolContext& ctx, std::uint64_t token) override;
  void on_timer(node::ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) override;
  void on_data_released(node::ProtocolContext& ctx, const node::Message& message) override;
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& message) override;
  void on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) override;
  bool finished(node::ProtocolContext& ctx) override;
  std::string phase(node::ProtocolContext& ctx) override;

private:
  std::shared_ptr<const BuddyOptions> options_;
  bool coordinator_;  // the coordinator process takes no part
  BuddyOrigin origin_;
  BuddyKeeper keeper_;
  BuddyLevels levels_;      // /protocol/levels: the node's state on local or stable storage too
  BuddyRecovery recovery_;  // drives origin_ and keeper_ in a restart
};

}  // namespace ftsim::protocols::buddy
