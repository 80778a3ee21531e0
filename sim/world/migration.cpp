#include "sim/world/migration.hpp"

#include <algorithm>

namespace ftsim::world {

Migration::Migration(const config::PredictionConfig& prediction, const config::FailureConfig& failures, NodeId nodes,
                     std::uint64_t seed, MigrationSurroundings surroundings, node::MigrationMetrics& metrics)
    : prediction_(prediction),
      predictor_(prediction, failures, nodes, seed),
      around_(surroundings),
      metrics_(metrics),
      renewal_(failures.model == config::FailureModel::exponential || failures.model == config::FailureModel::weibull),
      moves_(nodes) {
  metrics_.enabled = true;
}

std::uint64_t Migration::token(TokenKind kind, std::uint32_t generation, std::uint64_t index) {
  // kind: 8 bits, generation: 24 bits, index (an alarm, or 0): 32 bits.
  return (std::uint64_t(kind) << 56) | (std::uint64_t(generation & 0xffffffu) << 32) | (index & 0xffffffffu);
}

void Migration::tell_exporters(node::RecordKind kind, NodeId node, std::size_t index) {
  node::Recorder& recorder = around_.recorder;
  if (!recorder.active()) return;
  node::Record r{kind, world_time()};
  r.process = node;
  r.peer = node;
  r.migration = &metrics_.records[index];
  recorder.record(r);
}

bool Migration::take_spare(NodeId node) {
  // The backend must have a spare host for it too (it keeps it for the rank until the switch).
  if (!around_.spares.available() || !around_.backend.reserve_spare_host(node)) return false;
  return around_.spares.take();
}

void Migration::failure_scheduled(NodeId node, double time, std::uint64_t failure) {
  const double now = world_time();
  horizon_ = std::max(horizon_, time);
  if (auto at = predictor_.announce(time, now)) {
    ++announced_;
    add_alarm(*at, node, true, time, failure);
  }
}

void Migration::start() {
  if (renewal_) {
    if (auto next = predictor_.next_false_alarm(world_time())) {
      add_alarm(next->time, next->node, false, next->time + prediction_.lead_time, std::nullopt);
    }
    return;
  }
  for (const auto& alarm : predictor_.false_alarms_of_known_failures(announced_, horizon_)) {
    add_alarm(alarm.time, alarm.node, false, alarm.time + prediction_.lead_time, std::nullopt);
  }
}

void Migration::add_alarm(double time, NodeId node, bool true_alarm, double predicted_failure,
                          std::optional<std::uint64_t> failure) {
  const std::size_t index = alarms_.size();
  alarms_.push_back({node, true_alarm, predicted_failure, 0, false});
  if (failure) alarm_of_failure_[*failure] = index;
  around_.world.set_migration_timer(time, node, token(TokenKind::alarm, 0, index));
}

void Migration::on_timer(NodeId node, std::uint64_t value) {
  const auto kind = static_cast<TokenKind>(value >> 56);
  const auto generation = static_cast<std::uint32_t>((value >> 32) & 0xffffffu);
  if (kind == TokenKind::alarm) {
    raise(static_cast<std::size_t>(value & 0xffffffffu));
    return;
  }
  Move& move = moves_[node];
  if (kind != TokenKind::spawned || generation != (move.generation & 0xffffffu) || move.phase != Phase::spawning) return;
  // The spare is up: the state starts to move.
  node::NodeHost* host = rank_host(node);
  node::MigrationRecord& record = metrics_.records[move.record];
  record.transfer_start = world_time();
  record.state_bytes = host ? host->memory_bytes() : 1;
  move.phase = Phase::transferring;
  move.to_send = record.state_bytes;
  tell_exporters(node::RecordKind::migration_transfer, node, move.record);
  send_chunks(node);
}

void Migration::raise(std::size_t index) {
  alarms_[index].raised = true;
  const NodeId node = alarms_[index].node;
  const bool true_alarm = alarms_[index].true_alarm;
  Move& move = moves_[node];
  alarms_[index].placement = move.placement;
  const double now = world_time();
  ++metrics_.alarms;
  ++(true_alarm ? metrics_.true_alarms : metrics_.false_alarms);
  node::MigrationRecord record;
  record.node = node;
  record.true_alarm = true_alarm;
  record.alarm = now;
  record.predicted_failure = alarms_[index].predicted_failure;
  record.outcome = "in progress";
  metrics_.records.push_back(record);
  const std::size_t added_index = metrics_.records.size() - 1;
  alarms_[index].record = added_index;
  node::MigrationRecord& added = metrics_.records.back();
  tell_exporters(node::RecordKind::alarm, node, added_index);
  // Renewal models: false alarms come as a Poisson process, one after the other.
  if (!true_alarm && renewal_) {
    if (auto next = predictor_.next_false_alarm(now)) {
      add_alarm(next->time, next->node, false, next->time + prediction_.lead_time, std::nullopt);
    }
  }
  node::NodeHost* host = rank_host(node);
  if (!host) {
    added.outcome = "node down";
    tell_exporters(node::RecordKind::migration_end, node, added_index);
    return;
  }
  if (move.phase != Phase::idle) {
    added.outcome = "already migrating";
    tell_exporters(node::RecordKind::migration_end, node, added_index);
    return;
  }
  if (!take_spare(node)) {
    added.outcome = "no spare";
    ++metrics_.skipped_no_spare;
    tell_exporters(node::RecordKind::migration_end, node, added_index);
    return;
  }
  ++move.generation;
  move.phase = Phase::draining;
  move.record = metrics_.records.size() - 1;
  move.to_send = 0;
  move.in_flight = 0;
  move.unforwarded = 0;
  move.deferred.clear();
  host->hold_for_migration(true);
  tell_exporters(node::RecordKind::migration_start, node, move.record);
  check_safe_point(node);
}

void Migration::after_task_finished(NodeId node) {
  if (node < moves_.size() && moves_[node].phase == Phase::draining) check_safe_point(node);
}

void Migration::check_safe_point(NodeId node) {
  Move& move = moves_[node];
  node::NodeHost* host = rank_host(node);
  if (!host || move.phase != Phase::draining || host->computing()) return;
  const double now = world_time();
  metrics_.records[move.record].safe_point = now;
  move.phase = Phase::spawning;  // frozen from here
  tell_exporters(node::RecordKind::migration_frozen, node, move.record);
  around_.world.set_migration_timer(now + prediction_.spawn, node, token(TokenKind::spawned, move.generation, 0));
}

void Migration::send_chunks(NodeId node) {
  // At most two chunks in flight: one on the wire while the next is written (§2.7).
  Move& move = moves_[node];
  node::MigrationRecord& record = metrics_.records[move.record];
  while (move.in_flight < 2 && move.to_send > 0) {
    const std::uint64_t bytes = std::min(move.to_send, prediction_.chunk);
    move.to_send -= bytes;
    ++move.in_flight;
    ++record.chunks;
    around_.backend.migration_transfer(node, bytes, token(TokenKind::transfer, move.generation, 0));
  }
}

void Migration::on_transfer_done(NodeId node, std::uint64_t value) {
  if (node >= moves_.size()) return;
  Move& move = moves_[node];
  const auto generation = static_cast<std::uint32_t>((value >> 32) & 0xffffffu);
  if (move.phase != Phase::transferring || generation != (move.generation & 0xffffffu) || move.in_flight == 0) return;
  --move.in_flight;
  if (move.to_send > 0) {
    send_chunks(node);
    return;
  }
  if (move.in_flight > 0) return;
  if (move.unforwarded > 0) {
    // Messages reached the old host meanwhile: forward them to the spare too.
    metrics_.records[move.record].forwarded_bytes += move.unforwarded;
    move.to_send = move.unforwarded;
    move.unforwarded = 0;
    send_chunks(node);
    return;
  }
  complete(node);
}

void Migration::complete(NodeId node) {
  Move& move = moves_[node];
  node::MigrationRecord& record = metrics_.records[move.record];
  const double now = world_time();
  record.end = now;
  record.outcome = "done";
  ++metrics_.migrations_done;
  metrics_.bytes += record.state_bytes + record.forwarded_bytes;
  metrics_.seconds += now - record.alarm;
  ++move.placement;
  move.phase = Phase::idle;
  tell_exporters(node::RecordKind::migration_end, node, move.record);
  around_.backend.move_to_reserved_host(node);
  around_.world.migration_switched(node);
  std::vector<DeferredEvent> events = std::move(move.deferred);
  move.deferred.clear();
  around_.world.replay(node, events);
  if (node::NodeHost* host = rank_host(node)) host->hold_for_migration(false);
}

void Migration::defer(NodeId node, DeferredEvent event) {
  Move& move = moves_[node];
  if (event.kind == DeferredEvent::Kind::message) move.unforwarded += std::max<std::uint64_t>(event.message.bytes, 1);
  move.deferred.push_back(std::move(event));
}

bool Migration::absorbs(std::uint64_t failure, NodeId node) {
  auto it = alarm_of_failure_.find(failure);
  if (it == alarm_of_failure_.end()) return false;
  const Alarm alarm = alarms_[it->second];
  alarm_of_failure_.erase(it);
  if (!alarm.raised || node >= moves_.size() || moves_[node].placement == alarm.placement) return false;
  ++metrics_.failures_avoided;
  tell_exporters(node::RecordKind::failure_avoided, node, alarm.record);
  return true;
}

void Migration::on_failure(NodeId node) {
  if (node >= moves_.size() || moves_[node].phase == Phase::idle) return;
  Move& move = moves_[node];
  metrics_.records[move.record].outcome = "failed";
  ++metrics_.interrupted;
  tell_exporters(node::RecordKind::migration_end, node, move.record);
  move.phase = Phase::idle;
  ++move.generation;  // its timers and transfers still pending are stale
  move.deferred.clear();  // lost with the process's memory
  move.unforwarded = 0;
  around_.spares.give_back();
}

void Migration::finish() {
  for (NodeId node = 0; node < moves_.size(); ++node) {
    Move& move = moves_[node];
    if (move.phase == Phase::idle) continue;
    metrics_.records[move.record].outcome = "run ended";
    tell_exporters(node::RecordKind::migration_end, node, move.record);
  }
}

}  // namespace ftsim::world
