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
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "graphs/buddy_mapping.hpp"
#include "protocols/checkpoint_content.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols {

using core::FailureNotice;
using core::Message;
using core::NodeId;
using core::ProtocolContext;
using core::TaskId;

// The protocol's options: its config block (/protocol), read and checked by the protocol itself.
//   {"type": "global", "period": DURATION | "at": "cuts", "storage": "stable" | "buddy",
//            "restart_cost": DURATION}
struct GlobalConfig {
  bool at_cuts = false;
  double period = 0;
  bool stable_storage = true;
  double restart_cost = 0;   // seconds a restarted process needs before it can restore
};
GlobalConfig read_global_options(const config::Config& config, config::JsonReader block);

// What every process of the run uses: the block plus what it implies on this graph.
struct GlobalOptions : GlobalConfig {
  std::vector<TaskId> cut_positions;  // at_cuts: position of checkpoint k at [k - 1]
  std::optional<graphs::BuddyMapping> buddies;
  // /checkpoint_data: the images of protocols/checkpoint_content.hpp (null: the snapshot as it is).
  std::shared_ptr<const content::Settings> content;
};

std::shared_ptr<const GlobalOptions> make_global_options(const config::Config& config, config::JsonReader block,
                                                             const graphs::TaskGraph& graph);

class GlobalProtocol final : public core::Protocol {
public:
  GlobalProtocol(std::shared_ptr<const GlobalOptions> options, bool coordinator)
      : options_(std::move(options)), coordinator_(coordinator) {
    if (options_->content && !coordinator_) writer_.emplace(options_->content);
  }

  void on_start(ProtocolContext& ctx) override;
  void on_task_completed(ProtocolContext& ctx, TaskId task, bool first_execution) override;
  core::SendVerdict on_send(ProtocolContext& ctx, Message& message) override;
  core::ReceiveVerdict on_receive(ProtocolContext& ctx, const Message& message) override;
  void on_stored(ProtocolContext& ctx, const Message& message) override;
  void on_data_released(ProtocolContext& ctx, const Message& message) override;
  void on_control(ProtocolContext& ctx, const Message& message) override;
  void on_timer(ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content) override;
  void on_activity_done(ProtocolContext& ctx, std::uint64_t token) override;
  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) override;
  void on_restart(ProtocolContext& ctx, const core::RestartInfo& info) override;
  std::string phase(ProtocolContext& ctx) override;

private:
  // --- node side ---
  void try_ready(ProtocolContext& ctx);
  void maybe_save(ProtocolContext& ctx);
  void save(ProtocolContext& ctx, std::uint32_t checkpoint);
  void send_saved(ProtocolContext& ctx);
  void saved(ProtocolContext& ctx);
  // /checkpoint_data: a restore from a chain of images; a charged CPU time (encode or decode) over.
  void restore_chain(ProtocolContext& ctx, std::span<const core::Bytes* const> chain);
  void charged(ProtocolContext& ctx, std::uint64_t token);
  void collect_chains(ProtocolContext& ctx);
  std::string buddy_list(NodeId node) const;
  void recover(ProtocolContext& ctx, std::uint32_t epoch, std::uint32_t checkpoint, const FailureNotice& cause);
  void restore(ProtocolContext& ctx, const core::NodeSnapshot& snapshot);
  void apply_task_limit(ProtocolContext& ctx);
  // --- coordinator side ---
  void start_checkpoint(ProtocolContext& ctx);
  void coordinator_message(ProtocolContext& ctx, const Message& message);
  void on_coordinator_notice(ProtocolContext& ctx, const FailureNotice& notice);
  void arm_period_timer(ProtocolContext& ctx);
  void maybe_resume(ProtocolContext& ctx);

  std::shared_ptr<const GlobalOptions> options_;
  bool coordinator_;
  // --- node side ---
  std::uint32_t committed_ = 0;                       // last checkpoint this node knows committed
  std::map<std::uint32_t, core::NodeSnapshot> local_; // its own copies (pending and committed)
  std::uint32_t ready_for_ = 0;                       // checkpoint to report READY for (0: none)
  std::uint32_t save_for_ = 0;                        // SAVE received, waiting for the flush
  std::uint64_t expected_received_ = 0;
  std::uint32_t saving_ = 0;                          // saved, waiting for the acknowledgement
  std::uint64_t saved_bytes_ = 0;
  std::uint32_t acks_missing_ = 0;                    // buddy acknowledgements still to come
  std::size_t asked_buddy_ = 0;                       // restoring: which buddy was asked last
  std::map<NodeId, std::uint64_t> sent_;              // data messages sent in this epoch, per node
  std::uint64_t received_ = 0;                        // data messages received in this epoch
  std::uint32_t restored_from_ = 0;
  std::uint32_t restoring_ = 0;                       // checkpoint being fetched (replacement)
  FailureNotice cause_{};                             // the failure the current recovery repairs
  bool restarting_ = false;                           // a replacement paying its restart cost
  bool unrestored_ = false;                           // a replacement that has restored nothing yet
  std::optional<Message> deferred_recover_;           // RECOVER received while restarting
  // /checkpoint_data: its images, a chain being read back, a save or restore waiting for the CPU
  // time of its encoding or decoding (tokens carry a sequence number: a stale one is ignored).
  std::optional<content::ImageWriter> writer_;
  content::ChainFetch fetch_;
  struct PendingSave {
    std::uint32_t checkpoint = 0;
    core::Bytes content;
    std::uint64_t bytes = 0;
  };
  std::optional<PendingSave> pending_save_;
  std::optional<core::NodeSnapshot> pending_restore_;
  std::uint32_t charge_sequence_ = 0;
  double checkpoint_began_ = -1;                      // for the trace spans
  double recovery_began_ = -1;
  // --- coordinator side ---
  enum class Phase { idle, gathering_ready, gathering_saved, recovering };
  Phase phase_ = Phase::idle;
  std::uint32_t next_checkpoint_ = 1;
  std::uint32_t answers_ = 0;
  std::vector<std::uint64_t> expected_;                // per node: data messages sent to it
  core::CheckpointRecord record_;
  std::uint32_t recovery_epoch_ = 0;
  std::vector<std::uint32_t> restored_epoch_;          // per node: the latest epoch it restored for
  std::uint32_t restored_count_ = 0;                   // nodes whose restored_epoch_ is recovery_epoch_
  std::vector<FailureNotice> unrecovered_;             // notices whose recovery is under way
  std::optional<std::uint64_t> period_timer_;
};

}  // namespace ftsim::protocols
