// CCK, the checkpoint on an application node (Besseron 2006 §3.4.2, Fig. 4): stop, flush the
// channels with V by PING/PONG, save to the checkpoint server and locally, CONT, resume, ACK.
#include "protocols/cck/cck_checkpoint.hpp"

#include <stdexcept>

#include "protocols/cck/cck_metrics.hpp"
#include "protocols/cck/cck_neighbours.hpp"

namespace ftsim::protocols::cck {

namespace {

const char* name(CheckpointState state) {
  switch (state) {
    case CheckpointState::none: return "none";
    case CheckpointState::stopping: return "stopping";
    case CheckpointState::flushing: return "flushing";
    case CheckpointState::saving: return "saving";
    case CheckpointState::saved: return "saved";
    case CheckpointState::acked: return "acked";
  }
  return "?";
}

// Definition 2: a checkpoint holds the tasks and *their inputs*. A survivor's re-executions
// (§3.5.4, T^p) produce again versions its own tasks had already overwritten (they exist only to
// be sent again, C_total^p): the runtime keeps them in its store as own versions, which no task of
// the node reads any more and no later write replaces (that write is already done). In a
// failure-free run such a version is gone (overwritten in place by the next one), so the
// checkpoint drops it: an own version (h, v) whose next version v + 1 is written by a task of this
// node that is done, and that no task of this node still to run reads.
void drop_overwritten_versions(node::ProtocolContext& ctx, NodeId self, node::NodeSnapshot& snapshot) {
  const graphs::TaskGraph& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  for (auto it = snapshot.store.begin(); it != snapshot.store.end();) {
    const HandleId h = node::VersionStore::handle_of(it->first);
    const Version v = node::VersionStore::version_of(it->first);
    bool overwritten = !it->second.copy && v < graph.final_version(h) && graph.node(graph.writer(h, v + 1)) == self &&
                       runtime.status(graph.writer(h, v + 1)) == node::TaskStatus::done;
    if (overwritten) {
      for (TaskId r : ctx.index().readers_on(graph, h, v, self)) {
        if (runtime.status(r) != node::TaskStatus::done) overwritten = false;
      }
    }
    if (!overwritten) {
      ++it;
      continue;
    }
    snapshot.bytes -= it->second.bytes;
    it = snapshot.store.erase(it);
  }
}

}  // namespace

CheckpointSession::CheckpointSession(const CckOptions& options, NodeId self, Post& post, LocalCheckpoints& local)
    : options_(options), self_(self), post_(post), local_(local) {}

void CheckpointSession::enter(CheckpointState next) {
  using S = CheckpointState;
  bool legal = false;
  switch (state_) {
    case S::none: legal = next == S::stopping || next == S::none; break;
    case S::stopping: legal = next == S::flushing || next == S::none; break;
    case S::flushing: legal = next == S::saving || next == S::none; break;
    case S::saving: legal = next == S::saved || next == S::none; break;
    case S::saved: legal = next == S::acked || next == S::none; break;
    case S::acked: legal = next == S::stopping || next == S::none; break;  // the next INIT
  }
  if (!legal) {
    throw std::logic_error(std::string("cck protocol bug: node ") + std::to_string(self_) + "'s checkpoint goes from " +
                           name(state_) + " to " + name(next));
  }
  state_ = next;
}

void CheckpointSession::on_init(node::ProtocolContext& ctx, const Control& c, std::uint64_t round) {
  if (c.checkpoint <= last_acked_ || c.checkpoint == current_.id) return;
  local_.advance_valid(ctx, c.valid);
  if (state_ != CheckpointState::none && state_ != CheckpointState::acked) abandon(ctx);
  current_ = Current{};
  current_.id = c.checkpoint;
  current_.round = round;
  current_.began = ctx.now();
  enter(CheckpointState::stopping);
  // 1.1: stop starting tasks (at cuts, the tasks before the cut run on: the node stops there).
  if (!options_.at_cuts) ctx.runtime().pause();
  for (auto it = early_pings_.begin(); it != early_pings_.end();) {
    if (it->first == std::pair(round, c.checkpoint)) current_.pings = it->second;
    it = it->first.second <= c.checkpoint || it->first.first < round ? early_pings_.erase(it) : std::next(it);
  }
  try_stop(ctx);
}

void CheckpointSession::try_stop(node::ProtocolContext& ctx) {
  if (state_ != CheckpointState::stopping) return;
  node::ProtocolRuntime runtime = ctx.runtime();
  // Stopped: no task runs and everything it sent has left (the PONGs then follow its data).
  if (!runtime.quiescent()) return;
  if (options_.at_cuts && !runtime.done_before(runtime.task_limit())) return;
  runtime.pause();
  enter(CheckpointState::flushing);
  // 2.1: V, the nodes it still expects data from, and W, those it will still send to.
  current_.expect_from = expected_senders(ctx, options_, self_);
  current_.pongs_expected = current_.expect_from.size();
  current_.sends_to = future_receivers(ctx, options_, self_);
  current_.awaiting = current_.sends_to;
  const std::vector<NodeId> pinged = current_.pings.members();
  for (NodeId n : pinged) current_.awaiting.insert(n);
  Control pong;
  pong.round = current_.round;
  pong.session = Session::checkpoint;
  pong.checkpoint = current_.id;
  for (NodeId n : pinged) post_.to_node(ctx, n, kPong, pong);  // 1.2
  for (NodeId n : current_.expect_from) post_.to_node(ctx, n, kPing, pong);  // 2.2
  if (current_.expect_from.empty()) save(ctx);
}

void CheckpointSession::on_ping(node::ProtocolContext& ctx, NodeId from, const Control& c, std::uint64_t round,
                                bool restarting) {
  if (c.round != round || restarting) {
    if (c.round > round) early_pings_[{c.round, c.checkpoint}].insert(from);
    return;
  }
  Control pong;
  pong.round = round;
  pong.session = Session::checkpoint;
  pong.checkpoint = c.checkpoint;
  if (c.checkpoint == current_.id) {
    current_.pings.insert(from);
    if (state_ != CheckpointState::none && state_ != CheckpointState::stopping) {  // stopped
      if (current_.conts.count(from) == 0 && state_ != CheckpointState::acked) current_.awaiting.insert(from);
      post_.to_node(ctx, from, kPong, pong);
    }
  } else if (c.checkpoint <= last_acked_) {
    // A late PING: this node has saved and sends nothing more to that node.
    post_.to_node(ctx, from, kPong, pong);
  } else if (c.checkpoint > current_.id) {
    early_pings_[{round, c.checkpoint}].insert(from);  // before its own INIT: answered once stopped
  }
}

void CheckpointSession::on_pong(node::ProtocolContext& ctx, NodeId from, const Control& c) {
  if (state_ != CheckpointState::flushing || c.round != current_.round || c.checkpoint != current_.id) return;
  // 2.3: a PONG from every node of V (PONGs come only from the nodes it PINGed).
  if (!current_.pongs.insert(from) || --current_.pongs_expected > 0) return;
  save(ctx);
}

void CheckpointSession::save(node::ProtocolContext& ctx) {
  // 3: the channels from V are empty: save the tasks not done and the live versions they read,
  // on the checkpoint server and locally.
  enter(CheckpointState::saving);
  node::NodeSnapshot snapshot = ctx.runtime().snapshot();
  drop_overwritten_versions(ctx, self_, snapshot);
  LocalCheckpoints::Encoded image = local_.encode(ctx, snapshot, current_.id);
  local_.keep(current_.id, std::move(snapshot));
  current_.bytes = image.bytes;
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += image.bytes;
  ctx.counters().add(kCheckpointBytes, image.bytes);
  pending_write_.emplace(current_.id, std::move(image.content));
  if (image.charge_seconds > 0) {
    // Hashing and compressing take a core of the node first (a simulation; on MPI they ran).
    local_.charge(ctx, image.charge_seconds, kEncodeToken);
    return;
  }
  write_image(ctx);
}

void CheckpointSession::on_encoded(node::ProtocolContext& ctx) { write_image(ctx); }

void CheckpointSession::write_image(node::ProtocolContext& ctx) {
  if (!pending_write_) return;
  auto [checkpoint, content] = std::move(*pending_write_);
  pending_write_.reset();
  if (checkpoint != current_.id || state_ != CheckpointState::saving) return;  // abandoned since
  local_.write(ctx, checkpoint, std::move(content), current_.bytes);
}

void CheckpointSession::on_written(node::ProtocolContext& ctx, std::uint32_t checkpoint) {
  if (checkpoint == current_.id && state_ == CheckpointState::saving) saved(ctx);
}

void CheckpointSession::saved(node::ProtocolContext& ctx) {
  // The server acknowledged: 4.1 CONT to V, 5 resume. What it sends to a node whose CONT has not
  // come is held (holds()): the paper's wait for CONT (4.2), channel by channel.
  enter(CheckpointState::saved);
  Control cont;
  cont.round = current_.round;
  cont.checkpoint = current_.id;
  for (NodeId n : current_.expect_from) post_.to_node(ctx, n, kCont, cont);
  node::ProtocolRuntime runtime = ctx.runtime();
  if (options_.at_cuts) {
    next_cut_ = current_.id + 1;
    runtime.set_task_limit(task_limit());
  }
  runtime.resume();
  maybe_ack(ctx);
}

void CheckpointSession::on_cont(node::ProtocolContext& ctx, NodeId from, const Control& c) {
  if (c.round != current_.round || c.checkpoint != current_.id) return;
  current_.conts.insert(from);
  current_.awaiting.erase(from);
  ctx.release_held_sends_to(from);
  maybe_ack(ctx);
}

void CheckpointSession::maybe_ack(node::ProtocolContext& ctx) {
  // 4.2: a CONT from every node it will send to and from every node that PINGed it.
  if (state_ != CheckpointState::saved || !current_.awaiting.empty()) return;
  enter(CheckpointState::acked);
  last_acked_ = current_.id;
  ctx.release_held_sends();
  Control ack;
  ack.round = current_.round;
  ack.checkpoint = current_.id;
  ack.bytes = current_.bytes;
  // The node's share of the checkpoint's messages, this ACK included (unless the coordinator is
  // its own process: then no message).
  ack.messages = current_.messages;
  ack.message_bytes = current_.message_bytes;
  if (!(options_.coordinator_node && *options_.coordinator_node == self_)) {
    const std::uint64_t size = node::encode(ack, kAck).encoded_size() + options_.envelope;
    ++ack.messages;
    ack.message_bytes += size;
  }
  if (ctx.recording()) ctx.record_span("checkpoint " + std::to_string(current_.id), "checkpoint", current_.began);
  post_.to_coordinator(ctx, kAck, ack);
}

void CheckpointSession::abandon(node::ProtocolContext& ctx) {
  // What was held leaves now (its receivers' checkpoint is void).
  ctx.release_held_sends();
  // /checkpoint_data: its image (if written) is erased as aborted: the next one is full.
  if (state_ == CheckpointState::saving || state_ == CheckpointState::saved || state_ == CheckpointState::acked) {
    local_.abandon_image();
  }
  pending_write_.reset();
  current_ = Current{};
  enter(CheckpointState::none);
  early_pings_.clear();
}

bool CheckpointSession::holds(NodeId destination) const {
  const bool stopped = state_ == CheckpointState::flushing || state_ == CheckpointState::saving ||
                       state_ == CheckpointState::saved;
  return stopped && current_.conts.count(destination) == 0;
}

void CheckpointSession::count_message(std::uint64_t bytes) {
  if (state_ == CheckpointState::none) return;
  ++current_.messages;
  current_.message_bytes += bytes;
}

TaskId CheckpointSession::task_limit() const {
  if (!options_.at_cuts || next_cut_ == 0 || next_cut_ > options_.cut_positions.size()) return graphs::kNone;
  return options_.cut_positions[next_cut_ - 1];
}

std::string CheckpointSession::phase() const {
  const std::string c = "checkpoint " + std::to_string(current_.id) + ": ";
  switch (state_) {
    case CheckpointState::none:
    case CheckpointState::acked: return {};
    case CheckpointState::stopping: return c + "stopping (tasks running or sends in flight)";
    case CheckpointState::flushing:
    case CheckpointState::saving: {
      std::vector<NodeId> missing;
      for (NodeId n : current_.expect_from) {
        if (current_.pongs.count(n) == 0) missing.push_back(n);
      }
      return c + (missing.empty() ? std::string("saving to its checkpoint server") : "waiting for PONG from nodes " + node_list(missing));
    }
    case CheckpointState::saved: return c + "saved, waiting for CONT from nodes " + node_list(current_.awaiting.members());
  }
  return {};
}

}  // namespace ftsim::protocols::cck
