#include "sim/core/simulation.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <numeric>

#include "sim/core/protocol_context.hpp"

namespace ftsim::core {

namespace {
std::atomic<bool> stop_flag{false};
}  // namespace

void request_stop() { stop_flag.store(true); }
bool stop_requested() { return stop_flag.load(); }

Simulation::Simulation(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
                       ProtocolFactory factory, Backend& backend, SimulationOptions options)
    : config_(config),
      graph_(graph),
      cost_(cost),
      backend_(backend),
      options_(std::move(options)),
      index_(graph),
      tasks_(graph.task_count()),
      failures_(config.failures, graph.node_count(), config.seed) {
  const NodeId nodes = graph.node_count();
  for (NodeId n = 0; n < nodes; ++n) {
    runtimes_.push_back(std::make_unique<NodeRuntime>(n, config.platform.cores_per_node, graph, index_, tasks_, *this));
  }
  for (NodeId n = 0; n <= nodes; ++n) {
    protocols_.push_back(factory(n, n == nodes));
    contexts_.push_back(std::make_unique<ProtocolContext>(*this, n));
  }
  alive_.assign(nodes + 1, true);
  replacement_scheduled_.assign(nodes + 1, false);
  incarnation_.assign(nodes + 1, 0);
  epoch_.assign(nodes + 1, 0);
  postponed_.resize(nodes + 1);
  outbox_.resize(nodes + 1);
  running_.resize(nodes);
  free_cores_.resize(nodes);
  for (NodeId n = 0; n < nodes; ++n) {
    for (std::uint32_t c = config.platform.cores_per_node; c-- > 0;) free_cores_[n].push_back(c);
  }
  metrics_.nodes.resize(nodes);
  unlimited_spares_ = config.platform.unlimited_spares;
  spares_left_ = config.platform.spares;
  if (!options_.trace_file.empty()) {
    trace_ = std::make_unique<TraceWriter>(options_.trace_file, nodes, config.platform.cores_per_node, "coordinator");
  }
}

Simulation::~Simulation() = default;

std::uint64_t Simulation::add_timer(double time, TimerKind kind, NodeId node, std::uint64_t token) {
  timers_.push_back({kind, node, token});
  const std::uint64_t id = timers_.size() - 1;
  backend_.set_timer(std::max(time, now()), id);
  return id;
}

void Simulation::start() {
  wall_start_ = last_progress_ = std::chrono::steady_clock::now();
  for (const auto& failure : failures_.initial()) {
    if (failure.node < node_count()) add_timer(failure.time, TimerKind::failure, failure.node, 0);
  }
  if (options_.time_limit > 0) add_timer(options_.time_limit, TimerKind::time_limit, 0, 0);
  for (NodeId n = 0; n < node_count(); ++n) {
    runtimes_[n]->restore(runtimes_[n]->initial_snapshot());
  }
  for (NodeId n = 0; n <= node_count(); ++n) protocol(n).on_start(*contexts_[n]);
  for (NodeId n = 0; n < node_count(); ++n) runtimes_[n]->send_initial_values();
  for (NodeId n = 0; n < node_count(); ++n) runtimes_[n]->rebuild();
  check_completion();
}

// ----------------------------------------------------------------------------- tasks

void Simulation::start_task(NodeId node, TaskId task) {
  auto& cores = free_cores_[node];
  std::uint32_t core = 0;
  if (!cores.empty()) {
    core = cores.back();
    cores.pop_back();
  }
  running_[node].push_back({task, now(), core});
  backend_.start_task(node, task, task_seconds(task));
}

void Simulation::cancel_task(NodeId node, TaskId task) {
  auto& running = running_[node];
  for (std::size_t i = 0; i < running.size(); ++i) {
    if (running[i].task != task) continue;
    metrics_.nodes[node].lost_seconds += now() - running[i].start;
    free_cores_[node].push_back(running[i].core);
    running[i] = running.back();
    running.pop_back();
    break;
  }
  backend_.cancel_task(node, task);
}

void Simulation::on_task_finished(NodeId node, TaskId task) {
  if (halted_ || !alive_[node]) return;
  auto& running = running_[node];
  double start = now();
  std::uint32_t core = 0;
  for (std::size_t i = 0; i < running.size(); ++i) {
    if (running[i].task != task) continue;
    start = running[i].start;
    core = running[i].core;
    running[i] = running.back();
    running.pop_back();
    free_cores_[node].push_back(core);
    break;
  }
  NodeMetrics& m = metrics_.nodes[node];
  ++m.executions;
  const bool reexecution = tasks_.executions[task] > 0;
  if (reexecution) ++m.reexecutions;
  m.busy_seconds += now() - start;
  ++metrics_.events;
  if (trace_) trace_->task(node, core, graph_.task_name(task), graph_.kernel_name(graph_.kernel(task)), start, now(), reexecution);
  runtimes_[node]->on_task_finished(task);
  if (++events_since_check_ >= 4096) periodic_checks();
}

void Simulation::task_completed(NodeId node, TaskId task, bool first_execution) {
  protocol(node).on_task_completed(*contexts_[node], task, first_execution);
  if (runtimes_[node]->remaining_tasks() == 0) check_completion();
}

bool Simulation::may_start(NodeId node, TaskId task) { return protocol(node).may_start(*contexts_[node], task); }

// ----------------------------------------------------------------------------- messages

void Simulation::send_data(NodeId from, NodeId to, HandleId handle, Version version, Traffic traffic) {
  Message m;
  m.source = from;
  m.destination = to;
  m.bytes = graph_.bytes(handle);
  m.traffic = traffic;
  m.is_data = true;
  m.handle = handle;
  m.version = version;
  protocol(from).on_send(*contexts_[from], m);
  dispatch_message(std::move(m));
}

void Simulation::send_control(NodeId from, NodeId to, std::uint32_t type, std::uint64_t bytes, Traffic traffic,
                              std::shared_ptr<const ControlPayload> payload) {
  Message m;
  m.source = from;
  m.destination = to;
  m.bytes = bytes;
  m.traffic = traffic;
  m.is_data = false;
  m.control_type = type;
  m.payload = std::move(payload);
  if (traffic == Traffic::control) {
    ++metrics_.ft_service_msgs_count;
    metrics_.ft_service_msgs_total_size += bytes;
  }
  dispatch_message(std::move(m));
}

void Simulation::dispatch_message(Message m) {
  if (halted_) return;
  if (!alive_[m.source]) {
    // A recovery plan made before the replacement is up: its replacement sends it.
    outbox_[m.source].push_back(std::move(m));
    return;
  }
  m.source_incarnation = incarnation_[m.source];
  m.epoch = epoch_[m.source];
  m.sent_at = now();
  if (m.source < node_count()) {
    NodeMetrics& metrics = metrics_.nodes[m.source];
    ++metrics.messages_sent[static_cast<std::size_t>(m.traffic)];
    metrics.bytes_sent[static_cast<std::size_t>(m.traffic)] += m.bytes;
  }
  if (!alive_[m.destination]) {
    // The communication layer buffers it until the rank is repaired; the sender is done with it.
    const bool sender_is_node = m.source < node_count();
    const HandleId handle = m.handle;
    const bool data = m.is_data;
    const NodeId source = m.source;
    const Message copy = m;
    postponed_[m.destination].push_back(std::move(m));
    if (data && sender_is_node) {
      runtimes_[source]->on_send_done(handle);
      protocol(source).on_data_sent(*contexts_[source], copy);
    }
    return;
  }
  backend_.send(std::move(m));
}

void Simulation::on_message_delivered(const Message& m) {
  if (halted_) return;
  ++metrics_.events;
  const bool sender_current = alive_[m.source] && m.source_incarnation == incarnation_[m.source];
  if (m.is_data && sender_current && m.source < node_count()) {
    runtimes_[m.source]->on_send_done(m.handle);
    protocol(m.source).on_data_sent(*contexts_[m.source], m);
  }
  if (!alive_[m.destination]) return;
  if (m.source_incarnation != incarnation_[m.source]) return;  // from a process that died since
  if (trace_ && m.source != m.destination) {
    trace_->message(m.source, m.destination, m.is_data ? graph_.handle_name(m.handle) + " v" + std::to_string(m.version)
                                                       : "control " + std::to_string(m.control_type),
                    to_string(m.traffic), m.sent_at, now(), m.bytes);
  }
  if (m.is_data) {
    if (m.epoch < epoch_[m.destination]) return;  // sent before a rollback
    protocol(m.destination).on_receive(*contexts_[m.destination], m);
    if (m.destination < node_count()) {
      if (runtimes_[m.destination]->store().holds(m.handle, m.version)) ++metrics_.nodes[m.destination].duplicates_received;
      runtimes_[m.destination]->on_data(m.handle, m.version);
    }
  } else {
    protocol(m.destination).on_control(*contexts_[m.destination], m);
  }
  if (++events_since_check_ >= 4096) periodic_checks();
}

void Simulation::on_message_lost(const Message& m) {
  if (halted_) return;
  const bool sender_current = alive_[m.source] && m.source_incarnation == incarnation_[m.source];
  if (m.is_data && sender_current && m.source < node_count()) {
    runtimes_[m.source]->on_send_done(m.handle);
    protocol(m.source).on_data_sent(*contexts_[m.source], m);
  }
}

// ----------------------------------------------------------------------------- storage, timers

void Simulation::storage_transfer(NodeId node, std::uint64_t bytes, bool write, std::uint64_t token) {
  const std::uint32_t servers = backend_.storage_servers();
  if (servers == 0) {
    fail_run("the protocol needs stable storage but /platform/storage/hosts is 0");
    return;
  }
  if (node < node_count()) {
    const auto traffic = write ? Traffic::checkpoint : Traffic::restore;
    ++metrics_.nodes[node].messages_sent[static_cast<std::size_t>(traffic)];
    metrics_.nodes[node].bytes_sent[static_cast<std::size_t>(traffic)] += bytes;
  }
  backend_.storage_transfer(node, node % servers, bytes, write, token);
}

void Simulation::on_storage_done(NodeId node, std::uint64_t token) {
  if (halted_ || !alive_[node]) return;
  protocol(node).on_storage_done(*contexts_[node], token);
}

void Simulation::set_timer(NodeId node, double delay, std::uint64_t token) {
  add_timer(now() + delay, TimerKind::protocol, node, token);
}

void Simulation::on_timer(std::uint64_t id) {
  if (halted_ || id >= timers_.size()) return;
  const Timer timer = timers_[id];
  switch (timer.kind) {
    case TimerKind::failure: inject_failure(timer.node); break;
    case TimerKind::detection: notify_detection(timer.node); break;
    case TimerKind::replacement: replace(timer.node); break;
    case TimerKind::protocol:
      if (alive_[timer.node]) protocol(timer.node).on_timer(*contexts_[timer.node], timer.token);
      break;
    case TimerKind::time_limit:
      report_stall();
      fail_run("time limit reached at " + std::to_string(now()) + " s of simulated time (/run/time_limit)");
      break;
  }
}

// ----------------------------------------------------------------------------- failures

void Simulation::inject_failure(NodeId node) {
  if (!alive_[node] || failures_injected_ >= config_.failures.max_failures) return;
  ++failures_injected_;
  FailureRecord record;
  record.time = now();
  record.node = node;
  // Work the node was doing is lost.
  for (const Running& r : running_[node]) metrics_.nodes[node].lost_seconds += now() - r.start;
  running_[node].clear();
  free_cores_[node].clear();
  for (std::uint32_t c = config_.platform.cores_per_node; c-- > 0;) free_cores_[node].push_back(c);
  alive_[node] = false;
  ++incarnation_[node];
  backend_.fail_node(node);
  runtimes_[node]->wipe();
  // Messages buffered for this rank are lost too.
  postponed_[node].clear();
  outbox_[node].clear();
  metrics_.failures.push_back(record);
  if (trace_) trace_->marker(node, "failure of node " + std::to_string(node), now());
  add_timer(now() + config_.failures.detection, TimerKind::detection, node, 0);
  replacement_scheduled_[node] = unlimited_spares_ || spares_left_ > 0;
  if (replacement_scheduled_[node]) {
    if (!unlimited_spares_) --spares_left_;
    add_timer(now() + config_.failures.downtime, TimerKind::replacement, node, 0);
  }
}

void Simulation::notify_detection(NodeId failed) {
  for (FailureRecord& record : metrics_.failures) {
    if (record.node == failed && record.detected_at < 0) record.detected_at = now();
  }
  if (!alive_[failed] && !replacement_scheduled_[failed]) {
    fail_run("node " + std::to_string(failed) + " failed and no spare node is left (/platform/spares = " +
             std::to_string(config_.platform.spares) + ")");
    return;
  }
  // A new recovery epoch per detection: every live node, a replacement already up included,
  // hears of it; a replacement that comes up later joins the latest epoch.
  ++detections_;
  for (NodeId n = 0; n <= node_count() && !halted_; ++n) {
    if (alive_[n]) protocol(n).on_failure_detected(*contexts_[n], failed);
  }
}

FailureRecord* Simulation::failure_record(NodeId node) {
  for (auto it = metrics_.failures.rbegin(); it != metrics_.failures.rend(); ++it) {
    if (it->node == node) return &*it;
  }
  return nullptr;
}

void Simulation::replace(NodeId node) {
  if (alive_[node] || halted_) return;
  alive_[node] = true;
  replacement_scheduled_[node] = false;
  backend_.replace_node(node);
  ++metrics_.nodes[node].restarts;
  for (auto it = metrics_.failures.rbegin(); it != metrics_.failures.rend(); ++it) {
    if (it->node == node) {
      it->replaced_at = now();
      break;
    }
  }
  if (trace_) trace_->marker(node, "replacement of node " + std::to_string(node), now());
  // Renewal failure models: the new incarnation has its own time to failure.
  if (auto next = failures_.next_after(node, now())) add_timer(*next, TimerKind::failure, node, 0);
  auto outgoing = std::move(outbox_[node]);
  outbox_[node].clear();
  for (Message& m : outgoing) dispatch_message(std::move(m));
  protocol(node).on_restart(*contexts_[node]);
  auto held = std::move(postponed_[node]);
  postponed_[node].clear();
  for (Message& m : held) {
    if (m.source_incarnation != incarnation_[m.source] || !alive_[m.source]) continue;
    backend_.send(std::move(m));
  }
}

// ----------------------------------------------------------------------------- end of run

void Simulation::check_completion() {
  if (halted_) return;
  for (NodeId n = 0; n < node_count(); ++n) {
    if (!alive_[n] || runtimes_[n]->remaining_tasks() != 0) return;
  }
  for (const FailureRecord& record : metrics_.failures) {
    if (record.recovered_at < 0) return;
  }
  for (NodeId n = 0; n <= node_count(); ++n) {
    if (!protocol(n).finished(*contexts_[n])) return;
  }
  metrics_.complete = true;
  metrics_.makespan = now();
  check_oracle();
  halt();
}

void Simulation::fail_run(const std::string& reason) {
  if (halted_) return;
  metrics_.complete = false;
  metrics_.failure_reason = reason;
  metrics_.makespan = now();
  halt();
}

void Simulation::halt() {
  halted_ = true;
  for (NodeId n = 0; n < node_count(); ++n) {
    metrics_.nodes[n].peak_memory_bytes = runtimes_[n]->store().peak_bytes();
  }
  backend_.halt();
  if (trace_) trace_->close();
}

void Simulation::check_oracle() {
  metrics_.oracle_missing.clear();
  for (HandleId h = 0; h < graph_.handle_count(); ++h) {
    const Version final_version = graph_.final_version(h);
    const NodeId holder = graph_.version_node(h, final_version);
    if (!runtimes_[holder]->store().holds(h, final_version)) {
      if (metrics_.oracle_missing.size() < 20) {
        metrics_.oracle_missing.push_back(graph_.handle_name(h) + " v" + std::to_string(final_version) + " on node " +
                                          std::to_string(holder));
      }
    }
  }
  for (TaskId t = 0; t < graph_.task_count(); ++t) {
    if (tasks_.status[t] != TaskStatus::done && metrics_.oracle_missing.size() < 20) {
      metrics_.oracle_missing.push_back("task " + graph_.task_name(t) + " not done");
    }
  }
  metrics_.oracle_ok = metrics_.oracle_missing.empty();
}

void Simulation::finish() {
  if (halted_) return;
  // The backend ran out of events before the run completed: a stall. Say who waits for what.
  metrics_.makespan = now();
  report_stall();
  fail_run("stalled at " + std::to_string(now()) + " s: no event left but " +
           std::to_string(std::accumulate(runtimes_.begin(), runtimes_.end(), std::uint64_t{0},
                                          [](std::uint64_t sum, const auto& r) { return sum + r->remaining_tasks(); })) +
           " tasks not done (see stall_report)");
}

void Simulation::report_stall() {
  for (NodeId n = 0; n < node_count(); ++n) {
    NodeRuntime& runtime = *runtimes_[n];
    if (!alive_[n]) {
      metrics_.stall_report.push_back("node " + std::to_string(n) + ": dead, never replaced");
      continue;
    }
    if (runtime.remaining_tasks() == 0) continue;
    std::string line = "node " + std::to_string(n) + ": " + std::to_string(runtime.remaining_tasks()) + " tasks left" +
                       (runtime.paused() ? " (paused by the protocol)" : "");
    for (TaskId t : runtime.waiting_sample(3)) line += "; " + runtime.describe_wait(t);
    metrics_.stall_report.push_back(line);
  }
}

void Simulation::periodic_checks() {
  events_since_check_ = 0;
  if (stop_requested()) {
    report_stall();
    fail_run("interrupted at " + std::to_string(now()) + " s of simulated time (the results so far are kept)");
    return;
  }
  if (options_.progress) report_progress();
}

void Simulation::report_progress() {
  const auto wall = std::chrono::steady_clock::now();
  if (wall - last_progress_ < std::chrono::seconds(2)) return;
  last_progress_ = wall;
  std::uint64_t remaining = 0;
  for (const auto& r : runtimes_) remaining += r->remaining_tasks();
  const double done = double(graph_.task_count() - std::min<std::uint64_t>(remaining, graph_.task_count()));
  std::fprintf(stderr, "[ftsim] simulated %.4g s, tasks %.0f / %zu (%.1f%%), failures %zu, wall %.1f s\n", now(), done,
               graph_.task_count(), 100.0 * done / double(std::max<std::size_t>(1, graph_.task_count())),
               metrics_.failures.size(), std::chrono::duration<double>(wall - wall_start_).count());
}

}  // namespace ftsim::core
