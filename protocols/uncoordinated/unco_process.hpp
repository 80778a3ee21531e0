#pragma once
// An application process of the uncoordinated protocol (Guermouche 2011, Fig. 3), one per node:
// its parts (unco_protocol.hpp says what each does) and the routing of the node's events to them.
// The parts refer to each other by the short list of calls each one offers: the log and the
// clock know no other part; the store knows no other part; the checkpointer uses the clock, the
// log and the store; the recovery drives the checkpointer, the store, the replays and the log;
// the replays use the clock and the log.
#include <string>

#include "protocols/uncoordinated/unco_checkpointer.hpp"
#include "protocols/uncoordinated/unco_clock.hpp"
#include "protocols/uncoordinated/unco_log.hpp"
#include "protocols/uncoordinated/unco_recovery.hpp"
#include "protocols/uncoordinated/unco_replay.hpp"
#include "protocols/uncoordinated/unco_store.hpp"

namespace ftsim::protocols::uncoordinated {

class Process {
public:
  Process(const Options& options, node::NodeId node)
      : options_(options),
        clock_(options.first_epoch[node]),
        log_(options, node, clock_),
        store_(options, node),
        checkpointer_(options, node, clock_, log_, store_),
        replays_(options, node, clock_, log_),
        recovery_(options, node, clock_, log_, checkpointer_, store_, replays_) {}
  // The parts refer to each other: the object stays where it was made.
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  void on_start(node::ProtocolContext& ctx) { checkpointer_.on_start(ctx); }
  void on_task_completed(node::ProtocolContext& ctx) { checkpointer_.task_completed(ctx); }
  void on_data_released(node::ProtocolContext& ctx) { checkpointer_.try_checkpoint(ctx); }
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& m);
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& m);
  void on_control(node::ProtocolContext& ctx, const node::Message& m);
  void on_timer(node::ProtocolContext& ctx, std::uint64_t token);
  void on_activity_done(node::ProtocolContext& ctx, std::uint64_t token) { charged(ctx, token); }
  void on_storage_done(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content);
  void on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) { recovery_.on_failure_notice(ctx, notice); }
  void on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) { recovery_.on_restart(ctx, info); }
  bool finished(node::ProtocolContext& ctx) const;
  std::string phase(node::ProtocolContext& ctx) const;

private:
  void charged(node::ProtocolContext& ctx, std::uint64_t token);  // /checkpoint_data: a CPU charge over
  void on_floor(node::ProtocolContext& ctx, std::uint32_t floor);

  const Options& options_;
  Clock clock_;
  MessageLog log_;
  CheckpointStore store_;
  Checkpointer checkpointer_;
  Replays replays_;
  Recovery recovery_;
};

}  // namespace ftsim::protocols::uncoordinated
