#include "protocols/uncoordinated/unco_protocol.hpp"

namespace ftsim::protocols::uncoordinated {

UncoordinatedProtocol::UncoordinatedProtocol(std::shared_ptr<const Options> options, node::NodeId node, bool coordinator)
    : options_(std::move(options)) {
  if (coordinator) {
    coordinator_.emplace(*options_);
  } else {
    process_.emplace(*options_, node);
  }
}

void UncoordinatedProtocol::on_start(node::ProtocolContext& ctx) {
  if (coordinator_) {
    coordinator_->on_start(ctx);
  } else {
    process_->on_start(ctx);
  }
}

void UncoordinatedProtocol::on_task_completed(node::ProtocolContext& ctx, node::TaskId, bool) {
  if (process_) process_->on_task_completed(ctx);
}

node::SendVerdict UncoordinatedProtocol::on_send(node::ProtocolContext& ctx, node::Message& m) {
  return process_ ? process_->on_send(ctx, m) : node::SendVerdict::send;
}

node::ReceiveVerdict UncoordinatedProtocol::on_receive(node::ProtocolContext& ctx, const node::Message& m) {
  return process_ ? process_->on_receive(ctx, m) : node::ReceiveVerdict::accept;
}

void UncoordinatedProtocol::on_data_released(node::ProtocolContext& ctx, const node::Message&) {
  if (process_) process_->on_data_released(ctx);
}

void UncoordinatedProtocol::on_control(node::ProtocolContext& ctx, const node::Message& m) {
  if (coordinator_) {
    coordinator_->on_message(ctx, m);
  } else {
    process_->on_control(ctx, m);
  }
}

void UncoordinatedProtocol::on_timer(node::ProtocolContext& ctx, std::uint64_t token) {
  if (process_) process_->on_timer(ctx, token);
}

void UncoordinatedProtocol::on_activity_done(node::ProtocolContext& ctx, std::uint64_t token) {
  if (process_) process_->on_activity_done(ctx, token);
}

void UncoordinatedProtocol::on_storage_done(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (process_) process_->on_storage_done(ctx, token, content);
}

void UncoordinatedProtocol::on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) {
  if (coordinator_) {
    coordinator_->on_notice(ctx, notice);
  } else {
    process_->on_failure_notice(ctx, notice);
  }
}

void UncoordinatedProtocol::on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) {
  if (process_) process_->on_restart(ctx, info);
}

bool UncoordinatedProtocol::finished(node::ProtocolContext& ctx) {
  return coordinator_ ? coordinator_->finished() : process_->finished(ctx);
}

std::string UncoordinatedProtocol::phase(node::ProtocolContext& ctx) {
  return coordinator_ ? coordinator_->phase(ctx) : process_->phase(ctx);
}

}  // namespace ftsim::protocols::uncoordinated
