#include "sim/mpi/driver.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/mpi/rank_process.hpp"

namespace ftsim::mpi {

using node::WireReader;

namespace {

constexpr double kRoundInterval = 0.002;  // seconds between termination rounds
constexpr double kStallAfter = 2.0;       // seconds of unchanged rounds with nothing pending

// A stored object's file: a directory per storage server.
std::string server_file(std::uint32_t server, std::uint64_t key) {
  return "server-" + std::to_string(server) + "/" + std::to_string(key) + ".ckpt";
}

}  // namespace

Driver::Driver(const MpiRunSpec& spec, RankProcess& local)
    : spec_(spec),
      local_(local),
      schedule_(spec.config.failures, spec.graph.node_count(), spec.config.seed),
      ledger_(metrics_.failures, spec.graph.node_count()),
      spares_(spec.config.platform),
      storage_("FTSIM_STABLE_STORAGE_DIR", "ftsim-storage") {
  const NodeId n = nodes();
  process_metrics_.resize(n + 1);
  up_.assign(n, true);
  incarnation_.assign(n, 0);
  replacement_scheduled_.assign(n, false);
  draw_.assign(n, 0);
  statuses_.resize(n);
  results_missing_ = n + 1;
}

void Driver::start() {
  if (!spec_.inject_failures) return;
  const auto initial = schedule_.initial();
  for (std::size_t i = 0; i < initial.size(); ++i) {
    const auto& failure = initial[i];
    // Failures at a task count are reported by the node's rank when it gets there. An inject
    // action's "incarnation" is the index + 1 of a failure with its own downtime (from a log).
    const auto own = failure.downtime >= 0 ? static_cast<std::uint32_t>(i + 1) : 0;
    if (failure.node >= nodes() || failure.after_tasks > 0) continue;
    // A drawn failure's class is drawn (/failures/classes); a listed one has its own.
    const bool drawn = spec_.config.failures.events.empty();
    timers_.add(failure.time, {Action::Kind::inject, failure.node, own,
                               drawn ? schedule_.draw_class(failure.node) : failure.kind, drawn ? draw_[failure.node] : kListed});
  }
}

// ----------------------------------------------------------------------------- failures

void Driver::inject(NodeId node, double downtime, config::FailureClass kind, bool burst) {
  if (finishing_ || !up_[node] || injected_ >= spec_.config.failures.max_failures) return;
  ++injected_;
  ++metrics_.failure_events[std::size_t(kind)];
  if (burst) ++metrics_.burst_failures;
  local_.hold_timers(false);  // the run goes on: the coordinator's timers are needed again
  const double now = local_.clock();  // one instant for every rank it takes
  for (const NodeId victim : schedule_.victims(node, kind)) {
    if (!up_[victim] || finishing_) continue;
    if (victim != node) ++draw_[victim];  // its own drawn failure goes with it
    fail_rank(victim, now, downtime, kind, node, burst);
  }
  if (spec_.config.failures.burst && !finishing_) schedule_bursts(node);
}

void Driver::schedule_bursts(NodeId failed) {
  // As the simulation's: each other live rank of the group may fail within the window, at the
  // raised rate, if it is still the incarnation that ran when the burst was drawn.
  for (const NodeId other : schedule_.victims(failed, config::FailureClass::group)) {
    if (other == failed || !up_[other]) continue;
    if (const auto delay = schedule_.burst_delay(other)) {
      timers_.add(local_.clock() + *delay,
                  {Action::Kind::inject, other, 0, config::FailureClass::node, kListed, incarnation_[other]});
    }
  }
}

void Driver::fail_rank(NodeId node, double now, double downtime, config::FailureClass kind, NodeId origin, bool burst) {
  node::FailureRecord record;
  record.time = now;
  record.node = node;
  record.failure_class = config::failure_class_name(kind);
  record.origin = origin;
  record.burst = burst;
  up_[node] = false;
  const std::uint32_t failed = incarnation_[node]++;
  const Fail fail{failed, ledger_.next_index(), kind == config::FailureClass::process};
  ledger_.add(node, failed, record);
  local_.send_packet(static_cast<int>(node), encode_packet(fail));
  timers_.add(now + spec_.config.failures.detection, {Action::Kind::detect, node, failed});
  ++pending_actions_;
  // A process failure restarts in place (its node is up): no spare taken.
  replacement_scheduled_[node] = kind == config::FailureClass::process || spares_.take();
  if (replacement_scheduled_[node]) {
    timers_.add(now + downtime, {Action::Kind::replace, node, 0});
    ++pending_actions_;
  }
}

void Driver::notify(NodeId node, std::uint32_t incarnation) {
  if (node::FailureRecord* r = ledger_.find(node, incarnation)) r->detected_at = local_.clock();
  if (!up_[node] && !replacement_scheduled_[node]) {
    finish(false, "node " + std::to_string(node) + " failed and no spare node is left (/platform/spares = " +
                      std::to_string(spec_.config.platform.spares) + ")");
    return;
  }
  // Every live process hears of it, in one total order (the sequence), as ULFM would report it.
  ++detections_;
  for (NodeId n = 0; n <= nodes(); ++n) {
    if (n < nodes() && !up_[n]) continue;
    local_.send_packet(static_cast<int>(n), encode_packet(Notice{{node, incarnation, detections_}}));
  }
}

void Driver::replace(NodeId node) {
  if (up_[node] || finishing_) return;
  up_[node] = true;
  replacement_scheduled_[node] = false;
  if (node::FailureRecord* r = ledger_.find(node, incarnation_[node] - 1)) r->replaced_at = local_.clock();
  local_.send_packet(static_cast<int>(node), encode_packet(Replace{incarnation_[node], detections_}));
  if (spec_.inject_failures) schedule_drawn(node);
}

void Driver::schedule_drawn(NodeId node) {
  if (auto next = schedule_.next_after(node, local_.clock())) {
    timers_.add(*next, {Action::Kind::inject, node, 0, schedule_.draw_class(node), draw_[node]});
  }
}

// ----------------------------------------------------------------------------- packets

void Driver::handle(int from, PacketKind kind, WireReader& in) {
  switch (kind) {
    case PacketKind::storage_write: {
      const StorageWrite write = read_packet<StorageWrite>(in);
      if (std::string error = storage_.write(server_file(write.server, write.key), write.content, write.bytes); !error.empty()) {
        finish(false, "stable storage: " + error);
        return;
      }
      local_.send_packet(from, encode_packet(StorageDone{write.incarnation, write.token, false, true, write.bytes, {}}));
      return;
    }
    case PacketKind::storage_read: {
      const StorageRead read = read_packet<StorageRead>(in);
      std::optional<FileStore::Object> object = storage_.read(server_file(read.server, read.key));
      StorageDone answer{read.incarnation, read.token, true, object.has_value(), 1, {}};  // "not found": a tiny message
      if (object) {
        answer.bytes = object->bytes;
        answer.content = std::move(object->content);
      }
      local_.send_packet(from, encode_packet(answer));
      return;
    }
    case PacketKind::storage_erase: {
      const StorageErase erase = read_packet<StorageErase>(in);
      storage_.erase(server_file(erase.server, erase.key));
      return;
    }
    case PacketKind::status: {
      const Status s = read_packet<Status>(in);
      if (s.round != round_ || !round_open_ || from < 0 || NodeId(from) >= nodes()) return;
      statuses_[static_cast<std::size_t>(from)] = s.status;
      if (++replies_ == nodes()) close_round();
      return;
    }
    case PacketKind::failure_effect: {
      const FailureEffectReport e = read_packet<FailureEffectReport>(in);
      if (node::FailureRecord* r = ledger_.find(e.failure.node, e.failure.incarnation)) node::add_effect(*r, e.effect);
      return;
    }
    case PacketKind::recovered: {
      const Recovered r = read_packet<Recovered>(in);
      ledger_.recovered(r.failure.node, r.failure.incarnation, local_.clock());
      return;
    }
    case PacketKind::checkpoint: node::update_checkpoints(metrics_, read_packet<Checkpoint>(in).record); return;
    case PacketKind::fail_run: finish(false, read_packet<FailRun>(in).reason); return;
    case PacketKind::task_count: {
      const TaskCount count = read_packet<TaskCount>(in);
      inject(count.node, spec_.config.failures.downtime, count.failure_class);
      return;
    }
    case PacketKind::results: add_results(static_cast<NodeId>(from), read_packet<Results>(in)); return;
    default: throw std::runtime_error("driver: unexpected packet kind " + std::to_string(int(kind)));
  }
}

// ----------------------------------------------------------------------------- the end

bool Driver::tick() {
  if (finishing_) return false;
  const double now = local_.clock();
  bool progress = false;
  Action action;
  while (!finishing_ && timers_.pop_due(now, action)) {
    progress = true;
    switch (action.kind) {
      case Action::Kind::inject:
        if (action.draw != kListed && action.draw != draw_[action.node]) break;  // its rank failed since
        if (action.burst_of != kListed && action.burst_of != incarnation_[action.node]) break;  // the same
        inject(action.node, action.incarnation > 0 ? schedule_.initial_downtime(action.incarnation - 1) : spec_.config.failures.downtime,
               action.failure_class, action.burst_of != kListed);
        break;
      case Action::Kind::detect: --pending_actions_; notify(action.node, action.incarnation); break;
      case Action::Kind::replace: --pending_actions_; replace(action.node); break;
    }
  }
  if (finishing_) return true;
  const double limit = spec_.config.run.wall_limit;
  if (limit > 0 && now > limit) {
    finish(false, "wall time limit reached: " + std::to_string(now) + " s (/run/wall_limit)");
    return true;
  }
  if (!round_open_ && now - last_round_ >= kRoundInterval) open_round();
  if (spec_.progress) report_progress();
  return progress;
}

void Driver::open_round() {
  ++round_;
  round_open_ = true;
  replies_ = 0;
  round_opened_at_ = local_.clock();
  for (NodeId n = 0; n < nodes(); ++n) local_.send_packet(static_cast<int>(n), encode_packet(StatusQuery{round_}));
}

void Driver::close_round() {
  round_open_ = false;
  last_round_ = local_.clock();
  const RankStatus own = local_.status();
  bool finished = own.finished;
  std::uint64_t sent = own.sent, received = own.received, busy = own.busy;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> counts;
  for (const RankStatus& s : statuses_) {
    finished = finished && s.finished;
    sent += s.sent;
    received += s.received;
    busy += s.busy;
    counts.emplace_back(s.sent, s.received);
  }
  counts.emplace_back(own.sent, own.received);
  const bool unchanged = counts == previous_counts_;
  const bool failures_settled = ledger_.unrecovered() == 0 && pending_actions_ == 0;
  // Four-counter termination detection: two successive rounds, all finished, the same counts,
  // and every packet sent received. No packet can then be in flight, nor be sent again.
  if (finished && previous_finished_ && unchanged && sent == received && failures_settled) {
    end_time_ = 0;
    for (const RankStatus& s : statuses_) end_time_ = std::max(end_time_, s.last_completion);
    finish(true, "");
    return;
  }
  // A stall: nothing moves and nothing will (no kernel, timer or failure to come).
  const bool quiet = !finished && unchanged && busy == 0 && timers_.size() == 0 && sent == received;
  if (!quiet) {
    quiet_since_ = -1;
  } else if (quiet_since_ < 0) {
    quiet_since_ = last_round_;
  } else if (last_round_ - quiet_since_ > kStallAfter) {
    finish(false, "stalled at " + std::to_string(last_round_) + " s: nothing moves and nothing is pending (see stall_report)");
    return;
  }
  // Every host finished, no failure to come before the next round: the run is over, only the
  // proof is missing. Hold the coordinator's timers so that a periodic checkpoint started now
  // (a simulation would have halted) does not keep the counts changing forever.
  local_.hold_timers(finished && failures_settled);
  previous_counts_ = std::move(counts);
  previous_finished_ = finished;
}

void Driver::finish(bool complete, const std::string& reason) {
  if (finishing_) return;
  finishing_ = true;
  metrics_.complete = complete;
  metrics_.failure_reason = reason;
  result_.phases.run = local_.clock();
  if (!complete) end_time_ = local_.clock();
  metrics_.makespan = end_time_;
  gather_started_ = local_.clock();
  for (NodeId n = 0; n < nodes(); ++n) local_.send_packet(static_cast<int>(n), encode_packet(Finish{}));
  add_results(nodes(), local_.results());
}

void Driver::add_results(NodeId process, Results results) {
  if (results.process != process || process > nodes()) throw std::runtime_error("driver: results from an unexpected rank");
  process_metrics_[process] = std::move(results.metrics);
  // (its last completion is already in the statuses)
  for (const auto& [failure, effect] : results.effects) {
    if (failure < metrics_.failures.size()) node::add_effect(metrics_.failures[failure], effect);
  }
  if (!results.stall.empty() && !metrics_.complete) metrics_.stall_report.push_back(std::move(results.stall));
  for (std::string& line : results.missing) {
    if (missing_count_++ < 20) missing_.push_back(std::move(line));
  }
  for (std::string& line : results.wrong) {
    if (wrong_count_++ < 20) wrong_.push_back(std::move(line));
  }
  result_.finals.resize(spec_.graph.handle_count());
  for (const auto& [h, content] : results.finals) {
    if (h < result_.finals.size() && content) result_.finals[h] = *content;
  }
  if (--results_missing_ > 0) return;
  // Everything is in.
  node::fold_process_metrics(metrics_, process_metrics_, nodes(), spec_.protocol_metrics);
  metrics_.oracle_missing = missing_;
  metrics_.oracle_wrong = wrong_;
  metrics_.oracle_ok = metrics_.complete && missing_count_ == 0 && wrong_count_ == 0;
  for (const node::NodeMetrics& m : process_metrics_) metrics_.events += m.executions;
  result_.checksums.assign(result_.finals.size(), 0);
  for (std::size_t h = 0; h < result_.finals.size(); ++h) {
    if (!result_.finals[h].empty()) result_.checksums[h] = graphs::kernels::checksum(result_.finals[h]);
  }
  result_.phases.gather = local_.clock() - gather_started_;
}

MpiRunResult Driver::take_result() {
  result_.metrics = std::move(metrics_);
  return std::move(result_);
}

void Driver::report_progress() {
  const double now = local_.clock();
  if (now - last_progress_ < 2.0) return;
  last_progress_ = now;
  std::uint64_t remaining = 0;
  for (const RankStatus& s : statuses_) remaining += s.remaining;
  std::fprintf(stderr, "[ftsim mpi] %.1f s, tasks left %llu of %zu, failures %zu\n", now,
               static_cast<unsigned long long>(remaining), spec_.graph.task_count(), metrics_.failures.size());
}

}  // namespace ftsim::mpi
