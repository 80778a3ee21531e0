#include "protocols/global/global_protocol.hpp"

namespace ftsim::protocols::global {

using namespace messages;

GlobalProtocol::GlobalProtocol(std::shared_ptr<const GlobalOptions> options, bool coordinator)
    : options_(std::move(options)),
      keeper_(*options_),
      copies_(*options_),
      xor_(*options_, copies_),
      checkpointer_(*options_, copies_, keeper_),
      recovery_(*options_, checkpointer_, copies_) {
  if (coordinator) coordinator_.emplace(*options_);
}

void GlobalProtocol::on_start(ProtocolContext& ctx) {
  if (coordinator_) {
    coordinator_->on_start(ctx);
    return;
  }
  checkpointer_.on_start(ctx);
}

void GlobalProtocol::on_task_completed(ProtocolContext& ctx, TaskId, bool) {
  if (!coordinator_) checkpointer_.on_task_completed(ctx);
}

node::SendVerdict GlobalProtocol::on_send(ProtocolContext&, Message& m) {
  checkpointer_.count_sent(m.destination);
  return node::SendVerdict::send;
}

node::ReceiveVerdict GlobalProtocol::on_receive(ProtocolContext& ctx, const Message& m) {
  // Sent before a rollback that the receiver has already made: its sender's state is gone.
  if (m.epoch < ctx.epoch()) return node::ReceiveVerdict::drop_orphan;
  if (m.epoch == ctx.epoch()) checkpointer_.count_received();
  return node::ReceiveVerdict::accept;
}

void GlobalProtocol::on_stored(ProtocolContext& ctx, const Message&) { checkpointer_.on_stored(ctx); }

void GlobalProtocol::on_data_released(ProtocolContext& ctx, const Message&) { checkpointer_.on_data_released(ctx); }

void GlobalProtocol::on_control(ProtocolContext& ctx, const Message& m) {
  if (coordinator_) {
    coordinator_->on_message(ctx, m);
    return;
  }
  const Control c = node::decode<Control>(m);
  switch (m.control_type) {
    case kRequest:
      if (c.epoch == ctx.epoch() && recovery_.holds_state()) checkpointer_.on_request(ctx, c.checkpoint);
      break;
    case kSave:
      if (c.epoch == ctx.epoch() && recovery_.holds_state()) checkpointer_.on_save(ctx, c.checkpoint, c.count);
      break;
    case kCommit:
      if (c.epoch == ctx.epoch()) checkpointer_.on_commit(ctx, c.checkpoint);
      break;
    case kCheckpointAck: checkpointer_.on_ack(ctx, c.checkpoint, c.epoch); break;
    case kRecover: recovery_.on_recover(ctx, c); break;
    case kResume: recovery_.on_resume(ctx, c); break;
    case kRestoreData: recovery_.on_restore_data(ctx, c); break;
    case kNotHeld: recovery_.on_not_held(ctx, c); break;
    case kCheckpointData: keeper_.on_checkpoint_data(ctx, m.source, c); break;
    case kRestoreRequest: keeper_.on_restore_request(ctx, m.source, c); break;
    case kXorBlock: xor_.on_block(ctx, m.source, c, true); break;
    case kXorParityBlock: xor_.on_block(ctx, m.source, c, false); break;
    case kXorRequest: xor_.on_request(ctx, m.source, c); break;
    case kXorPieces: recovery_.on_xor_pieces(ctx, m.source, c); break;
    case kXorNotHeld: recovery_.on_xor_not_held(ctx, c); break;
    default: break;
  }
}

void GlobalProtocol::on_timer(ProtocolContext& ctx, std::uint64_t token) {
  if (coordinator_) {
    coordinator_->on_timer(ctx, token);
    return;
  }
  if (token & (kEncodeTokenBit | kDecodeTokenBit | kXorTokenBit)) {
    charged(ctx, token);
    return;
  }
  if (token == kRestartDelayToken) recovery_.on_restart_cost_paid(ctx);
}

void GlobalProtocol::on_activity_done(ProtocolContext& ctx, std::uint64_t token) {
  if (token & (kEncodeTokenBit | kDecodeTokenBit | kXorTokenBit)) charged(ctx, token);
}

void GlobalProtocol::charged(ProtocolContext& ctx, std::uint64_t token) {
  if (token & kXorTokenBit) {
    xor_.on_charged(ctx, token);
  } else if (token & kEncodeTokenBit) {
    checkpointer_.on_encoded(ctx, token);
  } else {
    recovery_.on_decoded(ctx, token);
  }
}

void GlobalProtocol::on_storage_done(ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (token & kReadTokenBit) {
    recovery_.on_storage_read(ctx, token, content);  // a checkpoint read back
  } else {
    checkpointer_.on_written(ctx, token);  // a checkpoint written
  }
}

void GlobalProtocol::on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  if (coordinator_) {
    coordinator_->on_failure_notice(ctx, notice);
    return;
  }
  recovery_.on_failure_notice(ctx, notice);
}

void GlobalProtocol::on_restart(ProtocolContext& ctx, const node::RestartInfo& info) { recovery_.on_restart(ctx, info); }

std::string GlobalProtocol::phase(ProtocolContext& ctx) {
  if (coordinator_) return coordinator_->phase(ctx);
  std::string recovering = recovery_.phase();
  return recovering.empty() ? checkpointer_.phase() : recovering;
}

}  // namespace ftsim::protocols::global
