// CCK: what both roles share — routing between the coordinator and the nodes, the verdicts on
// data messages, timers, storage completions, failure notices, V and W, and the reports.
#include "protocols/cck/cck_protocol.hpp"

#include <algorithm>

#include "protocols/cck/cck_metrics.hpp"

namespace ftsim::protocols::cck {

CckProtocol::CckProtocol(std::shared_ptr<const CckOptions> options, NodeId node, bool coordinator_process)
    : options_(std::move(options)),
      self_(node),
      node_(!coordinator_process),
      coordinates_(options_->coordinator_node ? !coordinator_process && node == *options_->coordinator_node
                                              : coordinator_process) {
  if (options_->content && node_) writer_.emplace(options_->content);
}

// ============================================================================ routing

void CckProtocol::count_sent(ProtocolContext& ctx, MessageType type, std::uint64_t body_bytes, bool restart) {
  const std::uint64_t bytes = body_bytes + options_->envelope;
  core::ProtocolCounters& counters = ctx.counters();
  if (restart) {
    counters.add(kRestartMessages);
    if (type == kGather) {
      counters.add(kGatherMessages);
      counters.add(kGatherBytes, bytes);
    }
    return;
  }
  counters.add(kCheckpointMessages);
  counters.add(kCheckpointMessageBytes, bytes);
  if (type != kInit && checkpoint_.id != 0) {  // the node's share, reported in its ACK
    ++checkpoint_.messages;
    checkpoint_.message_bytes += bytes;
  }
}

void CckProtocol::to_coordinator(ProtocolContext& ctx, MessageType type, const Control& control) {
  if (coordinates_) {  // the coordinator runs on this node
    coordinator_message(ctx, self_, ctx.incarnation(), type, control);
    return;
  }
  const NodeId to = options_->coordinator_node ? *options_->coordinator_node : ctx.coordinator();
  const std::uint32_t incarnation = options_->coordinator_node ? incarnation_of(to) : core::kAnyIncarnation;
  count_sent(ctx, type, send(ctx, to, type, control, incarnation), type == kDone);
}

void CckProtocol::to_node(ProtocolContext& ctx, NodeId node, MessageType type, const Control& control) {
  if (node_ && node == self_) {
    node_message(ctx, self_, type, control);
    return;
  }
  const bool restart = type == kRestart || type == kGather || type == kDone ||
                       ((type == kPing || type == kPong) && control.session == Session::restart);
  count_sent(ctx, type, send(ctx, node, type, control, incarnation_of(node)), restart);
}

std::uint32_t CckProtocol::incarnation_of(NodeId node) const {
  return incarnations_.get(node);
}

void CckProtocol::learn_incarnation(NodeId node, std::uint32_t incarnation) {
  const std::uint32_t known = incarnations_.get(node);
  if (known == core::kAnyIncarnation || incarnation > known) incarnations_.set(node, incarnation);
}

void CckProtocol::on_control(ProtocolContext& ctx, const Message& m) {
  const Control c = Control::decode(m);
  learn_incarnation(m.source, m.source_incarnation);
  for (auto [node, incarnation] : c.incarnations) learn_incarnation(node, incarnation);
  const auto type = static_cast<MessageType>(m.control_type);
  if (type == kAck || type == kDone) {
    if (coordinates_) coordinator_message(ctx, m.source, m.source_incarnation, type, c);
    return;
  }
  if (node_) node_message(ctx, m.source, type, c);
}

void CckProtocol::node_message(ProtocolContext& ctx, NodeId from, MessageType type, const Control& c) {
  switch (type) {
    case kInit: on_init(ctx, c); break;
    case kPing:
      if (c.session == Session::checkpoint) {
        on_checkpoint_ping(ctx, from, c);
      } else {
        on_restart_ping(ctx, from, c);
      }
      break;
    case kPong:
      if (c.session == Session::checkpoint) {
        on_checkpoint_pong(ctx, from, c);
      } else {
        on_restart_pong(ctx, from, c);
      }
      break;
    case kCont: on_cont(ctx, from, c); break;
    case kRestart: on_restart_order(ctx, c); break;
    case kGather: on_gather(ctx, c); break;
    default: break;
  }
}

void CckProtocol::coordinator_message(ProtocolContext& ctx, NodeId from, std::uint32_t incarnation, MessageType type,
                                      const Control& c) {
  if (type == kAck) on_ack(ctx, from, c);
  if (type == kDone) on_done(ctx, from, incarnation, c);
}

// ============================================================================ lifecycle

void CckProtocol::apply_priorities(ProtocolContext& ctx) {
  if (!options_->reorder) return;
  core::ProtocolRuntime runtime = ctx.runtime();
  for (TaskId t : ctx.index().tasks_of(self_)) runtime.set_priority(t, options_->priorities[t]);
}

TaskId CckProtocol::cut_limit(std::uint32_t checkpoint) const {
  if (!options_->at_cuts || checkpoint == 0 || checkpoint > options_->cut_positions.size()) return graphs::kNone;
  return options_->cut_positions[checkpoint - 1];
}

void CckProtocol::on_start(ProtocolContext& ctx) {
  incarnations_.reset(ctx.node_count(), 0, core::kAnyIncarnation);  // the job starts: every node's first
  if (node_) {
    apply_priorities(ctx);
    ctx.runtime().set_task_limit(cut_limit(next_cut_));
  }
  if (coordinates_) coordinator_start(ctx);
}

void CckProtocol::on_restart(ProtocolContext& ctx, const core::RestartInfo& info) {
  incarnations_.reset(ctx.node_count(), core::kAnyIncarnation, core::kAnyIncarnation);  // learned from RESTART and messages
  incarnations_.set(self_, info.incarnation);
  // A replacement holds nothing: it waits for RESTART, then reads its checkpoint back.
  if (node_) {
    restored_ = false;
    ctx.runtime().pause();
    apply_priorities(ctx);
  }
  if (coordinates_) {
    // The coordinator's state died with its node: read its record back, then open a round for
    // every failure notified so far (its own included).
    coordinator_.answered.assign(ctx.node_count(), 0);
    coordinator_.incarnations.assign(ctx.node_count(), 0);
    coordinator_.phase = Coordinator::Phase::recovering;
    coordinator_.incarnation = info.incarnation;
    coordinator_.round = round_key(info.last_sequence, info.incarnation);
    coordinator_.cause = FailureNotice{self_, info.incarnation - 1, info.last_sequence};
    coordinator_.unrecovered.push_back(coordinator_.cause);
    ctx.storage_read(0, kCoordinatorRecordKey, kRecordReadToken);
  }
}

void CckProtocol::on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  learn_incarnation(notice.node, notice.incarnation + 1);  // its replacement's
  if (node_ && restored_ && notice.sequence > round_sequence(round_)) {
    // Stop starting tasks: the coordinator's RESTART says what to do (§3.5.5 step 1). (A notice
    // that a round this node has joined already covers changes nothing: on MPI a coordinator on
    // a node may send its RESTART before the driver's notice arrives.)
    ctx.runtime().pause();
    if (notice.sequence > cause_.sequence) cause_ = notice;
  }
  if (coordinates_) coordinator_notice(ctx, notice);
}

void CckProtocol::on_task_completed(ProtocolContext& ctx, TaskId task, bool) {
  if (!pending_.empty() && pending_.erase(task) != 0) {
    ctx.counters().add(kSurvivorReexecutions);
    core::FailureEffect effect;
    effect.tasks_reexecuted = 1;
    effect.work_lost_seconds = ctx.task_seconds(task);
    ctx.record_failure_effect(cause_, effect);
    if (pending_.empty()) report_done(ctx);
  }
  try_stop(ctx);
  try_restart_stop(ctx);
}

void CckProtocol::on_data_released(ProtocolContext& ctx, const Message&) {
  // The node may have become quiescent.
  try_stop(ctx);
  try_restart_stop(ctx);
}

core::SendVerdict CckProtocol::on_send(ProtocolContext&, Message& m) {
  // After its save, a node sends nothing to a node whose CONT has not arrived (§3.4.2 step 4):
  // that node may not have saved yet.
  if (checkpoint_.id != 0 && checkpoint_.stopped && !checkpoint_.acked && checkpoint_.conts.count(m.destination) == 0) {
    return core::SendVerdict::hold;
  }
  return core::SendVerdict::send;
}

core::ReceiveVerdict CckProtocol::on_receive(ProtocolContext&, const Message&) {
  // During a restart the node's state must not change before its plan is applied (a replacement:
  // before it restored K): data waits, in order of arrival.
  return restart_.active || !restored_ ? core::ReceiveVerdict::defer : core::ReceiveVerdict::accept;
}

void CckProtocol::on_timer(ProtocolContext& ctx, std::uint64_t token) {
  if (token & (kEncodeToken | kDecodeToken)) {
    charged(ctx, token);
    return;
  }
  if (!coordinates_ || !coordinator_.timer || token != 0) return;
  coordinator_.timer.reset();
  if (coordinator_.phase == Coordinator::Phase::idle) start_checkpoint(ctx);
}

void CckProtocol::on_storage_done(ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content) {
  if ((token & kRecordToken) != 0) {  // the coordinator's record, written or read back
    if (!coordinates_) return;
    if ((token & kReadToken) == 0) {
      if (coordinator_.phase == Coordinator::Phase::starting && (token & 0xffffffffu) == coordinator_.current) {
        broadcast_init(ctx);
      } else if (coordinator_.phase == Coordinator::Phase::validating && (token & 0xffffffffu) == coordinator_.current) {
        validate(ctx);
      }
      return;
    }
    if (coordinator_.phase != Coordinator::Phase::recovering) return;
    if (content) {
      core::WireReader in(*content);
      coordinator_.valid = in.u32();
      const std::uint32_t started = in.u32();
      coordinator_.next = std::max(coordinator_.valid, started) + 1;
    }
    open_round(ctx, coordinator_.round, coordinator_.cause);
    return;
  }
  if ((token & kReadToken) != 0) {  // a replacement's checkpoint read back
    const auto checkpoint = static_cast<std::uint32_t>(token & 0xffffffffu);
    if (!restart_.active || !restart_.restoring || restart_.checkpoint != checkpoint || restart_.state) return;
    if (!content) {
      ctx.fail_run("unrecoverable: checkpoint " + std::to_string(checkpoint) + " of node " + std::to_string(self_) +
                   " is not on its checkpoint server");
      return;
    }
    if (writer_) {
      read_image(ctx, *content, checkpoint);
      return;
    }
    core::WireReader in(*content);
    restart_.state = core::NodeSnapshot::decode(in);
    finish_restart(ctx);
    return;
  }
  if (checkpoint_.id == static_cast<std::uint32_t>(token) && !checkpoint_.saved) saved(ctx);
}

void CckProtocol::read_image(ProtocolContext& ctx, const core::Bytes& image, std::uint32_t checkpoint) {
  // /checkpoint_data: read back from the newest image to the full one, then restored in order.
  if (fetch_.want() == 0) fetch_.begin(checkpoint);
  if (!content::is_image(image) || content::read_header(image).checkpoint != fetch_.want()) return;  // an older round's
  if (const std::uint32_t next = fetch_.add(image)) {
    ctx.storage_read(self_ % options_->servers, checkpoint_key(self_, next), kReadToken | checkpoint);
    return;
  }
  const auto chain = fetch_.chain();
  content::Restored restored = content::read_chain(ctx, *options_->content, chain);
  writer_->adopt(chain);  // its images on the server now: erased once a newer chain is valid
  fetch_.begin(0);
  if (restored.charge_seconds > 0) {  // decompression takes a core first (a simulation)
    pending_restore_ = std::move(restored.snapshot);
    content::charge(ctx, restored.charge_seconds, kDecodeToken | ++charge_sequence_);
    return;
  }
  restart_.state = std::move(restored.snapshot);
  finish_restart(ctx);
}

void CckProtocol::on_activity_done(ProtocolContext& ctx, std::uint64_t token) {
  if (token & (kEncodeToken | kDecodeToken)) charged(ctx, token);
}

void CckProtocol::charged(ProtocolContext& ctx, std::uint64_t token) {
  if ((token & 0xffffffffu) != charge_sequence_) return;  // a stale one (a failure came in between)
  if (token & kEncodeToken) {
    write_image(ctx);
  } else if (pending_restore_ && restart_.active && restart_.restoring && !restart_.state) {
    restart_.state = std::move(*pending_restore_);
    pending_restore_.reset();
    finish_restart(ctx);
  }
}

bool CckProtocol::finished(ProtocolContext&) {
  if (!node_) return true;
  return restored_ && !restart_.active && pending_.empty();
}

// ============================================================================ V and W

std::vector<NodeId> CckProtocol::expected_senders(ProtocolContext& ctx) const {
  const NodeId nodes = ctx.node_count();
  std::vector<NodeId> senders;
  if (options_->flush_all) {
    for (NodeId n = 0; n < nodes; ++n) {
      if (n != self_) senders.push_back(n);
    }
    return senders;
  }
  // The nodes its remaining graph receives from: the sources of the versions its tasks not done
  // read, and of its final versions, that none of its own tasks produces. A version already
  // received counts too while a reader of it is not done (its receive is part of what remains to
  // run; and V then depends on the graph and the tasks done only, not on when data arrived: the
  // same checkpoint at a cut costs the same messages on every backend).
  const graphs::TaskGraph& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  std::vector<std::uint8_t> from(nodes, 0);
  auto expect = [&](HandleId h, Version v) {
    const NodeId source = v == 0 ? graph.owner(h) : graph.node(graph.writer(h, v));
    if (source == self_) return;  // its own: the input, or a writer of its own
    from[source] = 1;
  };
  for (TaskId t : ctx.index().tasks_of(self_)) {
    if (runtime.status(t) == core::TaskStatus::done) continue;
    for (const graphs::Access& a : graph.accesses(t)) {
      if (graphs::reads(a.mode)) expect(a.handle, graphs::version_read(a));
    }
  }
  for (HandleId h : options_->final_handles[self_]) {
    if (!runtime.holds(h, graph.final_version(h))) expect(h, graph.final_version(h));
  }
  for (NodeId n = 0; n < nodes; ++n) {
    if (from[n]) senders.push_back(n);
  }
  return senders;
}

NodeSet CckProtocol::future_receivers(ProtocolContext& ctx) const {
  NodeSet receivers;
  if (options_->flush_all) {
    for (NodeId n = 0; n < ctx.node_count(); ++n) {
      if (n != self_) receivers.insert(n);
    }
    return receivers;
  }
  core::ProtocolRuntime runtime = ctx.runtime();
  for (TaskId t : ctx.index().tasks_of(self_)) {
    if (runtime.status(t) == core::TaskStatus::done || runtime.executed_once(t)) continue;
    for (std::uint32_t id : ctx.index().sends_after(t)) receivers.insert(ctx.graph().transfers()[id].destination);
  }
  return receivers;
}

// ============================================================================ reports

std::string CckProtocol::phase(ProtocolContext& ctx) {
  std::string text;
  if (coordinates_) text = coordinator_phase(ctx);
  if (!node_) return text;
  auto add = [&](const std::string& part) { text += (text.empty() ? "" : "; ") + part; };
  auto list = [](const auto& nodes) {
    std::string out;
    std::size_t shown = 0;
    for (NodeId n : nodes) {
      if (shown++ == 6) {
        out += ", ...";
        break;
      }
      out += (out.empty() ? "" : ", ") + std::to_string(n);
    }
    return out;
  };
  if (restart_.active) {
    const std::string round = "restart round " + std::to_string(round_sequence(restart_.round)) + ": ";
    if (!restart_.stopped) {
      add(round + "waiting for its running tasks to end");
    } else if (!restart_.flushed) {
      std::vector<NodeId> missing;
      for (NodeId n : restart_.expect_from) {
        if (restart_.pongs.count(n) == 0) missing.push_back(n);
      }
      add(round + "flushing, waiting for PONG from nodes " + list(missing));
    } else if (restart_.gather && !restart_.gather->complete()) {
      add(round + "all-gather step " + std::to_string(restart_.gather->step()) + ", waiting for node " +
          std::to_string(restart_.gather->waiting_for()));
    } else if (restart_.restoring && !restart_.state) {
      add(round + "reading checkpoint " + std::to_string(restart_.checkpoint) + " back from its server");
    }
  } else if (!restored_) {
    add("a replacement waiting for RESTART");
  } else if (!pending_.empty()) {
    add("re-executing " + std::to_string(pending_.size()) + " tasks of T_a_re-executer");
  }
  if (checkpoint_.id != 0 && !checkpoint_.acked && !restart_.active) {
    const std::string c = "checkpoint " + std::to_string(checkpoint_.id) + ": ";
    if (!checkpoint_.stopped) {
      add(c + "stopping (tasks running or sends in flight)");
    } else if (!checkpoint_.saved) {
      std::vector<NodeId> missing;
      for (NodeId n : checkpoint_.expect_from) {
        if (checkpoint_.pongs.count(n) == 0) missing.push_back(n);
      }
      add(c + (missing.empty() ? std::string("saving to its checkpoint server") : "waiting for PONG from nodes " + list(missing)));
    } else {
      const std::vector<NodeId> missing = checkpoint_.awaiting.members();
      add(c + "saved, waiting for CONT from nodes " + list(missing));
    }
  }
  return text;
}

}  // namespace ftsim::protocols::cck
