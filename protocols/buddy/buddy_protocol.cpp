#include "protocols/buddy/buddy_protocol.hpp"

#include "protocols/buddy/buddy_messages.hpp"

namespace ftsim::protocols::buddy {

using messages::MessageType;

BuddyProtocol::BuddyProtocol(std::shared_ptr<const BuddyOptions> options, bool coordinator)
    : options_(std::move(options)),
      coordinator_(coordinator),
      origin_(*options_),
      keeper_(*options_),
      levels_(*options_),
      recovery_(*options_, origin_, keeper_, levels_) {}

void BuddyProtocol::on_start(node::ProtocolContext& ctx) {
  if (coordinator_) return;
  origin_.plan(ctx);
  keeper_.plan(ctx);
  levels_.plan(ctx);
  if (levels_.enabled()) {
    levels_.begin(ctx, 0);
    origin_.raise_restart_floor(ctx, levels_.restart_floor());  // no log release before a level checkpoint
  }
  origin_.send_values(ctx, 1);
  origin_.try_validate(ctx);  // a node with no task before a cut and nothing to save: valid at once
}

void BuddyProtocol::on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) {
  if (coordinator_) return;
  origin_.plan(ctx);
  keeper_.plan(ctx);
  levels_.plan(ctx);
  keeper_.lose_holdings();  // what it held as a buddy died with its predecessor
  recovery_.start_restart(ctx, info);
}

void BuddyProtocol::on_task_completed(node::ProtocolContext& ctx, node::TaskId task, bool first_execution) {
  if (coordinator_) return;
  if (first_execution) {
    origin_.save_outputs(ctx, task);
    levels_.on_task_completed(ctx, task);
  }
  keeper_.start_copies(ctx);  // a core is free: copy tasks first
  origin_.start_encodes(ctx);  // then /checkpoint_data encodings
  origin_.try_validate(ctx);
}

node::SendVerdict BuddyProtocol::on_send(node::ProtocolContext& ctx, node::Message& m) {
  if (!coordinator_ && m.is_data && m.traffic == node::Traffic::checkpoint) m.priority = origin_.save_priority(m.handle, m.version);
  if (coordinator_ || !m.is_data || m.traffic != node::Traffic::application) return node::SendVerdict::send;
  origin_.log(ctx, m);
  m.logged = true;  // every application message is in its sender's log (§3.3), for checkpoint traces
  return node::SendVerdict::send;
}

node::ReceiveVerdict BuddyProtocol::on_receive(node::ProtocolContext& ctx, const node::Message& m) {
  if (coordinator_) return node::ReceiveVerdict::accept;
  if (m.traffic != node::Traffic::checkpoint) return recovery_.on_data();
  keeper_.on_checkpoint_data(ctx, m);
  return node::ReceiveVerdict::consumed;  // checkpoint data: the protocol's, not the runtime's
}

void BuddyProtocol::on_stored(node::ProtocolContext& ctx, const node::Message& m) {
  if (coordinator_) return;
  keeper_.on_stored(ctx, m);
}

void BuddyProtocol::on_activity_done(node::ProtocolContext& ctx, std::uint64_t token) {
  if (token & BuddyOrigin::kEncodeTokenBit) {
    origin_.on_encode_done(ctx, token);
  } else if (token & BuddyRecovery::kDecodeTokenBit) {
    recovery_.on_decoded(ctx, token);
  } else {
    keeper_.on_copy_done(ctx, token);
  }
  origin_.start_encodes(ctx);  // a core is free
}

void BuddyProtocol::on_timer(node::ProtocolContext& ctx, std::uint64_t token) {
  // /checkpoint_data: a decompression charged as a delay (no core was free).
  if (token & BuddyRecovery::kDecodeTokenBit) recovery_.on_decoded(ctx, token);
}

void BuddyProtocol::on_storage_done(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (coordinator_) return;
  if (token & level_tokens::kRead) {
    recovery_.on_level_read(ctx, token, content);
    return;
  }
  // A manifest landed: the log may be released further. Either that or a level checkpoint whole:
  // the run may end.
  const BuddyLevels::Written written = levels_.on_written(ctx, token);
  if (written.manifest) origin_.raise_restart_floor(ctx, levels_.restart_floor());
  if (written.manifest || written.whole) ctx.check_completion();
}

void BuddyProtocol::on_data_released(node::ProtocolContext& ctx, const node::Message& m) {
  recovery_.on_data_released(ctx, m);
}

void BuddyProtocol::on_control(node::ProtocolContext& ctx, const node::Message& m) {
  // The messages that name one of the origin's checkpoints: it must exist.
  const auto checked = [&](std::uint32_t c) {
    if (c == 0 || c > options_->saves.checkpoints()) throw node::WireError("buddy: checkpoint id out of range");
    return c;
  };
  switch (static_cast<MessageType>(m.control_type)) {
    case MessageType::recovery_info:
      recovery_.on_recovery_info(ctx, m.source, m.source_incarnation, node::decode<messages::RecoveryInfo>(m));
      return;
    case MessageType::info_request:
      if (coordinator_) return;
      recovery_.on_info_request(ctx, m.source, m.source_incarnation, node::decode<messages::InfoRequest>(m));
      return;
    case MessageType::replay_request:
      recovery_.on_replay_request(ctx, m.source, m.source_incarnation, node::decode<messages::ReplayRequest>(m));
      return;
    case MessageType::restart_from:
      recovery_.on_restart_from(ctx, m.source, m.source_incarnation, node::decode<messages::RestartFrom>(m));
      return;
    case MessageType::restore_data: recovery_.on_restore_data(ctx, m); return;
    case MessageType::reprotect: keeper_.on_reprotect(ctx, m.source, node::decode<messages::Reprotect>(m)); return;
    case MessageType::saved_copy: keeper_.on_saved_copy(ctx, m.source, node::decode<messages::SavedCopy>(m)); return;
    case MessageType::ack: origin_.on_ack(ctx, m.source, checked(node::decode<messages::Ack>(m).checkpoint)); return;
    case MessageType::log_release:
      origin_.release_log(ctx, m.source, checked(node::decode<messages::LogRelease>(m).checkpoint));
      return;
    case MessageType::value_entries:
      keeper_.on_value_entries(ctx, m.source, checked(node::decode<messages::ValueEntries>(m).checkpoint));
      return;
    case MessageType::level_done:
      if (coordinator_) return;
      if (levels_.on_level_done(ctx, m.source, node::decode<messages::LevelDone>(m))) {
        origin_.raise_restart_floor(ctx, levels_.restart_floor());
      }
      return;
    case MessageType::validate:
      keeper_.on_validate(ctx, m.source, checked(node::decode<messages::Validate>(m).checkpoint));
      return;
  }
  throw node::WireError("buddy: unknown control message type " + std::to_string(m.control_type));
}

bool BuddyProtocol::finished(node::ProtocolContext&) {
  return coordinator_ || (!recovery_.recovering() && origin_.all_valid() && levels_.all_written());
}

std::string BuddyProtocol::phase(node::ProtocolContext& ctx) {
  if (coordinator_) return {};
  if (recovery_.recovering()) return recovery_.phase(ctx);
  std::string phase = origin_.phase(ctx);
  return phase.empty() ? levels_.phase() : phase;
}

}  // namespace ftsim::protocols::buddy
