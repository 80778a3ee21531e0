// CCK: the routing between the roles — events, messages and verdicts to the role they concern, the
// roles' messages out, and what this process knows of the others' incarnations.
#include "protocols/cck/cck_protocol.hpp"

#include "protocols/cck/cck_metrics.hpp"

namespace ftsim::protocols::cck {

CckProtocol::CckProtocol(std::shared_ptr<const CckOptions> options, NodeId node, bool coordinator_process)
    : options_(std::move(options)),
      self_(node),
      node_(!coordinator_process),
      coordinates_(options_->coordinator_node ? !coordinator_process && node == *options_->coordinator_node
                                              : coordinator_process),
      local_(*options_, self_, node_),
      checkpoint_(*options_, self_, *this, local_),
      restart_(*options_, self_, *this, local_, checkpoint_) {
  if (coordinates_) coordinator_.emplace(*options_, static_cast<Post&>(*this));
}

// ============================================================================ messages

void CckProtocol::count_sent(ProtocolContext& ctx, MessageType type, std::uint64_t body_bytes, bool restart) {
  const std::uint64_t bytes = body_bytes + options_->envelope;
  node::ProtocolCounters& counters = ctx.counters();
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
  if (type != kInit) checkpoint_.count_message(bytes);  // the node's share, reported in its ACK
}

void CckProtocol::to_coordinator(ProtocolContext& ctx, MessageType type, const Control& control) {
  if (coordinates_) {  // the coordinator runs on this node
    if (type == kAck) coordinator_->on_ack(ctx, self_, control);
    if (type == kDone) coordinator_->on_done(ctx, self_, ctx.incarnation(), control);
    return;
  }
  const NodeId to = options_->coordinator_node ? *options_->coordinator_node : ctx.coordinator();
  const std::uint32_t incarnation = options_->coordinator_node ? incarnation_of(to) : node::kAnyIncarnation;
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
  if (known == node::kAnyIncarnation || incarnation > known) incarnations_.set(node, incarnation);
}

void CckProtocol::on_control(ProtocolContext& ctx, const Message& m) {
  const Control c = node::decode<Control>(m);
  learn_incarnation(m.source, m.source_incarnation);
  for (auto [node, incarnation] : c.incarnations) learn_incarnation(node, incarnation);
  const auto type = static_cast<MessageType>(m.control_type);
  if (type == kAck || type == kDone) {
    if (!coordinator_) return;
    if (type == kAck) coordinator_->on_ack(ctx, m.source, c);
    if (type == kDone) coordinator_->on_done(ctx, m.source, m.source_incarnation, c);
    return;
  }
  if (node_) node_message(ctx, m.source, type, c);
}

void CckProtocol::node_message(ProtocolContext& ctx, NodeId from, MessageType type, const Control& c) {
  // The checkpoint session gets only what belongs to a checkpoint of the round in force, outside a
  // restart (a PING may come early: it keeps it for its turn).
  const bool running = restart_.state() == RestartState::running;
  switch (type) {
    case kInit:
      if (running && c.round == restart_.round()) checkpoint_.on_init(ctx, c, restart_.round());
      break;
    case kPing:
      if (c.session == Session::checkpoint) {
        checkpoint_.on_ping(ctx, from, c, restart_.round(), restart_.active());
      } else {
        restart_.on_ping(ctx, from, c);
      }
      break;
    case kPong:
      if (c.session == Session::checkpoint) {
        checkpoint_.on_pong(ctx, from, c);
      } else {
        restart_.on_pong(ctx, from, c);
      }
      break;
    case kCont:
      if (!restart_.active()) checkpoint_.on_cont(ctx, from, c);
      break;
    case kRestart: restart_.on_restart(ctx, c); break;
    case kGather: restart_.on_gather(ctx, c); break;
    default: break;
  }
}

// ============================================================================ events

void CckProtocol::apply_priorities(ProtocolContext& ctx) {
  if (!options_->reorder) return;
  node::ProtocolRuntime runtime = ctx.runtime();
  for (TaskId t : ctx.index().tasks_of(self_)) runtime.set_priority(t, options_->priorities[t]);
}

void CckProtocol::on_start(ProtocolContext& ctx) {
  incarnations_.reset(ctx.node_count(), 0, node::kAnyIncarnation);  // the job starts: every node's first
  if (node_) {
    apply_priorities(ctx);
    ctx.runtime().set_task_limit(checkpoint_.task_limit());
  }
  if (coordinator_) coordinator_->start(ctx);
}

void CckProtocol::on_restart(ProtocolContext& ctx, const node::RestartInfo& info) {
  incarnations_.reset(ctx.node_count(), node::kAnyIncarnation, node::kAnyIncarnation);  // learned from RESTART and messages
  incarnations_.set(self_, info.incarnation);
  // A replacement holds nothing: it waits for RESTART, then reads its checkpoint back.
  if (node_) {
    restart_.become_replacement();
    ctx.runtime().pause();
    apply_priorities(ctx);
  }
  if (coordinator_) coordinator_->restart(ctx, self_, info);
}

void CckProtocol::on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  learn_incarnation(notice.node, notice.incarnation + 1);  // its replacement's
  if (node_) restart_.on_failure_notice(ctx, notice);
  if (coordinator_) coordinator_->on_notice(ctx, notice);
}

void CckProtocol::try_stop(ProtocolContext& ctx) {
  if (!node_) return;
  if (restart_.state() == RestartState::running) checkpoint_.try_stop(ctx);
  restart_.try_stop(ctx);
}

void CckProtocol::on_task_completed(ProtocolContext& ctx, TaskId task, bool) {
  restart_.on_task_completed(ctx, task);
  try_stop(ctx);
}

void CckProtocol::on_data_released(ProtocolContext& ctx, const Message&) {
  try_stop(ctx);  // the node may have become quiescent
}

node::SendVerdict CckProtocol::on_send(ProtocolContext&, Message& m) {
  return checkpoint_.holds(m.destination) ? node::SendVerdict::hold : node::SendVerdict::send;
}

node::ReceiveVerdict CckProtocol::on_receive(ProtocolContext&, const Message&) {
  // During a restart the node's state must not change before its plan is applied (a replacement:
  // before it restored K): data waits, in order of arrival.
  return restart_.state() == RestartState::running ? node::ReceiveVerdict::accept : node::ReceiveVerdict::defer;
}

void CckProtocol::on_timer(ProtocolContext& ctx, std::uint64_t token) {
  if (token & (kEncodeToken | kDecodeToken)) {
    charged(ctx, token);
    return;
  }
  if (coordinator_) coordinator_->on_timer(ctx, token);
}

void CckProtocol::on_activity_done(ProtocolContext& ctx, std::uint64_t token) {
  if (token & (kEncodeToken | kDecodeToken)) charged(ctx, token);
}

void CckProtocol::charged(ProtocolContext& ctx, std::uint64_t token) {
  if (!local_.current(token)) return;  // a stale one (a failure came in between)
  if (token & kEncodeToken) {
    checkpoint_.on_encoded(ctx);
  } else {
    restart_.on_decoded(ctx);
  }
}

void CckProtocol::on_storage_done(ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if ((token & kRecordToken) != 0) {  // the coordinator's record, written or read back
    if (coordinator_) coordinator_->on_record(ctx, token, content);
    return;
  }
  if ((token & kReadToken) != 0) {  // a replacement's checkpoint read back
    restart_.on_checkpoint_read(ctx, static_cast<std::uint32_t>(token & 0xffffffffu), content);
    return;
  }
  checkpoint_.on_written(ctx, static_cast<std::uint32_t>(token));
}

bool CckProtocol::finished(ProtocolContext&) {
  return !node_ || restart_.finished();
}

std::string CckProtocol::phase(ProtocolContext& ctx) {
  std::string text;
  auto add = [&](const std::string& part) {
    if (!part.empty()) text += (text.empty() ? "" : "; ") + part;
  };
  if (coordinator_) add(coordinator_->phase(ctx));
  if (!node_) return text;
  add(restart_.phase());
  if (!restart_.active()) add(checkpoint_.phase());
  return text;
}

}  // namespace ftsim::protocols::cck
