#pragma once
// global: blocking coordinated checkpointing and global rollback. Everything travels by message.
//
// Blocking coordinated checkpointing. Each period (of work time between checkpoints) or
// at the graph cuts of /checkpoints, the coordinator asks every node to stop (REQUEST); a node
// with no task running and every data message it sent released answers READY with how many data
// messages it sent to each node in this epoch; the coordinator adds these up and tells each node
// in SAVE how many it must have received (the channels are then flushed: no acknowledgement per
// message is needed); the node saves its state (finished tasks and the versions it holds, with
// their digests) to stable storage or to its buddy's memory, keeping a local copy (double
// checkpointing), and answers SAVED once the server or buddy acknowledged; the coordinator
// commits (COMMIT) and every node resumes and drops older copies.
// On a failure notice every node stops (abort, pause); the coordinator, which alone knows which
// checkpoint is committed, sends RECOVER(epoch, checkpoint) to every rank (a rank being replaced
// gets it when its replacement is up); each node restores that checkpoint from its local copy,
// or a replacement from stable storage or from its buddy (which may have lost it too: then the
// job is unrecoverable), and answers RESTORED; once all have, the coordinator sends RESUME.
//
// The coordinator process plays one part, GlobalCoordinator (global_coordinator.hpp): the
// checkpoint rounds and the recovery rounds, with an explicit CoordinatorState. Every node plays
// four parts at once, one class each, all owned by GlobalProtocol:
//  - the checkpointer (global_checkpointer.hpp): its part in a checkpoint — message counts, READY,
//    the flush, SAVED, COMMIT — as a SessionState;
//  - its copies (global_copies.hpp): the local copy and the one on stable storage or at its
//    buddies (/checkpoint_data: images), saved, acknowledged and collected, as a CopyState;
//  - the keeper (global_keeper.hpp): with buddy storage, the copies it holds for other nodes;
//  - with an XOR level, its part in its XOR set (global_xor.hpp): the parity blocks it computes
//    and holds, and its answers to a member's rebuild;
//  - the recovery (global_recovery.hpp): its rollback or restart — RECOVER, the fetch of a lost
//    copy, RESTORED, RESUME — as a RecoveryState, and a replacement's start (restart cost, no part
//    in a checkpoint before it restored a state) as a Replacement state.
// Why classes and not one class: each part's state is private to it, and what one asks of another
// is a short list of calls (the recovery aborts the checkpointer's session, reads the local copies
// and gives the checkpointer the restored state; the checkpointer has its copies saved and
// collected, and the keeper's collected, at each commit; the keeper and the copies know no other
// part). Each state changes in one function that throws std::logic_error on a transition it does
// not list, so the legal transitions, and the odd ones that a replacement up before its failure is
// detected or a late notice causes, are read in one place.
// The messages are in global_messages.hpp, the options in global_options.hpp.
#include <memory>
#include <optional>
#include <string>

#include "protocols/global/global_checkpointer.hpp"
#include "protocols/global/global_coordinator.hpp"
#include "protocols/global/global_copies.hpp"
#include "protocols/global/global_keeper.hpp"
#include "protocols/global/global_options.hpp"
#include "protocols/global/global_recovery.hpp"
#include "protocols/global/global_xor.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::global {

class GlobalProtocol final : public node::Protocol {
public:
  GlobalProtocol(std::shared_ptr<const GlobalOptions> options, bool coordinator);
  // The parts refer to each other and to the options: the object stays where it was made.
  GlobalProtocol(const GlobalProtocol&) = delete;
  GlobalProtocol& operator=(const GlobalProtocol&) = delete;

  void on_start(ProtocolContext& ctx) override;
  void on_task_completed(ProtocolContext& ctx, TaskId task, bool first_execution) override;
  node::SendVerdict on_send(ProtocolContext& ctx, Message& message) override;
  node::ReceiveVerdict on_receive(ProtocolContext& ctx, const Message& message) override;
  void on_stored(ProtocolContext& ctx, const Message& message) override;
  void on_data_released(ProtocolContext& ctx, const Message& message) override;
  void on_control(ProtocolContext& ctx, const Message& message) override;
  void on_timer(ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) override;
  void on_activity_done(ProtocolContext& ctx, std::uint64_t token) override;
  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) override;
  void on_restart(ProtocolContext& ctx, const node::RestartInfo& info) override;
  std::string phase(ProtocolContext& ctx) override;

private:
  // A CPU charge of /checkpoint_data is over: the encoding's (checkpointer) or decoding's (recovery).
  void charged(ProtocolContext& ctx, std::uint64_t token);

  std::shared_ptr<const GlobalOptions> options_;
  std::optional<GlobalCoordinator> coordinator_;  // the coordinator process: its only part
  GlobalKeeper keeper_;
  GlobalCopies copies_;
  GlobalXor xor_;                    // an XOR level: the parity blocks it holds, reads copies_
  GlobalCheckpointer checkpointer_;  // saves to copies_, collects copies_ and keeper_ at each commit
  GlobalRecovery recovery_;          // drives checkpointer_ in a rollback, reads copies_
};

}  // namespace ftsim::protocols::global
