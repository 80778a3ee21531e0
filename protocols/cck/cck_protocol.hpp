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
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_set>
#include <vector>

#include "protocols/cck/cck_allgather.hpp"
#include "protocols/cck/cck_messages.hpp"
#include "protocols/cck/cck_node_set.hpp"
#include "protocols/cck/cck_options.hpp"
#include "protocols/cck/cck_planning.hpp"
#include "protocols/node_incarnations.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

using core::FailureNotice;
using core::Message;
using core::ProtocolContext;

class CckProtocol final : public core::Protocol {
public:
  CckProtocol(std::shared_ptr<const CckOptions> options, NodeId node, bool coordinator_process);

  void on_start(ProtocolContext& ctx) override;
  void on_task_completed(ProtocolContext& ctx, TaskId task, bool first_execution) override;
  core::SendVerdict on_send(ProtocolContext& ctx, Message& message) override;
  core::ReceiveVerdict on_receive(ProtocolContext& ctx, const Message& message) override;
  void on_data_released(ProtocolContext& ctx, const Message& message) override;
  void on_control(ProtocolContext& ctx, const Message& message) override;
  void on_timer(ProtocolContext& ctx, std::uint64_t token) override;
  void on_storage_done(ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content) override;
  void on_activity_done(ProtocolContext& ctx, std::uint64_t token) override;
  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) override;
  void on_restart(ProtocolContext& ctx, const core::RestartInfo& info) override;
  bool finished(ProtocolContext& ctx) override;
  std::string phase(ProtocolContext& ctx) override;

private:
  // --- messages between the roles (a coordinator on a node talks to its own node directly) ---
  void to_coordinator(ProtocolContext& ctx, MessageType type, const Control& control);
  void to_node(ProtocolContext& ctx, NodeId node, MessageType type, const Control& control);
  void node_message(ProtocolContext& ctx, NodeId from, MessageType type, const Control& control);
  void coordinator_message(ProtocolContext& ctx, NodeId from, std::uint32_t incarnation, MessageType type,
                           const Control& control);
  // Counts a control message this node sends, by the part of the protocol it belongs to.
  void count_sent(ProtocolContext& ctx, MessageType type, std::uint64_t body_bytes, bool restart);
  std::vector<NodeId> expected_senders(ProtocolContext& ctx) const;   // V
  NodeSet future_receivers(ProtocolContext& ctx) const;               // W
  TaskId cut_limit(std::uint32_t checkpoint) const;
  void apply_priorities(ProtocolContext& ctx);

  // --- node: checkpoint (cck_checkpoint.cpp) ---
  void on_init(ProtocolContext& ctx, const Control& c);
  void try_stop(ProtocolContext& ctx);
  void on_checkpoint_ping(ProtocolContext& ctx, NodeId from, const Control& c);
  void on_checkpoint_pong(ProtocolContext& ctx, NodeId from, const Control& c);
  void save(ProtocolContext& ctx);
  // Definition 2: only the tasks' inputs; drops own versions a re-execution produced again after
  // the node had overwritten them (they were only to be re-sent).
  void drop_overwritten_versions(ProtocolContext& ctx, core::NodeSnapshot& snapshot) const;
  void saved(ProtocolContext& ctx);
  void on_cont(ProtocolContext& ctx, NodeId from, const Control& c);
  void maybe_ack(ProtocolContext& ctx);
  void abandon_checkpoint(ProtocolContext& ctx);

  // --- node: restart (cck_restart.cpp) ---
  void on_restart_order(ProtocolContext& ctx, const Control& c);
  void try_restart_stop(ProtocolContext& ctx);
  void on_restart_ping(ProtocolContext& ctx, NodeId from, const Control& c);
  void on_restart_pong(ProtocolContext& ctx, NodeId from, const Control& c);
  void start_gather(ProtocolContext& ctx);
  void on_gather(ProtocolContext& ctx, const Control& c);
  void pump_gather(ProtocolContext& ctx);
  LocalState local_state(ProtocolContext& ctx) const;
  void finish_restart(ProtocolContext& ctx);
  void apply_plan(ProtocolContext& ctx, const GatheredRound& round);
  void apply_restore(ProtocolContext& ctx);
  void report_done(ProtocolContext& ctx);

  // --- coordinator (cck_coordinator.cpp) ---
  void coordinator_start(ProtocolContext& ctx);
  void start_checkpoint(ProtocolContext& ctx);
  void broadcast_init(ProtocolContext& ctx);
  void on_ack(ProtocolContext& ctx, NodeId from, const Control& c);
  void validate(ProtocolContext& ctx);
  void coordinator_notice(ProtocolContext& ctx, const FailureNotice& notice);
  void open_round(ProtocolContext& ctx, std::uint64_t round, const FailureNotice& cause);
  void on_done(ProtocolContext& ctx, NodeId from, std::uint32_t incarnation, const Control& c);
  void arm_period(ProtocolContext& ctx);
  void write_record(ProtocolContext& ctx, std::uint64_t token);
  std::string coordinator_phase(ProtocolContext& ctx) const;

  // The incarnation each node is known to be at (kAnyIncarnation: not known yet, e.g. to a
  // replacement). Messages to a node go to that incarnation: on MPI a failed process may still
  // run for a moment after its failure notice, and must not take what is meant for its replacement.
  std::uint32_t incarnation_of(NodeId node) const;
  void learn_incarnation(NodeId node, std::uint32_t incarnation);

  std::shared_ptr<const CckOptions> options_;
  NodeId self_;
  NodeIncarnations incarnations_{core::kAnyIncarnation};
  bool node_;         // this process is a node (the dedicated coordinator process is not)
  bool coordinates_;  // this process runs the coordinator

  // ---------------------------------------------------------------- node state
  std::uint64_t round_ = 0;     // the restart round it last joined
  bool restored_ = true;        // false for a replacement until it restored checkpoint K
  std::uint32_t valid_ = 0;     // the last valid checkpoint it knows of
  std::map<std::uint32_t, core::NodeSnapshot> copies_;  // its own checkpoint copies, valid_ and newer
  std::uint32_t next_cut_ = 1;  // at cuts: the checkpoint whose cut bounds its tasks
  FailureNotice cause_{};       // the failure the current recovery repairs
  std::uint64_t completed_ = 0;         // the last round the coordinator completed (RESTART says)
  std::uint64_t restored_round_ = 0;    // the round in which it restored checkpoint restored_from_
  std::uint32_t restored_from_ = 0;

  struct CheckpointSession {
    std::uint32_t id = 0;       // 0: none
    bool stopped = false, saving = false, saved = false, acked = false;
    std::vector<NodeId> expect_from;   // V
    NodeSet sends_to;                  // W
    NodeSet pings, pongs, conts;
    NodeSet awaiting;                  // nodes of W and PINGers whose CONT has not come (once stopped)
    std::size_t pongs_expected = 0;    // PONGs from V still to come
    std::uint64_t bytes = 0, messages = 0, message_bytes = 0;
    double began = 0;
  } checkpoint_;
  std::uint32_t last_acked_ = 0;
  // /checkpoint_data: its images, a chain being read back, a save or restore waiting for the CPU
  // time of its encoding or decoding (tokens carry a sequence number: a stale one is ignored).
  std::optional<content::ImageWriter> writer_;
  content::ChainFetch fetch_;
  std::optional<std::pair<std::uint32_t, core::Bytes>> pending_write_;  // (checkpoint, image)
  std::optional<core::NodeSnapshot> pending_restore_;
  std::uint32_t charge_sequence_ = 0;
  void write_image(ProtocolContext& ctx);
  void charged(ProtocolContext& ctx, std::uint64_t token);
  void read_image(ProtocolContext& ctx, const core::Bytes& image, std::uint32_t checkpoint);
  std::map<std::pair<std::uint64_t, std::uint32_t>, NodeSet> early_pings_;  // (round, c)

  struct RestartSession {
    bool active = false;
    std::uint64_t round = 0;
    std::uint32_t checkpoint = 0;  // K
    bool restoring = false;        // it restarts from K (a replacement)
    bool stopped = false, flushed = false;
    std::vector<NodeId> expect_from;
    NodeSet pings, pongs;
    std::size_t pongs_expected = 0;
    std::optional<AllGather> gather;                    // until complete
    RestrictedGraph own;                                 // Ḡ^p, its own block
    std::shared_ptr<const GatheredRound> gathered;       // once gathered: flags and C_total
    std::optional<core::NodeSnapshot> state;             // K, read back (a replacement)
    LocalState local;                                    // what Ḡ^p was built from
    double began = 0;
  } restart_;
  std::map<std::uint64_t, NodeSet> early_restart_pings_;                 // by round
  std::map<std::uint64_t, std::vector<std::pair<std::uint32_t, AllGather::Blocks>>> early_gathers_;  // by round
  std::unordered_set<TaskId> pending_;  // re-executions of T^p not yet completed
  std::uint64_t planned_ = 0;           // |T^p| of the plan in force (for DONE)
  std::uint64_t planned_resends_ = 0;
  bool done_sent_ = true;
  bool done_restored_ = false;          // DONE says it restarted from K
  std::uint64_t done_round_ = 0;        // the round DONE is owed for

  // ---------------------------------------------------------------- coordinator state
  struct Coordinator {
    enum class Phase { idle, starting, checkpointing, validating, restarting, recovering } phase = Phase::idle;
    std::uint32_t incarnation = 0;
    std::uint32_t valid = 0, next = 1, current = 0;
    std::vector<std::uint8_t> answered;  // per node: ACK (checkpoint) or DONE (restart) received
    std::uint32_t answers = 0;
    std::uint64_t messages = 0, message_bytes = 0;  // of the checkpoint in progress
    core::CheckpointRecord record;
    std::vector<std::uint32_t> aborted;   // checkpoint ids whose server copies are still to erase
    std::uint64_t round = 0, completed = 0;
    FailureNotice cause{};
    std::vector<FailureNotice> unrecovered;
    std::vector<std::uint32_t> incarnations;  // per node: the newest incarnation heard from
    std::uint32_t involved = 0, restored = 0;
    std::uint64_t round_tasks = 0, round_resends = 0;
    double round_began = 0;
    std::optional<std::uint64_t> timer;
    std::optional<FailureNotice> notice_while_recovering;
  } coordinator_;
};

// Stable-storage keys: a node's checkpoint c, and the coordinator's record (on a node only).
inline std::uint64_t checkpoint_key(NodeId node, std::uint32_t checkpoint) {
  return (std::uint64_t(node) << 32) | checkpoint;
}
inline constexpr std::uint64_t kCoordinatorRecordKey = 0xffffffff00000000ull;
// Storage tokens.
inline constexpr std::uint64_t kReadToken = 1ull << 62;
inline constexpr std::uint64_t kRecordToken = 1ull << 61;
inline constexpr std::uint64_t kRecordReadToken = kRecordToken | kReadToken;
// /checkpoint_data: the CPU time of encoding an image / decoding a chain (+ a sequence number).
inline constexpr std::uint64_t kEncodeToken = 1ull << 60;
inline constexpr std::uint64_t kDecodeToken = 1ull << 59;

}  // namespace ftsim::protocols::cck
