#pragma once
// Global rollback-recovery: the `none` and `global` protocols.
//
// global: blocking coordinated checkpointing. Each period (of work time between checkpoints) or
// at the graph cuts of /checkpoints, the coordinator asks every node to stop; a node that has no
// task running and every message it sent delivered answers READY (the channels are then empty:
// the flush); the coordinator says SAVE; each node saves its live data (what it holds) to stable
// storage or to its buddy's memory (keeping a local copy: double checkpointing) and answers
// SAVED; the coordinator commits and every node resumes. On a failure notice every node aborts
// what it was doing and rolls back to the last committed checkpoint; the replacement of the failed
// node reads its checkpoint back (from storage or from its buddy); when all are restored the
// coordinator resumes them.
//
// none: the same restart with no checkpoint at all: a failure restarts the job from scratch.
#include <memory>
#include <optional>
#include <vector>

#include "graphs/buddy_mapping.hpp"
#include "graphs/cut_selection.hpp"
#include "sim/core/node_runtime.hpp"
#include "sim/core/protocol.hpp"
#include "sim/core/protocol_context.hpp"

namespace ftsim::protocols {

using core::Message;
using core::NodeId;
using core::ProtocolContext;
using core::TaskId;

// What all instances share: the checkpoints themselves (each node's saved state, moved with
// real byte counts by messages and storage transfers) and the commit record.
struct RollbackShared {
  bool checkpoints = false;                 // false: the `none` protocol
  bool at_cuts = false;
  double period = 0;
  bool stable_storage = true;
  std::vector<TaskId> cut_positions;        // at_cuts: position of checkpoint k at [k - 1]
  std::optional<graphs::BuddyMapping> buddies;
  std::uint32_t committed = 0;              // id of the last committed checkpoint (0: none)
  std::vector<core::NodeSnapshot> committed_state;  // per node
  std::vector<core::NodeSnapshot> pending_state;    // per node, checkpoint being saved
  // Buddy storage: whether a node still has its own copy of the committed checkpoint (a
  // replacement has none until its buddy sends it back).
  std::vector<bool> local_copy;
  std::vector<std::uint64_t> held_for_others;       // bytes a node holds as a buddy
};

class RollbackProtocol final : public core::Protocol {
public:
  RollbackProtocol(std::shared_ptr<RollbackShared> shared, NodeId node, bool coordinator);

  void on_start(ProtocolContext& ctx) override;
  void on_task_completed(ProtocolContext& ctx, TaskId task, bool first_execution) override;
  void on_data_sent(ProtocolContext& ctx, const Message& message) override;
  void on_control(ProtocolContext& ctx, const Message& message) override;
  void on_timer(ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(ProtocolContext& ctx, std::uint64_t token) override;
  void on_failure_detected(ProtocolContext& ctx, NodeId failed) override;
  void on_restart(ProtocolContext& ctx) override;

private:
  // --- node side ---
  void try_ready(ProtocolContext& ctx);
  void save(ProtocolContext& ctx, std::uint32_t checkpoint);
  // Restores the last committed checkpoint (or the initial state); charges the lost work to `record`.
  void roll_back(ProtocolContext& ctx, bool replacement, core::FailureRecord* record);
  void restored(ProtocolContext& ctx);
  void apply_task_limit(ProtocolContext& ctx);
  // --- coordinator side ---
  void start_checkpoint(ProtocolContext& ctx);
  void coordinator_message(ProtocolContext& ctx, const Message& message);
  void broadcast(ProtocolContext& ctx, std::uint32_t type, std::uint32_t checkpoint);
  void arm_period_timer(ProtocolContext& ctx);
  void maybe_resume(ProtocolContext& ctx);

  std::shared_ptr<RollbackShared> shared_;
  NodeId node_;
  bool coordinator_;
  // node side
  std::uint32_t ready_for_ = 0;   // checkpoint this node must report READY for (0: none)
  std::uint32_t saving_ = 0;
  double checkpoint_began_ = -1;  // for the trace spans
  double recovery_began_ = -1;
  // coordinator side
  enum class Phase { idle, gathering_ready, gathering_saved, recovering };
  Phase phase_ = Phase::idle;
  std::uint32_t next_checkpoint_ = 1;
  std::uint32_t answers_ = 0;
  std::uint32_t recovery_epoch_ = 0;
  std::vector<std::uint32_t> restored_epoch_;  // per node: the latest epoch it restored for
  std::uint64_t timer_generation_ = 0;
};

std::shared_ptr<RollbackShared> make_rollback_shared(const config::Config& config, const graphs::TaskGraph& graph);

}  // namespace ftsim::protocols
