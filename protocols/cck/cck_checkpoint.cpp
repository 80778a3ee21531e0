// CCK, the checkpoint on an application node (Besseron 2006 §3.4.2, Fig. 4): stop, flush the
// channels with V by PING/PONG, save to the checkpoint server and locally, CONT, resume, ACK.
#include "protocols/cck/cck_metrics.hpp"
#include "protocols/cck/cck_protocol.hpp"

namespace ftsim::protocols::cck {

void CckProtocol::on_init(ProtocolContext& ctx, const Control& c) {
  if (!restored_ || restart_.active || c.round != round_) return;  // a checkpoint a failure interrupted
  if (c.checkpoint <= last_acked_ || c.checkpoint == checkpoint_.id) return;
  // Checkpoints older than the last valid one are of no use any more (the coordinator erases
  // their server copies).
  valid_ = std::max(valid_, c.valid);
  for (auto it = copies_.begin(); it != copies_.end();) it = it->first < valid_ ? copies_.erase(it) : std::next(it);
  if (writer_ && valid_ > 0) {
    // /checkpoint_data: its images before the valid checkpoint's chain serve no restore any more
    // (the coordinator erases only the aborted ones: it does not know the chains).
    for (std::uint32_t id : writer_->release_before(valid_)) ctx.storage_erase(self_ % options_->servers, checkpoint_key(self_, id));
  }
  if (checkpoint_.id != 0 && !checkpoint_.acked) abandon_checkpoint(ctx);
  checkpoint_ = CheckpointSession{};
  checkpoint_.id = c.checkpoint;
  checkpoint_.began = ctx.now();
  // 1.1: stop starting tasks (at cuts, the tasks before the cut run on: the node stops there).
  if (!options_->at_cuts) ctx.runtime().pause();
  for (auto it = early_pings_.begin(); it != early_pings_.end();) {
    if (it->first == std::pair(round_, c.checkpoint)) checkpoint_.pings = it->second;
    it = it->first.second <= c.checkpoint || it->first.first < round_ ? early_pings_.erase(it) : std::next(it);
  }
  try_stop(ctx);
}

void CckProtocol::try_stop(ProtocolContext& ctx) {
  if (!node_ || checkpoint_.id == 0 || checkpoint_.stopped || restart_.active || !restored_) return;
  core::ProtocolRuntime runtime = ctx.runtime();
  // Stopped: no task runs and everything it sent has left (the PONGs then follow its data).
  if (!runtime.quiescent()) return;
  if (options_->at_cuts && !runtime.done_before(runtime.task_limit())) return;
  runtime.pause();
  checkpoint_.stopped = true;
  // 2.1: V, the nodes it still expects data from, and W, those it will still send to.
  checkpoint_.expect_from = expected_senders(ctx);
  checkpoint_.pongs_expected = checkpoint_.expect_from.size();
  checkpoint_.sends_to = future_receivers(ctx);
  checkpoint_.awaiting = checkpoint_.sends_to;
  const std::vector<NodeId> pinged = checkpoint_.pings.members();
  for (NodeId n : pinged) checkpoint_.awaiting.insert(n);
  Control pong;
  pong.round = round_;
  pong.session = Session::checkpoint;
  pong.checkpoint = checkpoint_.id;
  for (NodeId n : pinged) to_node(ctx, n, kPong, pong);  // 1.2
  for (NodeId n : checkpoint_.expect_from) to_node(ctx, n, kPing, pong);  // 2.2
  if (checkpoint_.expect_from.empty()) save(ctx);
}

void CckProtocol::on_checkpoint_ping(ProtocolContext& ctx, NodeId from, const Control& c) {
  if (c.round != round_ || restart_.active) {
    if (c.round > round_) early_pings_[{c.round, c.checkpoint}].insert(from);
    return;
  }
  Control pong;
  pong.round = round_;
  pong.session = Session::checkpoint;
  pong.checkpoint = c.checkpoint;
  if (c.checkpoint == checkpoint_.id) {
    checkpoint_.pings.insert(from);
    if (checkpoint_.stopped) {
      if (checkpoint_.conts.count(from) == 0 && !checkpoint_.acked) checkpoint_.awaiting.insert(from);
      to_node(ctx, from, kPong, pong);
    }
  } else if (c.checkpoint <= last_acked_) {
    // A late PING: this node has saved and sends nothing more to that node.
    to_node(ctx, from, kPong, pong);
  } else if (c.checkpoint > checkpoint_.id) {
    early_pings_[{round_, c.checkpoint}].insert(from);  // before its own INIT: answered once stopped
  }
}

void CckProtocol::on_checkpoint_pong(ProtocolContext& ctx, NodeId from, const Control& c) {
  if (c.round != round_ || c.checkpoint != checkpoint_.id || !checkpoint_.stopped || checkpoint_.saving) return;
  // 2.3: a PONG from every node of V (PONGs come only from the nodes it PINGed).
  if (!checkpoint_.pongs.insert(from) || --checkpoint_.pongs_expected > 0) return;
  save(ctx);
}

void CckProtocol::drop_overwritten_versions(ProtocolContext& ctx, core::NodeSnapshot& snapshot) const {
  // Definition 2: a checkpoint holds the tasks and *their inputs*. A survivor's re-executions
  // (§3.5.4, T^p) produce again versions its own tasks had already overwritten (they exist only
  // to be sent again, C_total^p): the runtime keeps them in its store as own versions, which no
  // task of the node reads any more and no later write replaces (that write is already done). In
  // a failure-free run such a version is gone (overwritten in place by the next one), so the
  // checkpoint drops it: an own version (h, v) whose next version v + 1 is written by a task of
  // this node that is done, and that no task of this node still to run reads.
  const graphs::TaskGraph& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  for (auto it = snapshot.store.begin(); it != snapshot.store.end();) {
    const HandleId h = core::VersionStore::handle_of(it->first);
    const Version v = core::VersionStore::version_of(it->first);
    bool overwritten = !it->second.copy && v < graph.final_version(h) && graph.node(graph.writer(h, v + 1)) == self_ &&
                       runtime.status(graph.writer(h, v + 1)) == core::TaskStatus::done;
    if (overwritten) {
      for (TaskId r : ctx.index().readers_on(graph, h, v, self_)) {
        if (runtime.status(r) != core::TaskStatus::done) overwritten = false;
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

void CckProtocol::save(ProtocolContext& ctx) {
  // 3: the channels from V are empty: save the tasks not done and the live versions they read,
  // on the checkpoint server and locally.
  checkpoint_.saving = true;
  core::NodeSnapshot snapshot = ctx.runtime().snapshot();
  drop_overwritten_versions(ctx, snapshot);
  std::uint64_t bytes = snapshot.bytes;
  core::Bytes content;
  double charge = 0;
  if (writer_) {
    // /checkpoint_data: a full or incremental image, smaller (zero blocks, changed blocks, zstd).
    content::ImageWriter::Image image = writer_->write(ctx, snapshot, checkpoint_.id);
    bytes = image.stored_bytes;
    charge = image.charge_seconds;
    content = std::move(image.content);
  } else {
    core::WireWriter out(content);
    snapshot.encode(out);
  }
  copies_[checkpoint_.id] = std::move(snapshot);
  checkpoint_.bytes = bytes;
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += bytes;
  ctx.counters().add(kCheckpointBytes, bytes);
  pending_write_.emplace(checkpoint_.id, std::move(content));
  if (charge > 0) {
    // Hashing and compressing take a core of the node first (a simulation; on MPI they ran).
    content::charge(ctx, charge, kEncodeToken | ++charge_sequence_);
    return;
  }
  write_image(ctx);
}

void CckProtocol::write_image(ProtocolContext& ctx) {
  if (!pending_write_) return;
  auto [checkpoint, content] = std::move(*pending_write_);
  pending_write_.reset();
  if (checkpoint != checkpoint_.id || !checkpoint_.saving || checkpoint_.saved) return;  // abandoned since
  ctx.storage_write(self_ % options_->servers, checkpoint_key(self_, checkpoint), std::move(content), checkpoint_.bytes,
                    checkpoint);
}

void CckProtocol::saved(ProtocolContext& ctx) {
  // The server acknowledged: 4.1 CONT to V, 5 resume. What it sends to a node whose CONT has not
  // come is held (on_send): the paper's wait for CONT (4.2), channel by channel.
  checkpoint_.saved = true;
  Control cont;
  cont.round = round_;
  cont.checkpoint = checkpoint_.id;
  for (NodeId n : checkpoint_.expect_from) to_node(ctx, n, kCont, cont);
  core::ProtocolRuntime runtime = ctx.runtime();
  if (options_->at_cuts) {
    next_cut_ = checkpoint_.id + 1;
    runtime.set_task_limit(cut_limit(next_cut_));
  }
  runtime.resume();
  maybe_ack(ctx);
}

void CckProtocol::on_cont(ProtocolContext& ctx, NodeId from, const Control& c) {
  if (c.round != round_ || c.checkpoint != checkpoint_.id || restart_.active) return;
  checkpoint_.conts.insert(from);
  checkpoint_.awaiting.erase(from);
  ctx.release_held_sends_to(from);
  maybe_ack(ctx);
}

void CckProtocol::maybe_ack(ProtocolContext& ctx) {
  // 4.2: a CONT from every node it will send to and from every node that PINGed it.
  if (!checkpoint_.saved || checkpoint_.acked || !checkpoint_.awaiting.empty()) return;
  checkpoint_.acked = true;
  last_acked_ = checkpoint_.id;
  ctx.release_held_sends();
  Control ack;
  ack.round = round_;
  ack.checkpoint = checkpoint_.id;
  ack.bytes = checkpoint_.bytes;
  // The node's share of the checkpoint's messages, this ACK included (unless the coordinator is
  // its own process: then no message).
  ack.messages = checkpoint_.messages;
  ack.message_bytes = checkpoint_.message_bytes;
  if (!coordinates_) {
    const std::uint64_t size = ack.encode(kAck).encoded_size() + options_->envelope;
    ++ack.messages;
    ack.message_bytes += size;
  }
  if (ctx.recording()) ctx.record_span("checkpoint " + std::to_string(checkpoint_.id), "checkpoint", checkpoint_.began);
  to_coordinator(ctx, kAck, ack);
}

void CckProtocol::abandon_checkpoint(ProtocolContext& ctx) {
  // A failure interrupted it: what was held leaves now (its receivers' checkpoint is void).
  ctx.release_held_sends();
  // /checkpoint_data: its image (if written) is erased as aborted: the next one is full.
  if (writer_ && checkpoint_.saving) writer_->restart_chain();
  pending_write_.reset();
  checkpoint_ = CheckpointSession{};
  early_pings_.clear();
}

}  // namespace ftsim::protocols::cck
