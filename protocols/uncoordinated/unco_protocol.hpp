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
#include <memory>
#include <optional>

#include "protocols/uncoordinated/unco_coordinator.hpp"
#include "protocols/uncoordinated/unco_process.hpp"

namespace ftsim::protocols::uncoordinated {

class UncoordinatedProtocol final : public core::Protocol {
public:
  UncoordinatedProtocol(std::shared_ptr<const Options> options, core::NodeId node, bool coordinator);

  void on_start(core::ProtocolContext& ctx) override;
  void on_task_completed(core::ProtocolContext& ctx, core::TaskId task, bool first_execution) override;
  core::SendVerdict on_send(core::ProtocolContext& ctx, core::Message& m) override;
  core::ReceiveVerdict on_receive(core::ProtocolContext& ctx, const core::Message& m) override;
  void on_data_released(core::ProtocolContext& ctx, const core::Message& m) override;
  void on_control(core::ProtocolContext& ctx, const core::Message& m) override;
  void on_timer(core::ProtocolContext& ctx, std::uint64_t token) override;
  void on_activity_done(core::ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(core::ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content) override;
  void on_failure_notice(core::ProtocolContext& ctx, const core::FailureNotice& notice) override;
  void on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info) override;
  bool finished(core::ProtocolContext& ctx) override;
  std::string phase(core::ProtocolContext& ctx) override;

private:
  std::shared_ptr<const Options> options_;
  std::optional<Coordinator> coordinator_;  // the recovery process
  std::optional<Process> process_;          // an application process
};

}  // namespace ftsim::protocols::uncoordinated
