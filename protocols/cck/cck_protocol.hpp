#pragma once
// cck: coordinated checkpointing in Kaapi (Besseron, Pigeon, Gautier, Jafar 2006). Everything
// travels by message; the readings of the paper this implementation makes are in
// docs/protocols.md ("CCK").
//
// Checkpoint (§3.4, Figs. 3 and 4). Every `period` (or at the graph cuts of /checkpoints) the
// coordinator sends INIT(c) to every node. A node stops starting tasks; once none runs and what
// it sent has left, it answers the PINGs it got with PONG and sends PING to V, the nodes it still
// expects data from (derived from its remaining graph; with "flush": "all", every node). Once V
// has answered (FIFO channels: nothing from them is still on the way) it saves its state (its
// tasks not done and the live versions they read) to its checkpoint server and keeps a local
// copy; once the server acknowledged, it sends CONT to V and resumes its tasks, holding what it
// sends to a node until that node's CONT (W, the nodes it will still send to, and every node that
// PINGed it, answer with CONT once saved). When every CONT it waits for is in, it sends ACK; the
// coordinator validates c after N ACKs; older checkpoints are then erased.
//
// Restart (§3.5.5). On a failure notice every node stops; the coordinator sends RESTART(r, K)
// (K: the last valid checkpoint) to every rank. A replacement reads its checkpoint K back from its
// server; a survivor keeps its state. Each node flushes its channels with V (PING/PONG), builds its
// communication-restricted graph Ḡ^p, and the N graphs are all-gathered (Bruck, GATHER messages).
// Each node then computes C_perdues, C_total and its T^p (cck_planning.hpp), re-executes T^p from
// its own copy of K, re-sends only the data of C_total^p and resumes; it answers DONE once T^p has
// run (a replacement: once restored). The coordinator closes the round after N DONEs. A failure
// during a checkpoint aborts it; a failure during a restart opens a newer round, in which the
// re-executions already pending are planned again.
//
// The roles, one class each, owned by CckProtocol:
//  - the coordinator (cck_coordinator.hpp), on its own host or on a node: checkpoints and rounds,
//    an explicit state machine (CoordinatorState);
//  - a node's checkpoint session (cck_checkpoint.hpp, CheckpointState): INIT to ACK;
//  - a node's restart session (cck_restart.hpp, RestartState): RESTART to the plan applied or the
//    checkpoint restored, then the re-executions of T^p and the DONE they owe (cck_reexecutions.hpp);
//  - what a node keeps of its checkpoints (cck_local_checkpoints.hpp): its copies, the last valid
//    one, its images on the server, the CPU charges of encoding and decoding them.
// CckProtocol routes: events and messages to their role, and the roles' messages out (Post:
// delivered at once when the receiver is this process's other role, a coordinator on a node),
// with what the process knows of the others' incarnations. Each role's state is private to it;
// what one asks of another is a short list of calls: the restart session asks the checkpoint
// session to abandon and to set its next cut; both save and restore through the local
// checkpoints; the checkpoint session knows of restarts only the round in force; the coordinator
// and the node share nothing but messages. Why classes rather than one class cut into files (as
// this protocol once was): a role's state changes only through its own calls, and each role's
// phase is one enum whose legal transitions are written in one place (its enter()). The control
// messages are typed in cck_messages.hpp, V and W in cck_neighbours.hpp, the planning in
// cck_planning.hpp, the all-gather in cck_allgather.hpp.
#include <memory>
#include <optional>
#include <string>

#include "protocols/cck/cck_checkpoint.hpp"
#include "protocols/cck/cck_coordinator.hpp"
#include "protocols/cck/cck_local_checkpoints.hpp"
#include "protocols/cck/cck_options.hpp"
#include "protocols/cck/cck_post.hpp"
#include "protocols/cck/cck_restart.hpp"
#include "protocols/node_incarnations.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

using node::FailureNotice;
using node::Message;
using node::ProtocolContext;

class CckProtocol final : public node::Protocol, private Post {
public:
  CckProtocol(std::shared_ptr<const CckOptions> options, NodeId node, bool coordinator_process);
  // The roles refer to each other and to the options: the object stays where it was made.
  CckProtocol(const CckProtocol&) = delete;
  CckProtocol& operator=(const CckProtocol&) = delete;

  void on_start(ProtocolContext& ctx) override;
  void on_task_completed(ProtocolContext& ctx, TaskId task, bool first_execution) override;
  node::SendVerdict on_send(ProtocolContext& ctx, Message& message) override;
  node::ReceiveVerdict on_receive(ProtocolContext& ctx, const Message& message) override;
  void on_data_released(ProtocolContext& ctx, const Message& message) override;
  void on_control(ProtocolContext& ctx, const Message& message) override;
  void on_timer(ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) override;
  void on_activity_done(ProtocolContext& ctx, std::uint64_t token) override;
  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) override;
  void on_restart(ProtocolContext& ctx, const node::RestartInfo& info) override;
  bool finished(ProtocolContext& ctx) override;
  std::string phase(ProtocolContext& ctx) override;

private:
  // Post: a coordinator on a node talks to its own node directly.
  void to_coordinator(ProtocolContext& ctx, MessageType type, const Control& control) override;
  void to_node(ProtocolContext& ctx, NodeId node, MessageType type, const Control& control) override;
  // The incarnation each node is known to be at (kAnyIncarnation: not known yet, e.g. to a
  // replacement). Messages to a node go to that incarnation: on MPI a failed process may still
  // run for a moment after its failure notice, and must not take what is meant for its replacement.
  std::uint32_t incarnation_of(NodeId node) const override;
  void learn_incarnation(NodeId node, std::uint32_t incarnation);
  // Counts a control message this process sends, by the part of the protocol it belongs to.
  void count_sent(ProtocolContext& ctx, MessageType type, std::uint64_t body_bytes, bool restart);
  void node_message(ProtocolContext& ctx, NodeId from, MessageType type, const Control& control);
  void apply_priorities(ProtocolContext& ctx);
  // A CPU charge of /checkpoint_data is over (on_timer or on_activity_done).
  void charged(ProtocolContext& ctx, std::uint64_t token);
  // After a task or a send: the node may be stopped now (for a checkpoint or a round).
  void try_stop(ProtocolContext& ctx);

  std::shared_ptr<const CckOptions> options_;
  NodeId self_;
  bool node_;         // this process is a node (the dedicated coordinator process is not)
  bool coordinates_;  // this process runs the coordinator
  NodeIncarnations incarnations_{node::kAnyIncarnation};
  LocalCheckpoints local_;
  CheckpointSession checkpoint_;
  RestartSession restart_;             // drives checkpoint_ in a restart
  std::optional<Coordinator> coordinator_;  // if coordinates_
};

}  // namespace ftsim::protocols::cck
