#pragma once
// The uncoordinated checkpoints of an application process (Fig. 3 l. 41-45): each node on its own
// schedule (CheckpointTimer), blocking — no task starts, those running finish, every message sent
// leaves and, under the send rule, is acknowledged, so that its SPE or log entry belongs to the
// checkpoint — then saved on stable storage (CheckpointStore) with the tables the recovery of
// Fig. 4 needs; a new epoch and phase begin. A recovery stops it (a save under way is abandoned)
// and restores a checkpoint through it; it resumes when the recovery is over.
#include <cstdint>
#include <string>

#include "protocols/uncoordinated/unco_clock.hpp"
#include "protocols/uncoordinated/unco_log.hpp"
#include "protocols/uncoordinated/unco_store.hpp"
#include "protocols/uncoordinated/unco_timer.hpp"

namespace ftsim::protocols::uncoordinated {

// Where its next checkpoint is (it replaces the stage enum and the due flag of the single class
// this process once was). Transitions: Checkpointer::transition.
enum class CheckpointState : std::uint8_t {
  idle,         // none due: its timer runs
  due,          // its time came: it starts once nothing stops it (an abandoned write completing)
  draining,     // paused: its tasks finish, its sends leave and are acknowledged
  encoding,     // /checkpoint_data: the image's CPU time is charged
  writing,      // on stable storage; data arriving waits (it belongs to the next epoch)
  stopped,      // a recovery is under way: none starts
  stopped_due,  // the same, and its time came (or a save was abandoned)
};

class Checkpointer {
public:
  Checkpointer(const Options& options, node::NodeId node, Clock& clock, MessageLog& log, CheckpointStore& store)
      : options_(options), node_(node), clock_(clock), log_(log), store_(store), timer_(options, node) {}

  CheckpointState state() const { return state_; }
  std::uint32_t checkpoints() const { return checkpoints_; }  // taken in this execution (epoch - first epoch)

  void on_start(node::ProtocolContext& ctx) { timer_.arm(ctx); }
  void on_timer(node::ProtocolContext& ctx, std::uint64_t token);
  void try_checkpoint(node::ProtocolContext& ctx);  // a task ended, a message left, an ack came
  void task_completed(node::ProtocolContext& ctx) {
    ++progress_;
    try_checkpoint(ctx);
  }
  void received() {  // a data message taken
    ++progress_;
    fresh_ = false;  // no longer exactly at the checkpoint it restored: a newer line restores it again
  }
  // An acknowledgement applied: it may complete a drain, or be the last thing the run waited for.
  void acknowledged(node::ProtocolContext& ctx);
  void on_encoded(node::ProtocolContext& ctx);  // the image's charge is over
  void on_written(node::ProtocolContext& ctx, std::uint32_t checkpoint);

  // --- what the recovery asks ---
  void stop();    // no checkpoint until resume(); a save under way is abandoned
  void resume();  // the recovery is over: a checkpoint may start (restart_timer() starts it)
  void restart_timer(node::ProtocolContext& ctx);  // the one due now, or its timer again
  // Restores `saved` (state, tables and clocks): returns the checkpoint it is now at.
  std::uint32_t restore(node::ProtocolContext& ctx, Saved saved, bool keep_memory);
  bool at_restored(std::uint32_t epoch) const { return fresh_ && epoch == clock_.epoch(); }  // nothing ran or came since
  void left_restored() { fresh_ = false; }  // it runs again
  std::string phase(node::ProtocolContext& ctx) const;  // "" if no checkpoint is under way

private:
  void transition(CheckpointState next);
  void save(node::ProtocolContext& ctx);
  void saved(node::ProtocolContext& ctx);

  const Options& options_;
  node::NodeId node_;
  Clock& clock_;
  MessageLog& log_;
  CheckpointStore& store_;
  CheckpointTimer timer_;
  CheckpointState state_ = CheckpointState::idle;
  std::uint32_t checkpoints_ = 0;      // taken in this execution
  std::uint32_t writing_ = 0;          // the checkpoint being saved
  std::uint32_t abandoned_write_ = 0;  // a write a recovery abandoned, not complete yet (0: none)
  std::uint64_t progress_ = 1;         // tasks completed and messages received since its last save
  bool fresh_ = false;                 // exactly at the checkpoint it restored (nothing ran since)
  double save_began_ = 0;
  std::uint64_t save_bytes_ = 0;
};

}  // namespace ftsim::protocols::uncoordinated
