#pragma once
// The coordinator process of the global protocol: it starts each checkpoint (every period of work
// time, or at cuts when the first node reaches the cut), adds up the READY counts into each node's
// SAVE, commits once every node saved, and alone knows which checkpoint is committed: on a failure
// notice it sends every rank RECOVER(epoch, that checkpoint) and, once all restored, RESUME.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "protocols/global/global_messages.hpp"
#include "protocols/global/global_options.hpp"

namespace ftsim::protocols::global {

// What the coordinator waits for. A failure interrupts any state (a checkpoint under way is
// aborted, a recovery under way starts again for the new epoch); at cuts it gathers READY whenever
// a further cut remains, as the nodes report READY on their own when they reach it.
enum class CoordinatorState : std::uint8_t {
  idle,             // periodic: waiting for the period timer (or no cut left)
  gathering_ready,  // checkpoint next_checkpoint_: waiting for every node's READY
  gathering_saved,  // SAVE sent: waiting for every node's SAVED, then COMMIT
  recovering,       // RECOVER sent: waiting for every node's RESTORED, then RESUME
};

class GlobalCoordinator {
public:
  explicit GlobalCoordinator(const GlobalOptions& options) : options_(options) {}

  void on_start(ProtocolContext& ctx);
  void on_timer(ProtocolContext& ctx, std::uint64_t token);
  void on_message(ProtocolContext& ctx, const Message& message);
  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice);
  // What it waits for, for the stall reports.
  std::string phase(ProtocolContext& ctx) const;

private:
  // The one place the state changes; throws std::logic_error on a transition not listed.
  void enter(CoordinatorState to);
  // The state after a commit or a recovery: the next cut's READY, or the period timer.
  CoordinatorState between_checkpoints() const;
  void start_checkpoint(ProtocolContext& ctx);
  void on_ready(ProtocolContext& ctx, const messages::Control& ready);
  void on_saved(ProtocolContext& ctx, const messages::Control& saved);
  void on_restored(ProtocolContext& ctx, NodeId from, const messages::Control& restored);
  // Levels: a replacement lost the checkpoint of this recovery at its buddies: every node goes
  // back to the latest checkpoint on stable storage instead.
  void on_lost(ProtocolContext& ctx, NodeId from, const messages::Control& lost);
  void send_recover(ProtocolContext& ctx, const FailureNotice& cause);
  // Whether `node`'s latest RESTORED is for this recovery's epoch and restart point.
  bool restored_now(NodeId node) const {
    return restored_epoch_[node] == recovery_epoch_ && restored_checkpoint_[node] == committed_;
  }
  void arm_period_timer(ProtocolContext& ctx);
  void maybe_resume(ProtocolContext& ctx);

  const GlobalOptions& options_;
  CoordinatorState state_ = CoordinatorState::idle;
  std::uint32_t committed_ = 0;  // the restart point of every recovery
  std::uint32_t next_checkpoint_ = 1;
  std::uint32_t answers_ = 0;    // READY or SAVED answers to next_checkpoint_
  std::vector<std::uint64_t> expected_;  // per node: data messages sent to it (the READY counts added up)
  node::CheckpointRecord record_;
  std::uint32_t recovery_epoch_ = 0;
  std::vector<std::uint32_t> restored_epoch_;  // per node: the latest epoch it restored for
  std::vector<std::uint32_t> restored_checkpoint_;  // per node: and the checkpoint it restored then
  std::uint32_t restored_count_ = 0;           // nodes for which restored_now() holds
  std::vector<FailureNotice> unrecovered_;     // notices whose recovery is under way
  std::optional<std::uint64_t> period_timer_;
};

}  // namespace ftsim::protocols::global
