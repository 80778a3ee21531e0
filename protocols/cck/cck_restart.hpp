#pragma once
// A CCK node's part in a restart (Besseron 2006 §3.5.5). RESTART(r, K) opens round r: the node
// stops (1) and flushes its channels with V (PING/PONG), builds its communication-restricted graph
// Ḡ^p (2), all-gathers the N graphs (3, cck_allgather.hpp), computes C_perdues, C_total and T^p
// from them (4-6, cck_planning.hpp) and restarts its tasks (7). A replacement reads its checkpoint
// K back from its server and restores it; a survivor keeps its state, re-executes T^p from its own
// copy of K and sends again only C_total^p (Reexecutions owes DONE once T^p has run). A newer
// RESTART during a round starts over from step 1 with the node's current state.
//
// The session drives the node's checkpoint session only to abandon it and to set its next cut.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocols/cck/cck_allgather.hpp"
#include "protocols/cck/cck_checkpoint.hpp"
#include "protocols/cck/cck_local_checkpoints.hpp"
#include "protocols/cck/cck_node_set.hpp"
#include "protocols/cck/cck_planning.hpp"
#include "protocols/cck/cck_post.hpp"
#include "protocols/cck/cck_reexecutions.hpp"

namespace ftsim::protocols::cck {

// Where the node is with respect to restarts (it replaces the flags restored, active, stopped,
// flushed and the gathered pointer). A round runs stopping -> flushing -> gathering -> gathered ->
// running; a newer RESTART sends any state of a round back to stopping.
enum class RestartState : std::uint8_t {
  running,      // its state is its own and current: it never failed, or its last round is applied
  replacement,  // a replacement that holds nothing yet, waiting for RESTART
  stopping,     // round r: waiting for its running tasks to end (step 1)
  flushing,     // stopped: PING sent to V, waiting for their PONGs
  gathering,    // Ḡ^p built: the all-gather of the N graphs (steps 2-3)
  gathered,     // the N graphs are in: a replacement waits here for checkpoint K from its server
};

class RestartSession {
public:
  RestartSession(const CckOptions& options, NodeId self, Post& post, LocalCheckpoints& local,
                 CheckpointSession& checkpoint);

  RestartState state() const { return state_; }
  bool active() const { return state_ != RestartState::running && state_ != RestartState::replacement; }
  std::uint64_t round() const { return round_; }  // the restart round it last joined
  // May the run end: nothing of a restart left to do here.
  bool finished() const { return state_ == RestartState::running && reexecutions_.pending() == 0; }

  // This process replaces a failed one: it waits for RESTART.
  void become_replacement();
  // A failure notice: a node with its own state stops starting tasks until RESTART says what to do.
  void on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice);
  void on_restart(node::ProtocolContext& ctx, const Control& c);
  void on_ping(node::ProtocolContext& ctx, NodeId from, const Control& c);
  void on_pong(node::ProtocolContext& ctx, NodeId from, const Control& c);
  void on_gather(node::ProtocolContext& ctx, const Control& c);
  // Checkpoint K read back from its server (a replacement); its decoding's CPU time is over.
  void on_checkpoint_read(node::ProtocolContext& ctx, std::uint32_t checkpoint, const node::Bytes* content);
  void on_decoded(node::ProtocolContext& ctx);
  // A task ended or a send left: the node may be stopped now; a re-execution of T^p may be done.
  void try_stop(node::ProtocolContext& ctx);
  void on_task_completed(node::ProtocolContext& ctx, TaskId task) { reexecutions_.on_completed(ctx, task, cause_); }
  // What it waits for (empty if nothing).
  std::string phase() const;

private:
  // The only place the state changes: a transition the protocol does not allow is a bug.
  void enter(RestartState next);
  // Its state is its own: not a replacement before its restore.
  bool restored() const;
  void start_gather(node::ProtocolContext& ctx);
  void pump_gather(node::ProtocolContext& ctx);
  void apply_plan(node::ProtocolContext& ctx, const GatheredRound& round);
  void apply_restore(node::ProtocolContext& ctx);

  // Round r, from its RESTART on.
  struct Round {
    std::uint32_t checkpoint = 0;        // K
    bool restoring = false;              // it restarts from K (a replacement)
    std::vector<NodeId> expect_from;     // V (a replacement expects nothing: what it needs comes once planned)
    NodeSet pings, pongs;
    std::size_t pongs_expected = 0;
    std::optional<AllGather> gather;     // while gathering
    RestrictedGraph own;                 // Ḡ^p, its own block
    LocalState local;                    // what Ḡ^p was built from
    std::optional<node::NodeSnapshot> state;  // K, read back (a replacement)
    double began = 0;
  };

  const CckOptions& options_;
  NodeId self_;
  Post& post_;
  LocalCheckpoints& local_;
  CheckpointSession& checkpoint_;
  Reexecutions reexecutions_;
  RestartState state_ = RestartState::running;
  Round current_;
  std::uint64_t round_ = 0;        // the restart round it last joined
  std::uint64_t completed_ = 0;    // the last round the coordinator completed (RESTART says)
  node::FailureNotice cause_{};    // the failure the current recovery repairs
  // The round in which it restored checkpoint `checkpoint` (what was sent to it since may be lost).
  struct LastRestore {
    std::uint64_t round = 0;
    std::uint32_t checkpoint = 0;
  } last_restore_;
  std::map<std::uint64_t, NodeSet> early_pings_;                                                 // by round
  std::map<std::uint64_t, std::vector<std::pair<std::uint32_t, AllGather::Blocks>>> early_gathers_;  // by round
};

}  // namespace ftsim::protocols::cck
