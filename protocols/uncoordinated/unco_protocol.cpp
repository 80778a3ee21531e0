#include "protocols/uncoordinated/unco_protocol.hpp"

namespace ftsim::protocols::uncoordinated {

UncoordinatedProtocol::UncoordinatedProtocol(std::shared_ptr<const Options> options, core::NodeId node, bool coordinator)
    : options_(std::move(options)) {
  if (coordinator) {
    coordinator_.emplace(*options_);
  } else {
    process_.emplace(*options_, node);
  }
}

void UncoordinatedProtocol::on_start(core::ProtocolContext& ctx) {
  if (coordinator_) {
    coordinator_->on_start(ctx);
  } else {
    process_->on_start(ctx);
  }
}

void UncoordinatedProtocol::on_task_completed(core::ProtocolContext& ctx, core::TaskId, bool) {
  if (process_) process_->on_task_completed(ctx);
}

core::SendVerdict UncoordinatedProtocol::on_send(core::ProtocolContext& ctx, core::Message& m) {
  return process_ ? process_->on_send(ctx, m) : core::SendVerdict::send;
}

core::ReceiveVerdict UncoordinatedProtocol::on_receive(core::ProtocolContext& ctx, const core::Message& m) {
  return process_ ? process_->on_receive(ctx, m) : core::ReceiveVerdict::accept;
}

void UncoordinatedProtocol::on_data_released(core::ProtocolContext& ctx, const core::Message&) {
  if (process_) process_->on_data_released(ctx);
}

void UncoordinatedProtocol::on_control(core::ProtocolContext& ctx, const core::Message& m) {
  if (coordinator_) {
    coordinator_->on_message(ctx, m);
  } else {
    process_->on_control(ctx, m);
  }
}

void UncoordinatedProtocol::on_timer(core::ProtocolContext& ctx, std::uint64_t token) {
  if (process_) process_->on_timer(ctx, token);
}

void UncoordinatedProtocol::on_activity_done(core::ProtocolContext& ctx, std::uint64_t token) {
  if (process_) process_->on_activity_done(ctx, token);
}

void UncoordinatedProtocol::on_storage_done(core::ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content) {
  if (process_) process_->on_storage_done(ctx, token, content);
}

void UncoordinatedProtocol::on_failure_notice(core::ProtocolContext& ctx, const core::FailureNotice& notice) {
  if (coordinator_) {
    coordinator_->on_notice(ctx, notice);
  } else {
    process_->on_failure_notice(ctx, notice);
  }
}

void UncoordinatedProtocol::on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info) {
  if (process_) process_->on_restart(ctx, info);
}

bool UncoordinatedProtocol::finished(core::ProtocolContext& ctx) {
  return coordinator_ ? coordinator_->finished() : process_->finished(ctx);
}

std::string UncoordinatedProtocol::phase(core::ProtocolContext& ctx) {
  return coordinator_ ? coordinator_->phase(ctx) : process_->phase(ctx);
}

}  // namespace ftsim::protocols::uncoordinated
