#pragma once
// uncoordinated: Guermouche, Ropars, Brunet, Snir & Cappello 2011, "Uncoordinated checkpointing
// without domino effect for send-deterministic MPI applications" (IPDPS 2011), on ftsim's task
// graphs. Every node checkpoints on its own schedule to stable storage; each data message carries
// its sender's date, epoch and phase; the receiver acknowledges with its epoch and the sender keeps
// the message (by reference) only if it went from a smaller epoch to a larger one; after a failure
// the recovery process (the coordinator) gathers the processes' dependency tables, computes the
// recovery line by the fixpoint of Fig. 4 and releases the processes phase by phase while the
// orphan messages are passed again. `logging: none` is classic uncoordinated checkpointing (orphans
// roll their receivers back: the domino effect) and `logging: all` pessimistic sender-based logging
// (only the failed nodes roll back). docs/protocols.md ("uncoordinated") says how the paper's
// messages map onto ftsim's and every reading of the paper this implementation makes.
//
// The coordinator's host runs the recovery process (Coordinator, unco_coordinator.hpp: Fig. 4).
// Every other node runs an application process (Process, unco_process.hpp), made of parts, one
// class each, each with its own state:
//  - the clock (unco_clock.hpp): Fig. 3's date, epoch and phase;
//  - the message log (unco_log.hpp): the failure-free part — what every data message carries
//    (l. 13-28), the acknowledgements and the logging rule (l. 34-39), SPE, the receipts (RPP),
//    the log by reference, the garbage collection (§III-A.4) — and the tables a recovery reads;
//  - the checkpointer (unco_checkpointer.hpp, with its timer in unco_timer.hpp): the
//    uncoordinated checkpoints (l. 41-45), an explicit state machine (CheckpointState) from due
//    to draining to written, stopped by a recovery;
//  - the checkpoint store (unco_store.hpp): the checkpoints on stable storage, written and read
//    back (ReadState), /checkpoint_data images and their CPU charges;
//  - the recovery (unco_recovery.hpp): an explicit state machine (RecoveryState) for a round of
//    l. 47-74 — stop and report (l. 47-56), roll back to the line (l. 58-61), a replacement's
//    restart — that drives the other parts;
//  - the replays (unco_replay.hpp): after the line, the orphans and what it lacks (LISTS,
//    l. 62-67), the re-sends gated by phase (l. 65-67, 71-72), the notification (l. 68) and the
//    phases (l. 70-74).
// Why classes and not one class with state structs: each part's state is private to it and what
// one asks of another is a short list of calls; the transitions of each state machine are checked
// in one function (a protocol bug throws).
#include <memory>
#include <optional>

#include "protocols/uncoordinated/unco_coordinator.hpp"
#include "protocols/uncoordinated/unco_process.hpp"

namespace ftsim::protocols::uncoordinated {

class UncoordinatedProtocol final : public node::Protocol {
public:
  UncoordinatedProtocol(std::shared_ptr<const Options> options, node::NodeId node, bool coordinator);

  void on_start(node::ProtocolContext& ctx) override;
  void on_task_completed(node::ProtocolContext& ctx, node::TaskId task, bool first_execution) override;
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& m) override;
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& m) override;
  void on_data_released(node::ProtocolContext& ctx, const node::Message& m) override;
  void on_control(node::ProtocolContext& ctx, const node::Message& m) override;
  void on_timer(node::ProtocolContext& ctx, std::uint64_t token) override;
  void on_activity_done(node::ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) override;
  void on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) override;
  void on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) override;
  bool finished(node::ProtocolContext& ctx) override;
  std::string phase(node::ProtocolContext& ctx) override;

private:
  std::shared_ptr<const Options> options_;
  std::optional<Coordinator> coordinator_;  // the recovery process
  std::optional<Process> process_;          // an application process
};

}  // namespace ftsim::protocols::uncoordinated
