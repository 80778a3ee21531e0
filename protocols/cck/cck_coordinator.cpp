// CCK, the coordinator (Besseron 2006 §3.4.1, Fig. 3): it starts a checkpoint every period (or
// at each graph cut), validates it after N ACKs and erases the older server copies; on a failure
// notice it aborts a checkpoint in progress and opens a restart round; it closes the round after
// N DONEs. On a node ("coordinator": n) it keeps a record (last valid checkpoint, last started)
// on checkpoint server 0, which its replacement reads back.
#include <algorithm>

#include "protocols/cck/cck_metrics.hpp"
#include "protocols/cck/cck_protocol.hpp"

namespace ftsim::protocols::cck {



void CckProtocol::coordinator_start(ProtocolContext& ctx) {
  coordinator_.answered.assign(ctx.node_count(), 0);
  coordinator_.incarnations.assign(ctx.node_count(), 0);
  coordinator_.incarnation = ctx.incarnation();
  if (options_->at_cuts) {
    if (!options_->cut_positions.empty()) start_checkpoint(ctx);
  } else {
    arm_period(ctx);
  }
}

void CckProtocol::arm_period(ProtocolContext& ctx) {
  if (options_->at_cuts) return;
  if (coordinator_.timer) ctx.cancel_timer(*coordinator_.timer);
  coordinator_.timer = ctx.set_timer(options_->period, 0);
}

void CckProtocol::write_record(ProtocolContext& ctx, std::uint64_t token) {
  core::Bytes record;
  core::WireWriter out(record);
  out.u32(coordinator_.phase == Coordinator::Phase::validating ? coordinator_.current : coordinator_.valid);
  out.u32(coordinator_.current);
  ctx.storage_write(0, kCoordinatorRecordKey, std::move(record), 8, token);
}

void CckProtocol::start_checkpoint(ProtocolContext& ctx) {
  Coordinator& k = coordinator_;
  k.current = k.next++;
  k.answers = 0;
  std::fill(k.answered.begin(), k.answered.end(), 0);
  k.messages = k.message_bytes = 0;
  k.record = core::CheckpointRecord{};
  k.record.id = k.current;
  k.record.started = ctx.now();
  ctx.record_checkpoint(k.record);
  if (ctx.recording()) ctx.note("checkpoint " + std::to_string(k.current) + ": INIT to every node", "checkpoint");
  if (options_->coordinator_node) {
    k.phase = Coordinator::Phase::starting;  // its record says it started, before any node saves
    write_record(ctx, kRecordToken | k.current);
    return;
  }
  broadcast_init(ctx);
}

void CckProtocol::broadcast_init(ProtocolContext& ctx) {
  Coordinator& k = coordinator_;
  k.phase = Coordinator::Phase::checkpointing;
  Control init;
  init.round = k.round;
  init.checkpoint = k.current;
  init.valid = k.valid;
  const std::uint64_t size = init.encode(kInit).encoded_size() + options_->envelope;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (!(node_ && n == self_)) {
      ++k.messages;
      k.message_bytes += size;
    }
    to_node(ctx, n, kInit, init);
    if (k.phase != Coordinator::Phase::checkpointing || k.record.id != init.checkpoint) return;  // its own node ended it
  }
}

void CckProtocol::on_ack(ProtocolContext& ctx, NodeId from, const Control& c) {
  Coordinator& k = coordinator_;
  if (k.phase != Coordinator::Phase::checkpointing || c.checkpoint != k.current || c.round != k.round || k.answered[from]) return;
  k.answered[from] = 1;
  k.record.bytes += c.bytes;
  k.messages += c.messages;
  k.message_bytes += c.message_bytes;
  if (++k.answers < ctx.node_count()) return;
  // 3: every node saved: checkpoint c is the restart point once recorded.
  if (options_->coordinator_node) {
    k.phase = Coordinator::Phase::validating;
    write_record(ctx, kRecordToken | k.current);
    return;
  }
  validate(ctx);
}

void CckProtocol::validate(ProtocolContext& ctx) {
  Coordinator& k = coordinator_;
  const std::uint32_t previous = k.valid;
  k.valid = k.current;
  k.phase = Coordinator::Phase::idle;
  k.record.saved = k.record.committed = ctx.now();
  ctx.record_checkpoint(k.record);
  core::ProtocolCounters& counters = ctx.counters();
  counters.add(kCheckpointsValidated);
  const auto duration = static_cast<std::uint64_t>((k.record.committed - k.record.started) * 1e6 + 0.5);
  counters.raise_to(kCheckpointDurationMax, duration);
  counters.add(kCheckpointDurationTotal, duration);
  counters.raise_to(kCheckpointMessagesMax, k.messages);
  counters.raise_to(kCheckpointMessageBytesMax, k.message_bytes);
  if (ctx.recording()) {
    ctx.note("checkpoint " + std::to_string(k.valid) + " valid (" + std::to_string(k.record.bytes) + " B, " +
                 std::to_string(k.messages) + " control messages)",
             "checkpoint");
  }
  // Garbage collection: the previous valid checkpoint and the aborted ones, on every server. With
  // /checkpoint_data the valid checkpoint's chain may need the previous one: each node erases its
  // own images once no chain needs them (cck_checkpoint.cpp, on INIT).
  if (previous > 0 && !options_->content) k.aborted.push_back(previous);
  for (std::uint32_t old : k.aborted) {
    for (NodeId n = 0; n < ctx.node_count(); ++n) ctx.storage_erase(n % options_->servers, checkpoint_key(n, old));
  }
  k.aborted.clear();
  if (k.notice_while_recovering) {  // a failure noticed while the record was being written
    const FailureNotice notice = *k.notice_while_recovering;
    k.notice_while_recovering.reset();
    coordinator_notice(ctx, notice);
    return;
  }
  if (options_->at_cuts) {
    if (k.next <= options_->cut_positions.size()) start_checkpoint(ctx);
  } else {
    arm_period(ctx);
  }
}

void CckProtocol::coordinator_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  Coordinator& k = coordinator_;
  const std::uint64_t round = round_key(notice.sequence, k.incarnation);
  if (k.phase == Coordinator::Phase::recovering) {  // its own record is being read back: the round opens then
    k.round = std::max(k.round, round);
    k.unrecovered.push_back(notice);
    return;
  }
  if (k.phase == Coordinator::Phase::validating) {  // every node saved: validate first, then restart from it
    k.notice_while_recovering = notice;
    return;
  }
  if (k.phase == Coordinator::Phase::starting || k.phase == Coordinator::Phase::checkpointing) {
    k.record.aborted = true;
    ctx.record_checkpoint(k.record);
    k.aborted.push_back(k.current);
    ctx.counters().add(kCheckpointsAborted);
    if (ctx.recording()) ctx.note("checkpoint " + std::to_string(k.current) + " aborted by a failure", "checkpoint");
  }
  k.unrecovered.push_back(notice);
  open_round(ctx, round, notice);
}

void CckProtocol::open_round(ProtocolContext& ctx, std::uint64_t round, const FailureNotice& cause) {
  Coordinator& k = coordinator_;
  if (k.timer) {
    ctx.cancel_timer(*k.timer);
    k.timer.reset();
  }
  k.phase = Coordinator::Phase::restarting;
  k.round = round;
  k.cause = cause;
  k.answers = k.involved = k.restored = 0;
  k.round_tasks = k.round_resends = 0;
  std::fill(k.answered.begin(), k.answered.end(), 0);
  k.round_began = ctx.now();
  if (ctx.recording()) {
    ctx.note("restart round " + std::to_string(round_sequence(round)) + " from checkpoint " + std::to_string(k.valid),
             "recovery");
  }
  Control restart;
  restart.round = round;
  restart.checkpoint = k.valid;
  restart.valid = k.next;
  restart.cause = cause;
  restart.completed = k.completed;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    const std::uint32_t incarnation = incarnation_of(n);
    if (incarnation != 0 && incarnation != core::kAnyIncarnation) restart.incarnations.emplace_back(n, incarnation);
  }
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    to_node(ctx, n, kRestart, restart);
    if (k.round != round) return;  // its own node opened a newer one meanwhile
  }
}

void CckProtocol::on_done(ProtocolContext& ctx, NodeId from, std::uint32_t incarnation, const Control& c) {
  Coordinator& k = coordinator_;
  k.incarnations[from] = std::max(k.incarnations[from], incarnation);
  if (k.phase != Coordinator::Phase::restarting || c.round != k.round || k.answered[from]) return;
  k.answered[from] = 1;
  if (c.restored) ++k.restored;
  if (c.restored || c.tasks > 0) ++k.involved;
  k.round_tasks += c.tasks;
  k.round_resends += c.messages;
  if (++k.answers < ctx.node_count()) return;
  // Every node restored or re-executed its part: the failures of this round are recovered.
  for (const FailureNotice& notice : k.unrecovered) {
    core::FailureEffect effect;
    effect.restart_point = k.valid > 0 ? "checkpoint " + std::to_string(k.valid) : "from scratch";
    effect.processes_rolled_back = k.restored;
    effect.messages_replayed = k.round_resends;
    ctx.record_failure_effect(notice, effect);
    ctx.record_recovered(notice);
  }
  k.unrecovered.clear();
  k.completed = k.round;
  if (options_->coordinator_node) {
    // A coordinator on a node may have missed notices (issued while its node was down): every
    // incarnation older than the one a node answered with has failed and is now recovered.
    for (NodeId n = 0; n < ctx.node_count(); ++n) {
      for (std::uint32_t i = 0; i < k.incarnations[n]; ++i) ctx.record_recovered(FailureNotice{n, i, 0});
    }
  }
  core::ProtocolCounters& counters = ctx.counters();
  counters.add(kRestarts);
  counters.raise_to(kNodesInvolvedMax, k.involved);
  counters.add(kNodesInvolvedTotal, k.involved);
  counters.raise_to(kRestartDurationMax, static_cast<std::uint64_t>((ctx.now() - k.round_began) * 1e6 + 0.5));
  if (ctx.recording()) {
    ctx.note("restart round " + std::to_string(round_sequence(k.round)) + " done: " + std::to_string(k.involved) +
                 " nodes involved, " + std::to_string(k.round_tasks) + " tasks re-executed by survivors",
             "recovery");
  }
  k.phase = Coordinator::Phase::idle;
  if (options_->at_cuts) {
    if (k.next <= options_->cut_positions.size()) start_checkpoint(ctx);
  } else {
    arm_period(ctx);
  }
  ctx.check_completion();
}

std::string CckProtocol::coordinator_phase(ProtocolContext& ctx) const {
  const Coordinator& k = coordinator_;
  const std::string of = " (" + std::to_string(k.answers) + " of " + std::to_string(ctx.node_count()) + " nodes)";
  switch (k.phase) {
    case Coordinator::Phase::idle: return {};
    case Coordinator::Phase::starting: return "coordinator: recording the start of checkpoint " + std::to_string(k.current);
    case Coordinator::Phase::checkpointing: return "coordinator: checkpoint " + std::to_string(k.current) + ", waiting for ACK" + of;
    case Coordinator::Phase::validating: return "coordinator: recording checkpoint " + std::to_string(k.current) + " as valid";
    case Coordinator::Phase::restarting:
      return "coordinator: restart round " + std::to_string(round_sequence(k.round)) + ", waiting for DONE" + of;
    case Coordinator::Phase::recovering: return "coordinator: reading its record back after its node's failure";
  }
  return {};
}

}  // namespace ftsim::protocols::cck
