#pragma once
// A CCK node's part in a checkpoint (Besseron 2006 §3.4.2, Fig. 4): on INIT(c) it stops starting
// tasks; once none runs and what it sent has left (1.1) it answers the PINGs it got with PONG and
// PINGs V (2); once V has answered (FIFO channels: nothing from them is on the way) it saves its
// state (3), sends CONT to V and resumes, holding what it sends to a node until that node's CONT
// (4, W and every node that PINGed it); with every CONT in, it ACKs (4.2). A restart abandons it.
// Of restarts it knows only the round in force: CckProtocol passes it INIT, CONT and the chance to
// stop only outside a restart, and tells it of one when a PING comes (kept for its turn).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "protocols/cck/cck_local_checkpoints.hpp"
#include "protocols/cck/cck_node_set.hpp"
#include "protocols/cck/cck_post.hpp"

namespace ftsim::protocols::cck {

// Where the node is in checkpoint c (it replaces the phase flags stopped, saving, saved, acked).
enum class CheckpointState : std::uint8_t {
  none,      // no checkpoint under way: none yet, or the last one abandoned
  stopping,  // INIT(c) came: waiting until no task runs and what it sent has left (1.1)
  flushing,  // stopped: PING sent to V, waiting for their PONGs (2)
  saving,    // the channels from V are empty: its state is encoded and written to its server (3)
  saved,     // the server acknowledged: resumed, waiting for CONT from W and the PINGers (4)
  acked,     // ACK sent (4.2): done with c; late PINGs are answered at once
};

class CheckpointSession {
public:
  CheckpointSession(const CckOptions& options, NodeId self, Post& post, LocalCheckpoints& local);

  // INIT, PING, PONG, CONT of round `round` (the restart round the node last joined), outside a
  // restart; a PING may come during one (`restarting`), or from a later round: kept for its turn.
  void on_init(node::ProtocolContext& ctx, const Control& c, std::uint64_t round);
  void on_ping(node::ProtocolContext& ctx, NodeId from, const Control& c, std::uint64_t round, bool restarting);
  void on_pong(node::ProtocolContext& ctx, NodeId from, const Control& c);
  void on_cont(node::ProtocolContext& ctx, NodeId from, const Control& c);
  // A task ended or a send left: the node may be stopped now.
  void try_stop(node::ProtocolContext& ctx);
  // The server acknowledged checkpoint `checkpoint`; the CPU time of encoding its image is over.
  void on_written(node::ProtocolContext& ctx, std::uint32_t checkpoint);
  void on_encoded(node::ProtocolContext& ctx);
  // A failure interrupted it (RESTART): what was held leaves now.
  void abandon(node::ProtocolContext& ctx);

  // After its save, nothing leaves for a node whose CONT has not come (§3.4.2 step 4).
  bool holds(NodeId destination) const;
  // A control message this node sent while a checkpoint is under way: its share, reported in ACK.
  void count_message(std::uint64_t bytes);
  // At cuts: the task limit of the checkpoint whose cut bounds its tasks (RESTART names it).
  TaskId task_limit() const;
  void set_next_cut(std::uint32_t checkpoint) { next_cut_ = checkpoint; }
  // What it waits for (empty if no checkpoint is under way).
  std::string phase() const;

private:
  // The only place the state changes: a transition the protocol does not allow is a bug.
  void enter(CheckpointState next);
  void save(node::ProtocolContext& ctx);
  void write_image(node::ProtocolContext& ctx);
  void saved(node::ProtocolContext& ctx);
  void maybe_ack(node::ProtocolContext& ctx);

  // Checkpoint c, from its INIT on (reset by the next INIT or by abandon).
  struct Current {
    std::uint32_t id = 0;            // c (0: none)
    std::uint64_t round = 0;         // the restart round INIT came in
    std::vector<NodeId> expect_from; // V
    NodeSet sends_to;                // W
    NodeSet pings, pongs, conts;
    NodeSet awaiting;                // nodes of W and PINGers whose CONT has not come (once stopped)
    std::size_t pongs_expected = 0;  // PONGs from V still to come
    std::uint64_t bytes = 0, messages = 0, message_bytes = 0;
    double began = 0;
  };

  const CckOptions& options_;
  NodeId self_;
  Post& post_;
  LocalCheckpoints& local_;
  CheckpointState state_ = CheckpointState::none;
  Current current_;
  std::uint32_t last_acked_ = 0;
  std::uint32_t next_cut_ = 1;  // at cuts: the checkpoint whose cut bounds its tasks
  // The image of current_.id waiting for the CPU time of its encoding.
  std::optional<std::pair<std::uint32_t, node::Bytes>> pending_write_;
  std::map<std::pair<std::uint64_t, std::uint32_t>, NodeSet> early_pings_;  // PINGs before their INIT, by (round, c)
};

}  // namespace ftsim::protocols::cck
