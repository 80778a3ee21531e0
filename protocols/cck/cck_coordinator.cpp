// CCK, the coordinator (Besseron 2006 §3.4.1, Fig. 3; §3.5.5 for the rounds).
#include "protocols/cck/cck_coordinator.hpp"

#include <stdexcept>

#include "protocols/cck/cck_metrics.hpp"

namespace ftsim::protocols::cck {

namespace {

const char* name(CoordinatorState state) {
  switch (state) {
    case CoordinatorState::idle: return "idle";
    case CoordinatorState::starting: return "starting";
    case CoordinatorState::checkpointing: return "checkpointing";
    case CoordinatorState::validating: return "validating";
    case CoordinatorState::restarting: return "restarting";
    case CoordinatorState::recovering: return "recovering";
  }
  return "?";
}

}  // namespace

void Coordinator::enter(CoordinatorState next) {
  using S = CoordinatorState;
  bool legal = false;
  switch (state_) {
    case S::idle:
      legal = next == S::starting || next == S::checkpointing || next == S::restarting || next == S::recovering;
      break;
    case S::starting: legal = next == S::checkpointing || next == S::restarting; break;
    case S::checkpointing: legal = next == S::validating || next == S::idle || next == S::restarting; break;
    case S::validating: legal = next == S::idle; break;  // a notice meanwhile waits for the validation
    case S::restarting: legal = next == S::idle || next == S::restarting; break;  // done, or a newer round
    case S::recovering: legal = next == S::restarting; break;
  }
  if (!legal) throw std::logic_error(std::string("cck protocol bug: the coordinator goes from ") + name(state_) + " to " + name(next));
  state_ = next;
}

void Coordinator::start(node::ProtocolContext& ctx) {
  answers_.from.assign(ctx.node_count(), 0);
  incarnations_.assign(ctx.node_count(), 0);
  incarnation_ = ctx.incarnation();
  next_checkpoint(ctx);
}

void Coordinator::restart(node::ProtocolContext& ctx, NodeId self, const node::RestartInfo& info) {
  // Read its record back, then open a round for every failure notified so far (its own included).
  answers_.from.assign(ctx.node_count(), 0);
  incarnations_.assign(ctx.node_count(), 0);
  enter(CoordinatorState::recovering);
  incarnation_ = info.incarnation;
  round_.key = round_key(info.last_sequence, info.incarnation);
  round_.cause = node::FailureNotice{self, info.incarnation - 1, info.last_sequence};
  unrecovered_.push_back(round_.cause);
  ctx.storage_read(0, kCoordinatorRecordKey, kRecordReadToken);
}

void Coordinator::next_checkpoint(node::ProtocolContext& ctx) {
  if (options_.at_cuts) {
    if (next_ <= options_.cut_positions.size()) start_checkpoint(ctx);
  } else {
    arm_period(ctx);
  }
}

void Coordinator::arm_period(node::ProtocolContext& ctx) {
  if (options_.at_cuts) return;
  if (timer_) ctx.cancel_timer(*timer_);
  timer_ = ctx.set_timer(options_.period, 0);
}

void Coordinator::on_timer(node::ProtocolContext& ctx, std::uint64_t token) {
  if (!timer_ || token != 0) return;
  timer_.reset();
  if (state_ == CoordinatorState::idle) start_checkpoint(ctx);
}

void Coordinator::write_record(node::ProtocolContext& ctx, std::uint64_t token) {
  node::Bytes record;
  node::WireWriter out(record);
  out.u32(state_ == CoordinatorState::validating ? current_ : valid_);
  out.u32(current_);
  ctx.storage_write(0, kCoordinatorRecordKey, std::move(record), 8, token);
}

void Coordinator::on_record(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if ((token & kReadToken) == 0) {
    if (state_ == CoordinatorState::starting && (token & 0xffffffffu) == current_) {
      broadcast_init(ctx);
    } else if (state_ == CoordinatorState::validating && (token & 0xffffffffu) == current_) {
      validate(ctx);
    }
    return;
  }
  if (state_ != CoordinatorState::recovering) return;
  if (content) {
    node::WireReader in(*content);
    valid_ = in.u32();
    const std::uint32_t started = in.u32();
    next_ = std::max(valid_, started) + 1;
  }
  open_round(ctx, round_.key, round_.cause);
}

void Coordinator::start_checkpoint(node::ProtocolContext& ctx) {
  current_ = next_++;
  answers_.reset();
  checkpoint_ = Checkpoint{};
  checkpoint_.record.id = current_;
  checkpoint_.record.started = ctx.now();
  ctx.record_checkpoint(checkpoint_.record);
  if (ctx.recording()) ctx.note("checkpoint " + std::to_string(current_) + ": INIT to every node", "checkpoint");
  if (options_.coordinator_node) {
    enter(CoordinatorState::starting);  // its record says it started, before any node saves
    write_record(ctx, kRecordToken | current_);
    return;
  }
  broadcast_init(ctx);
}

void Coordinator::broadcast_init(node::ProtocolContext& ctx) {
  enter(CoordinatorState::checkpointing);
  Control init;
  init.round = round_.key;
  init.checkpoint = current_;
  init.valid = valid_;
  const std::uint64_t size = node::encode(init, kInit).encoded_size() + options_.envelope;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (!(options_.coordinator_node && n == *options_.coordinator_node)) {  // its own node: no message
      ++checkpoint_.messages;
      checkpoint_.message_bytes += size;
    }
    post_.to_node(ctx, n, kInit, init);
    if (state_ != CoordinatorState::checkpointing || checkpoint_.record.id != init.checkpoint) return;  // its own node ended it
  }
}

void Coordinator::on_ack(node::ProtocolContext& ctx, NodeId from, const Control& c) {
  if (state_ != CoordinatorState::checkpointing || c.checkpoint != current_ || c.round != round_.key || !answers_.add(from)) return;
  checkpoint_.record.bytes += c.bytes;
  checkpoint_.messages += c.messages;
  checkpoint_.message_bytes += c.message_bytes;
  if (answers_.count < ctx.node_count()) return;
  // 3: every node saved: checkpoint c is the restart point once recorded.
  if (options_.coordinator_node) {
    enter(CoordinatorState::validating);
    write_record(ctx, kRecordToken | current_);
    return;
  }
  validate(ctx);
}

void Coordinator::validate(node::ProtocolContext& ctx) {
  const std::uint32_t previous = valid_;
  valid_ = current_;
  enter(CoordinatorState::idle);
  node::CheckpointRecord& record = checkpoint_.record;
  record.saved = record.committed = ctx.now();
  ctx.record_checkpoint(record);
  node::ProtocolCounters& counters = ctx.counters();
  counters.add(kCheckpointsValidated);
  const auto duration = static_cast<std::uint64_t>((record.committed - record.started) * 1e6 + 0.5);
  counters.raise_to(kCheckpointDurationMax, duration);
  counters.add(kCheckpointDurationTotal, duration);
  counters.raise_to(kCheckpointMessagesMax, checkpoint_.messages);
  counters.raise_to(kCheckpointMessageBytesMax, checkpoint_.message_bytes);
  if (ctx.recording()) {
    ctx.note("checkpoint " + std::to_string(valid_) + " valid (" + std::to_string(record.bytes) + " B, " +
                 std::to_string(checkpoint_.messages) + " control messages)",
             "checkpoint");
  }
  // Garbage collection: the previous valid checkpoint and the aborted ones, on every server. With
  // /checkpoint_data the valid checkpoint's chain may need the previous one: each node erases its
  // own images once no chain needs them (LocalCheckpoints::advance_valid, on INIT).
  if (previous > 0 && !options_.content) aborted_.push_back(previous);
  for (std::uint32_t old : aborted_) {
    for (NodeId n = 0; n < ctx.node_count(); ++n) ctx.storage_erase(n % options_.servers, checkpoint_key(n, old));
  }
  aborted_.clear();
  if (notice_while_validating_) {  // a failure noticed while the record was being written
    const node::FailureNotice notice = *notice_while_validating_;
    notice_while_validating_.reset();
    on_notice(ctx, notice);
    return;
  }
  next_checkpoint(ctx);
}

void Coordinator::on_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) {
  const std::uint64_t round = round_key(notice.sequence, incarnation_);
  if (state_ == CoordinatorState::recovering) {  // its own record is being read back: the round opens then
    round_.key = std::max(round_.key, round);
    unrecovered_.push_back(notice);
    return;
  }
  if (state_ == CoordinatorState::validating) {  // every node saved: validate first, then restart from it
    notice_while_validating_ = notice;
    return;
  }
  if (state_ == CoordinatorState::starting || state_ == CoordinatorState::checkpointing) {
    checkpoint_.record.aborted = true;
    ctx.record_checkpoint(checkpoint_.record);
    aborted_.push_back(current_);
    ctx.counters().add(kCheckpointsAborted);
    if (ctx.recording()) ctx.note("checkpoint " + std::to_string(current_) + " aborted by a failure", "checkpoint");
  }
  unrecovered_.push_back(notice);
  open_round(ctx, round, notice);
}

void Coordinator::open_round(node::ProtocolContext& ctx, std::uint64_t round, const node::FailureNotice& cause) {
  if (timer_) {
    ctx.cancel_timer(*timer_);
    timer_.reset();
  }
  enter(CoordinatorState::restarting);
  round_.key = round;
  round_.cause = cause;  // (may be round_.cause itself: a replacement opens the round it read back)
  round_.involved = round_.restored = 0;
  round_.tasks = round_.resends = 0;
  round_.began = ctx.now();
  answers_.reset();
  if (ctx.recording()) {
    ctx.note("restart round " + std::to_string(round_sequence(round)) + " from checkpoint " + std::to_string(valid_),
             "recovery");
  }
  Control restart;
  restart.round = round;
  restart.checkpoint = valid_;
  restart.valid = next_;
  restart.cause = cause;
  restart.completed = completed_;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    const std::uint32_t incarnation = post_.incarnation_of(n);
    if (incarnation != 0 && incarnation != node::kAnyIncarnation) restart.incarnations.emplace_back(n, incarnation);
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    post_.to_node(ctx, n, kRestart, restart);
    if (round_.key != round) return;  // its own node opened a newer one meanwhile
  }
}

void Coordinator::on_done(node::ProtocolContext& ctx, NodeId from, std::uint32_t incarnation, const Control& c) {
  incarnations_[from] = std::max(incarnations_[from], incarnation);
  if (state_ != CoordinatorState::restarting || c.round != round_.key || !answers_.add(from)) return;
  if (c.restored) ++round_.restored;
  if (c.restored || c.tasks > 0) ++round_.involved;
  round_.tasks += c.tasks;
  round_.resends += c.messages;
  if (answers_.count < ctx.node_count()) return;
  // Every node restored or re-executed its part: the failures of this round are recovered.
  for (const node::FailureNotice& notice : unrecovered_) {
    node::FailureEffect effect;
    effect.restart_point = valid_ > 0 ? "checkpoint " + std::to_string(valid_) : "from scratch";
    effect.processes_rolled_back = round_.restored;
    effect.messages_replayed = round_.resends;
    ctx.record_failure_effect(notice, effect);
    ctx.record_recovered(notice);
  }
  unrecovered_.clear();
  completed_ = round_.key;
  if (options_.coordinator_node) {
    // A coordinator on a node may have missed notices (issued while its node was down): every
    // incarnation older than the one a node answered with has failed and is now recovered.
    for (NodeId n = 0; n < ctx.node_count(); ++n) {
      for (std::uint32_t i = 0; i < incarnations_[n]; ++i) ctx.record_recovered(node::FailureNotice{n, i, 0});
    }
  }
  node::ProtocolCounters& counters = ctx.counters();
  counters.add(kRestarts);
  counters.raise_to(kNodesInvolvedMax, round_.involved);
  counters.add(kNodesInvolvedTotal, round_.involved);
  counters.raise_to(kRestartDurationMax, static_cast<std::uint64_t>((ctx.now() - round_.began) * 1e6 + 0.5));
  if (ctx.recording()) {
    ctx.note("restart round " + std::to_string(round_sequence(round_.key)) + " done: " + std::to_string(round_.involved) +
                 " nodes involved, " + std::to_string(round_.tasks) + " tasks re-executed by survivors",
             "recovery");
  }
  enter(CoordinatorState::idle);
  next_checkpoint(ctx);
  ctx.check_completion();
}

std::string Coordinator::phase(node::ProtocolContext& ctx) const {
  const std::string of = " (" + std::to_string(answers_.count) + " of " + std::to_string(ctx.node_count()) + " nodes)";
  switch (state_) {
    case CoordinatorState::idle: return {};
    case CoordinatorState::starting: return "coordinator: recording the start of checkpoint " + std::to_string(current_);
    case CoordinatorState::checkpointing:
      return "coordinator: checkpoint " + std::to_string(current_) + ", waiting for ACK" + of;
    case CoordinatorState::validating: return "coordinator: recording checkpoint " + std::to_string(current_) + " as valid";
    case CoordinatorState::restarting:
      return "coordinator: restart round " + std::to_string(round_sequence(round_.key)) + ", waiting for DONE" + of;
    case CoordinatorState::recovering: return "coordinator: reading its record back after its node's failure";
  }
  return {};
}

}  // namespace ftsim::protocols::cck
