#include "sim/world/simulation.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "graphs/startup_threads.hpp"
#include "sim/world/checkpoint_trace_writer.hpp"
#include "sim/world/event_log.hpp"
#include "sim/world/trace_writer.hpp"

namespace ftsim::world {

Simulation::Simulation(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
                       node::ProtocolFactory factory, Backend& backend, SimulationOptions options)
    : config_(config),
      graph_(graph),
      cost_(cost),
      factory_(std::move(factory)),
      backend_(backend),
      options_(std::move(options)),
      index_(graph),
      setup_{config, graph, index_, cost, config.platform.network.envelope, options_.test_faults},
      ledger_(metrics_.failures, graph.node_count() + 1),
      storage_(backend.storage_servers()),
      local_storage_(config.platform.local_storage.present ? graph.node_count() : 0),
      failures_(config.failures, graph.node_count(), config.seed, config.platform.ranks_per_machine),
      spares_(config.platform) {
  const NodeId processes = graph.node_count() + 1;
  process_metrics_.resize(processes);
  observers_.reserve(graph.node_count());
  for (NodeId n = 0; n < graph.node_count(); ++n) observers_.emplace_back(n, index_);
  replacement_scheduled_.assign(processes, false);
  restart_in_place_.assign(processes, false);
  drawn_failure_.assign(processes, ~std::uint64_t(0));
  channels_.resize(processes);
  if (config.platform.shrink_on_no_spare || config.platform.ranks_per_machine > 1) {
    machines_ = std::make_unique<Machines>(config, graph.node_count(), backend, metrics_);
  }
  if (!options_.trace_file.empty()) {
    recorder_.add(std::make_unique<TraceWriter>(options_.trace_file, graph, config.platform.cores_per_node, "coordinator",
                                                config.failures.prediction.has_value()));
  }
  if (!options_.checkpoint_trace_file.empty()) {
    recorder_.add(std::make_unique<CheckpointTraceWriter>(options_.checkpoint_trace_file, graph.node_count(), config.name,
                                                          config.protocol.type));
  }
  if (options_.log_categories != 0 && !options_.log_file.empty()) {
    recorder_.add(std::make_unique<EventLog>(options_.log_file, options_.log_categories, graph));
  }
  defers_dispatch_ = backend.ends_instants();
  dispatch_flag_.assign(processes, 0);
  ranks_.reserve(processes);
  for (NodeId n = 0; n < processes; ++n) {
    ranks_.emplace_back(n, n == coordinator(), setup_, static_cast<node::HostEnvironment&>(*this), factory_);
    ranks_.back().start();
  }
  if (config.failures.prediction) {
    MigrationWorld& world = *this;
    migration_ = std::make_unique<Migration>(*config.failures.prediction, config.failures, graph.node_count(), config.seed,
                                             MigrationSurroundings{world, backend_, spares_, ranks_, recorder_},
                                             metrics_.migration);
  }
  derive_progress_bounds();
}

void Simulation::derive_progress_bounds() {
  // A correct protocol advances the job (a task completes, a replacement starts, a failure is
  // recovered) within a span that the job bounds: the longest task, moving everything the nodes
  // can hold twice over the slowest link (a blocking checkpoint of everything, then its restore),
  // the latencies of a few rounds of messages, and a failure's detection and downtime. The bound
  // is ten times that. In events, a recovery or a checkpoint sends at most a few messages per data
  // access, per datum and node, and per pair of processes; the bound is four times those.
  // Checkpoints do not advance the job: a periodic schedule must not hide a deadlocked recovery.
  const NodeId processes = node_count() + 1;
  double longest_task = 0;
  std::uint64_t accesses = 0;
  for (TaskId t = 0; t < graph_.task_count(); ++t) {
    if (cost_.has_speeds()) longest_task = std::max(longest_task, cost_.seconds(graph_, t));
    accesses += graph_.accesses(t).size();
  }
  const auto& network = config_.platform.network;
  double bandwidth = network.bandwidth;
  if (network.backbone_bandwidth > 0) bandwidth = std::min(bandwidth, network.backbone_bandwidth);
  if (config_.platform.storage.hosts > 0) bandwidth = std::min(bandwidth, config_.platform.storage.bandwidth);
  const double latency = std::max({network.latency, network.backbone_latency, config_.platform.storage.latency});
  double downtime = config_.failures.downtime;
  for (const auto& failure : failures_.initial()) downtime = std::max(downtime, failure.downtime);
  // Every byte a node can hold (its data and the copies it received) moved twice: a global
  // checkpoint of everything, then its restore.
  double held_bytes = double(graph_.total_data_bytes());
  for (const graphs::Transfer& x : graph_.transfers()) held_bytes += double(graph_.bytes(x.handle));
  const double data_seconds = 2.0 * held_bytes / std::max(bandwidth, 1.0);
  progress_span_bound_ = 10.0 * (longest_task + data_seconds + 100.0 * latency) + config_.failures.detection + downtime;
  // A migration's spawn: no progress on the migrating node meanwhile (migration.hpp).
  if (config_.failures.prediction) progress_span_bound_ += 10.0 * config_.failures.prediction->spawn;
  // A SimGrid platform file has links the config does not describe: the events bound only.
  if (!config_.platform.xml.empty()) progress_span_bound_ = std::numeric_limits<double>::infinity();
  progress_event_bound_ = 4 * (accesses + std::uint64_t(graph_.handle_count()) * processes +
                               16 * std::uint64_t(processes) * processes) + 100000;
}

void Simulation::note_progress() {
  events_without_progress_ = 0;
  last_progress_time_ = now();
}

std::string Simulation::protocol_phases() {
  // What each process of the protocol is doing, processes in the same phase together.
  std::map<std::string, std::vector<NodeId>> phases;
  for (NodeId n = 0; n < ranks_.size(); ++n) {
    if (!host(n)) continue;
    std::string phase = host(n)->protocol_phase();
    if (!phase.empty()) phases[phase].push_back(n);
  }
  std::string stuck;
  for (const auto& [phase, nodes] : phases) {
    std::string who = nodes.size() == 1 ? "node " : "nodes ";
    for (std::size_t i = 0; i < nodes.size() && i < 8; ++i) {
      who += (i ? ", " : "") + (nodes[i] == coordinator() ? std::string("coordinator") : std::to_string(nodes[i]));
    }
    if (nodes.size() > 8) who += ", ...";
    stuck += (stuck.empty() ? "" : "; ") + who + ": " + phase;
  }
  return stuck;
}

void Simulation::fail_without_progress(const std::string& what) {
  report_stall();
  const std::string stuck = protocol_phases();
  fail_run("no progress: " + what + " (no task completed, no recovery advanced; checkpoints do not count); protocol " +
           config_.protocol.type + " stuck in " + (stuck.empty() ? std::string("no phase of its own") : stuck) +
           " (the bound is derived from the graph and /failures: docs/runtime.md, \"No progress\")");
}

Simulation::~Simulation() = default;

std::uint64_t Simulation::add_timer(double time, Timer::Kind kind, NodeId node, std::uint64_t token) {
  timers_.push_back({kind, node, ranks_[node].incarnation(), token, false});
  const std::uint64_t id = timers_.size() - 1;
  backend_.set_timer(std::max(time, now()), id);
  return id;
}

void Simulation::schedule_failure(double time, NodeId node, std::uint64_t token, config::FailureClass kind, bool burst) {
  const std::uint64_t id = add_timer(time, Timer::Kind::failure, node, token);
  timers_[id].failure_class = kind;
  timers_[id].burst = burst;
  if (token == 0 && !burst) drawn_failure_[node] = id;
  if (migration_) migration_->failure_scheduled(node, time, id);
}

void Simulation::start() {
  wall_start_ = last_progress_ = std::chrono::steady_clock::now();
  note_progress();
  const auto initial = failures_.initial();
  for (std::size_t i = 0; i < initial.size(); ++i) {
    const auto& failure = initial[i];
    if (failure.node >= node_count()) continue;
    if (failure.after_tasks > 0) {
      task_count_failures_.push_back(failure);
    } else {
      // The token of a failure with its own downtime (a log's repair time) is its index + 1. A
      // drawn failure's class is drawn (/failures/classes); a listed one has its own.
      const bool drawn = config_.failures.events.empty();
      schedule_failure(failure.time, failure.node, failure.downtime >= 0 ? i + 1 : 0,
                       drawn ? failures_.draw_class(failure.node) : failure.kind);
    }
  }
  if (migration_) migration_->start();
  if (options_.time_limit > 0) add_timer(options_.time_limit, Timer::Kind::time_limit, 0, 0);
  // As a job starts: every process has its input, then the protocols start, then the initial
  // values are sent, then the tasks are scheduled.
  // A stop asked meanwhile ends the start-up between two hosts (each may take a second on a
  // loaded machine with millions of tasks): the run is then reported as interrupted.
  for (auto& rank : ranks_) rank.host()->load_initial_state();
  for (auto& rank : ranks_) rank.host()->start_protocol();
  for (auto& rank : ranks_) rank.host()->send_initial_values();
  schedule_hosts();
  // The oracle's expected digests, which only the end of the run reads: on another core while
  // the run goes on (the start-up above used them all). Not interruptible: the run it overlaps
  // handles a stop request, then waits for it.
  expected_digests_ = graphs::run_meanwhile([this] { return failure_free_digests(graph_, false); });
  if (stop_requested()) {
    periodic_checks();  // a stop asked during the start-up
    return;
  }
  check_completion();
}

void Simulation::schedule_hosts() {
  if (!defers_dispatch_) {
    // A backend that starts tasks at once: each host's first tasks start before the next host's
    // queue is built, as in a launch.
    for (auto& rank : ranks_) {
      if (stop_requested()) break;
      rank.host()->schedule();
    }
    return;
  }
  // The dispatches wait for the end of the instant: the hosts' ready queues are built first, on
  // the start-up's threads (each host's own state only; millions of tasks take a second), then the
  // dispatches are asked for in host order, as schedule() would have.
  graphs::run_strided(ranks_.size(), [this](std::size_t first, std::size_t step) {
    for (std::size_t n = first; n < ranks_.size(); n += step) {
      if (stop_requested()) return;
      host(n)->requeue_tasks();
    }
  });
  for (auto& rank : ranks_) {
    if (stop_requested()) break;
    rank.host()->request_dispatch();
  }
}

// ----------------------------------------------------------------------------- tasks

void Simulation::start_task(NodeId node, TaskId task, double seconds) {
  if (machines_) {
    machines_->start_task(node, task, seconds);  // the ranks of one machine share its cores
  } else {
    backend_.start_task(node, task, seconds);
  }
}

void Simulation::cancel_task(NodeId node, TaskId task) {
  if (machines_) {
    machines_->cancel_task(node, task);
  } else {
    backend_.cancel_task(node, task);
  }
}

bool Simulation::observe_execution(TaskId task) {
  ++metrics_.events;
  note_progress();
  const NodeId node = graph_.node(task);
  const NodeObserver::Execution execution = observers_[node].observe(task);
  if (!execution.again) failures_since_progress_ = 0;  // a task completed for the first time
  for (const auto& failure : task_count_failures_) {
    // A failure at a task count: right after this completion (not inside the host's call), before
    // any other event of the same instant (another task of the node ending then would overshoot).
    if (failure.node == node && failure.after_tasks == observers_[node].executions()) {
      failure_due_ = true;
      failure_due_class_ = failure.kind;
    }
  }
  // Work a failure destroyed on the failed node itself, redone now (survivors' rollbacks are
  // reported by their protocols, which know what they undo).
  if (execution.redoes_lost_work) {
    node::FailureRecord& record = metrics_.failures[execution.failure];
    ++record.tasks_reexecuted;
    record.work_lost_seconds += cost_.seconds(graph_, task);
  }
  count_event();
  return execution.again;
}

bool Simulation::graph_task_on_host(NodeId node, TaskId task) const {
  // A protocol activity (a checkpoint copy) ends as a task whose id is not the graph's; a manager
  // process has no observer.
  return task < graph_.task_count() && node < observers_.size() && host(node);
}

void Simulation::hint(const Upcoming& upcoming) {
  switch (upcoming.stage) {
    case Upcoming::Stage::task_entries: prefetch_task_entries(upcoming.node, upcoming.task); return;
    case Upcoming::Stage::task_end: prefetch_task_end(upcoming.node, upcoming.task); return;
    case Upcoming::Stage::task_versions: prefetch_task_versions(upcoming.node, upcoming.task); return;
    case Upcoming::Stage::delivery: prefetch_delivery(*upcoming.message); return;
  }
}

void Simulation::prefetch_task_end(NodeId node, TaskId task) {
  if (!graph_task_on_host(node, task)) return;
  observers_[node].prefetch(task);
  host(node)->hint({node::RuntimeHint::Kind::task_end, task});
}

void Simulation::prefetch_task_versions(NodeId node, TaskId task) {
  if (graph_task_on_host(node, task)) host(node)->hint({node::RuntimeHint::Kind::task_versions, task});
}

void Simulation::prefetch_delivery(const node::Message& m) {
  if (m.source >= ranks_.size() || m.destination >= ranks_.size()) return;
  if (m.source < channels_.size()) channels_[m.source].prefetch(m.destination);
  if (!m.is_data) return;
  if (host(m.source)) host(m.source)->hint({node::RuntimeHint::Kind::send_done, 0, m.handle});
  if (host(m.destination)) host(m.destination)->hint({node::RuntimeHint::Kind::version, 0, m.handle, m.version});
}

void Simulation::prefetch_task_entries(NodeId node, TaskId task) {
  if (task >= graph_.task_count()) return;
  graph_.prefetch_task(task);
  index_.prefetch_task(task);
  // The task its node will likely start when this one ends: the same three stages.
  if (graph_task_on_host(node, task)) host(node)->hint({node::RuntimeHint::Kind::next_ready_entries});
}

void Simulation::on_task_finished(NodeId node, TaskId task) {
  if (halted_ || !host(node)) return;
  if (machines_) machines_->task_finished(node, task);
  host(node)->on_task_finished(task);
  if (migration_ && !halted_) migration_->after_task_finished(node);
  if (failure_due_) {
    failure_due_ = false;
    if (!halted_ && host(node)) inject_failure(node, config_.failures.downtime, failure_due_class_);
  }
}

// ----------------------------------------------------------------------------- messages

void Simulation::release_sender(const node::Message& m) {
  node::NodeHost* sender = host(m.source);
  if (!sender || m.source_incarnation != ranks_[m.source].incarnation()) return;
  if (frozen(m.source)) {
    DeferredEvent event;
    event.kind = DeferredEvent::Kind::release;
    event.message = m;
    migration_->defer(m.source, std::move(event));
    return;
  }
  sender->released(m);
}

void Simulation::send(node::Message m) {
  if (halted_) return;
  if (m.is_data) {
    m.id = ++data_messages_;
    if (recorder_.active()) {
      node::Record r{node::RecordKind::data_sent, now()};
      r.process = m.source;
      r.message = &m;
      recorder_.record(r);
    }
  }
  if (!ranks_[m.destination].up()) {
    // The communication layer keeps it for the rank's replacement, unless it names a gone
    // incarnation (rank_lifecycle.hpp); the sender is done with it.
    ranks_[m.destination].admit(m);
    release_sender(m);
    return;
  }
  route(std::move(m));
}

void Simulation::route(node::Message m) {
  m.sequence = channels_[m.source][m.destination].next_send++;
  backend_.send(std::move(m));
}

void Simulation::on_message_delivered(const node::Message& m) {
  if (halted_) return;
  ++metrics_.events;
  release_sender(m);
  // From a process that died since, or to one that died since: lost with it.
  if (m.source_incarnation != ranks_[m.source].incarnation() || !host(m.source) || !host(m.destination)) return;
  auto& channels = channels_[m.source];
  auto it = channels.find(m.destination);
  if (it == channels.end()) return;
  Channel& channel = it->second;
  if (m.sequence < channel.next_delivery) throw std::logic_error("a message delivered twice on its channel");
  if (m.sequence != channel.next_delivery) {
    channel.early.hold(m.sequence - channel.next_delivery, m);  // overtook an earlier message: wait for it
    return;
  }
  ++channel.next_delivery;
  channel.early.pass();
  deliver(m);
  // Deliveries may fail a node and reset its channels: look the channel up again each time.
  while (!halted_) {
    auto again = channels_[m.source].find(m.destination);
    if (again == channels_[m.source].end()) break;
    Channel& c = again->second;
    std::optional<node::Message> next = c.early.take();
    if (!next) break;
    ++c.next_delivery;
    deliver(*next);
  }
  count_event();
}

void Simulation::deliver(const node::Message& m) {
  node::NodeHost* destination = host(m.destination);
  if (!destination) return;
  if (!ranks_[m.destination].admit(m)) return;  // for another incarnation (rank_lifecycle.hpp)
  if (frozen(m.destination)) {
    // It reached the old host of a migrating rank: kept there, then forwarded (migration.hpp).
    DeferredEvent event;
    event.kind = DeferredEvent::Kind::message;
    event.message = m;
    migration_->defer(m.destination, std::move(event));
    return;
  }
  if (recorder_.active()) {
    node::Record r{node::RecordKind::message, now()};
    r.process = m.destination;
    r.message = &m;
    recorder_.record(r);
  }
  if (machines_) machines_->count_delivery(m.destination, m.traffic, m.bytes);
  destination->deliver(m);
}

void Simulation::on_message_lost(const node::Message& m) {
  if (halted_) return;
  count_event();
  if (halted_) return;
  release_sender(m);
}

void Simulation::reset_channels(NodeId node) {
  channels_[node].clear();
  for (auto& by_destination : channels_) by_destination.erase(node);
}

// ----------------------------------------------------------------------------- storage, timers

void Simulation::storage_write(NodeId node, std::uint32_t server, std::uint64_t key, node::Bytes content,
                               std::uint64_t bytes, std::uint64_t token) {
  if (server == node::kLocalStorage) {
    local_transfer({node, ranks_[node].incarnation(), server, key, true, bytes, std::move(content), token});
    return;
  }
  if (storage_.empty()) {
    fail_run("the protocol needs stable storage but /platform/storage/hosts is 0");
    return;
  }
  server = storage_.server(server);
  const std::uint32_t id = storage_requests_.open(
      {node, ranks_[node].incarnation(), server, key, true, bytes, std::move(content), token});
  backend_.storage_transfer(node, server, bytes, true, id);
}

void Simulation::storage_read(NodeId node, std::uint32_t server, std::uint64_t key, std::uint64_t token) {
  if (server == node::kLocalStorage) {
    const bool disk = node < node_count() && !local_storage_.empty();  // local_transfer fails the run otherwise
    local_transfer({node, ranks_[node].incarnation(), server, key, false, disk ? local_storage_.answer_bytes(node, key) : 1, {}, token});
    return;
  }
  if (storage_.empty()) {
    fail_run("the protocol needs stable storage but /platform/storage/hosts is 0");
    return;
  }
  server = storage_.server(server);
  // The server answers with what it holds (a "not found" answer is a tiny message).
  const std::uint64_t bytes = storage_.answer_bytes(server, key);
  if (node < node_count()) {
    node::NodeMetrics& m = process_metrics_[node];
    ++m.messages_sent[static_cast<std::size_t>(node::Traffic::restore)];
    m.bytes_sent[static_cast<std::size_t>(node::Traffic::restore)] += bytes;
  }
  const std::uint32_t id = storage_requests_.open({node, ranks_[node].incarnation(), server, key, false, bytes, {}, token});
  backend_.storage_transfer(node, server, bytes, false, id);
}

void Simulation::storage_erase(NodeId node, std::uint32_t server, std::uint64_t key) {
  if (server == node::kLocalStorage) {
    if (node < node_count() && !local_storage_.empty()) local_storage_.erase(node, key);
    return;
  }
  if (!storage_.empty()) storage_.erase(storage_.server(server), key);
}

void Simulation::local_transfer(StorageRequests::Request request) {
  // The node's own disk: its latency and bandwidth, no network (each node has its own).
  if (local_storage_.empty() || request.node >= node_count()) {
    fail_run("the protocol writes to node-local storage but /platform/local_storage is not set");
    return;
  }
  const config::LocalStorageConfig& disk = config_.platform.local_storage;
  const double seconds = disk.latency + double(request.bytes) / disk.bandwidth;
  const NodeId node = request.node;
  const std::uint32_t id = storage_requests_.open(std::move(request));
  add_timer(now() + seconds, Timer::Kind::local_storage, node, id);
}

void Simulation::on_storage_done(NodeId, std::uint64_t id) {
  if (halted_ || !storage_requests_.known(id)) return;
  count_event();
  complete_storage(id);
}

void Simulation::complete_storage(std::uint64_t id) {
  StorageRequests::Request op = storage_requests_.close(id);
  node::NodeHost* const requester = host(op.node);
  if (!requester || ranks_[op.node].incarnation() != op.incarnation) return;  // the requester died meanwhile
  // Node-local storage is the node's "server" of local_storage_.
  const bool local = op.server == node::kLocalStorage;
  StableStorage& store = local ? local_storage_ : storage_;
  const std::uint32_t server = local ? op.node : op.server;
  if (op.write) store.put(server, op.key, {std::move(op.content), op.bytes});
  const StableStorage::Object* read = op.write ? nullptr : store.find(server, op.key);
  if (frozen(op.node)) {
    DeferredEvent event;
    event.kind = DeferredEvent::Kind::storage;
    event.token = op.token;
    if (read) {
      event.has_content = true;
      event.content = read->content;
    }
    migration_->defer(op.node, std::move(event));
    return;
  }
  if (op.write) {
    requester->on_storage_done(op.token, nullptr);
    return;
  }
  if (machines_ && !local) machines_->count_delivery(op.node, node::Traffic::restore, op.bytes);
  if (!read) {
    requester->on_storage_done(op.token, nullptr);
  } else {
    const node::Bytes content = read->content;  // a copy: the server keeps its own
    requester->on_storage_done(op.token, &content);
  }
}

std::uint64_t Simulation::set_timer(NodeId node, double delay, std::uint64_t token) {
  return add_timer(now() + delay, Timer::Kind::protocol, node, token);
}

void Simulation::cancel_timer(std::uint64_t id) {
  if (id < timers_.size()) timers_[id].cancelled = true;
}

void Simulation::on_timer(std::uint64_t id) {
  if (halted_ || id >= timers_.size() || timers_[id].cancelled) return;
  count_event();
  if (halted_) return;
  const Timer timer = timers_[id];
  switch (timer.kind) {
    case Timer::Kind::failure:
      if (migration_ && migration_->absorbs(id, timer.node)) {
        // It hits the host the rank left: nothing is lost. Renewal models: the rank's next failure.
        if (auto next = failures_.next_after(timer.node, now())) {
          schedule_failure(*next, timer.node, 0, failures_.draw_class(timer.node));
        }
        break;
      }
      // A burst strikes the incarnation that ran when it was drawn; one that failed since is gone.
      if (timer.burst && timer.incarnation != ranks_[timer.node].incarnation()) break;
      inject_failure(timer.node, timer.token > 0 ? failures_.initial_downtime(timer.token - 1) : config_.failures.downtime,
                     timer.failure_class, timer.burst);
      break;
    case Timer::Kind::detection: notify_detection(timer.node, static_cast<std::uint32_t>(timer.token)); break;
    case Timer::Kind::replacement: replace(timer.node); break;
    case Timer::Kind::protocol:
      // A timer dies with the process that set it.
      if (!host(timer.node) || ranks_[timer.node].incarnation() != timer.incarnation) break;
      if (frozen(timer.node)) {
        DeferredEvent event;
        event.kind = DeferredEvent::Kind::timer;
        event.token = timer.token;
        migration_->defer(timer.node, std::move(event));
        break;
      }
      host(timer.node)->on_timer(timer.token);
      break;
    case Timer::Kind::migration: migration_->on_timer(timer.node, timer.token); break;
    case Timer::Kind::local_storage:
      if (storage_requests_.known(timer.token)) complete_storage(timer.token);
      break;
    case Timer::Kind::time_limit:
      report_stall();
      fail_run("time limit reached at " + std::to_string(now()) + " s of simulated time (/run/time_limit)");
      break;
  }
}

// ----------------------------------------------------------------------------- instants

void Simulation::request_dispatch(NodeId node) {
  if (dispatch_flag_[node]) return;
  dispatch_flag_[node] = 1;
  dispatch_wanted_.push_back(node);
  if (dispatch_wanted_.size() == 1) backend_.request_end_of_instant();
}

void Simulation::on_end_of_instant() {
  // Which ready tasks start is decided once all the events of the instant are in, node by node
  // in rank order: simultaneous completions (equal messages sharing a link, equal tasks) give the
  // same schedule whatever order the backend reports them in. A dispatch can ask for another
  // (a protocol veto lifted on start): the loop serves it in the same instant.
  while (!dispatch_wanted_.empty() && !halted_) {
    dispatching_.swap(dispatch_wanted_);
    std::sort(dispatching_.begin(), dispatching_.end());
    for (NodeId node : dispatching_) {
      dispatch_flag_[node] = 0;
      if (host(node) && !halted_) host(node)->dispatch();
    }
    dispatching_.clear();
  }
}

// ----------------------------------------------------------------------------- failures

void Simulation::inject_failure(NodeId node, double downtime, config::FailureClass kind, bool burst) {
  if (!host(node) || failures_injected_ >= config_.failures.max_failures) return;
  ++failures_injected_;
  ++metrics_.failure_events[std::size_t(kind)];
  if (burst) ++metrics_.burst_failures;
  // Failures faster than anything can progress: stop rather than loop for ever.
  if (++failures_since_progress_ > kFailuresWithoutProgress) {
    report_stall();
    fail_run("no progress: " + std::to_string(kFailuresWithoutProgress) +
             " failures in a row without any task completing for the first time (the failures are faster than the "
             "protocol can recover: /failures)");
    return;
  }
  // A group or job failure takes the others down at the same instant; their drawn failures go
  // with them (each replacement draws its own).
  for (const NodeId victim : failures_.victims(node, kind)) {
    if (halted_) return;
    if (victim != node) {
      if (!host(victim)) continue;
      if (drawn_failure_[victim] < timers_.size()) timers_[drawn_failure_[victim]].cancelled = true;
    }
    take_down(victim, downtime, kind, node, burst);
  }
  if (config_.failures.burst && !halted_) schedule_bursts(node);
}

void Simulation::schedule_bursts(NodeId failed) {
  // The first rank of every other machine of the group: its failures are the machine's.
  const std::uint32_t per_machine = config_.platform.ranks_per_machine;
  for (const NodeId other : failures_.victims(failed, config::FailureClass::group)) {
    if (other / per_machine == failed / per_machine || other % per_machine != 0 || !host(other)) continue;
    if (const auto delay = failures_.burst_delay(other)) schedule_failure(now() + *delay, other, 0, config::FailureClass::node, true);
  }
}

void Simulation::take_down(NodeId node, double downtime, config::FailureClass kind, NodeId origin, bool burst) {
  if (!host(node)) return;  // a co-located rank of an earlier victim's machine
  failure_cause_ = {kind, origin, burst};
  if (kind == config::FailureClass::process) {
    // The process only: its node, its local storage and its host stay; it restarts in place.
    restart_in_place_[node] = true;
    fail_process(node, downtime);
    return;
  }
  // With machines tracked a failure takes down a machine, and every rank it runs with it.
  const std::vector<NodeId> co_located = machines_ ? machines_->machine_failed(node) : std::vector<NodeId>{};
  if (machines_ && machines_->shared()) {
    // Machines of several ranks: one spare machine (if any is left) takes them all, and they
    // restart after the machine's downtime.
    const bool spare = spares_.take();
    fail_process(node, downtime, spare);
    for (NodeId other : co_located) {
      if (other != node && host(other) && !halted_) fail_process(other, downtime, spare);
    }
    return;
  }
  fail_process(node, downtime);
  for (NodeId other : co_located) {
    if (other != node && host(other) && !halted_) fail_process(other, config_.failures.downtime);
  }
}

void Simulation::fail_process(NodeId node, double downtime, std::optional<bool> machine_spare) {
  if (migration_) migration_->on_failure(node);  // a migration under way stops: an ordinary failure
  const bool in_place = restart_in_place_[node];
  const bool spare = in_place ? false : machine_spare ? *machine_spare : spares_.take();
  if (!in_place && !local_storage_.empty() && node < node_count()) local_storage_.wipe(node);  // lost with the node
  node::FailureRecord record;
  record.time = now();
  record.node = node;
  record.failure_class = config::failure_class_name(failure_cause_.kind);
  record.origin = failure_cause_.origin;
  record.burst = failure_cause_.burst;
  // Fail-stop (rank_lifecycle.hpp), then the backend forgets the dead incarnation's activities.
  const std::uint32_t failed_incarnation =
      ranks_[node].fail_stop(process_metrics_[node], observers_[node], ledger_.next_index());
  backend_.fail_node(node);
  if (machines_) machines_->rank_died(node, spare);
  reset_channels(node);
  ledger_.add(node, failed_incarnation, record);
  if (recorder_.active()) {
    node::Record r{node::RecordKind::failure, now()};
    r.peer = node;
    r.incarnation = failed_incarnation;
    recorder_.record(r);
  }
  add_timer(now() + config_.failures.detection, Timer::Kind::detection, node, failed_incarnation);
  // Without a spare, a shrink restarts the rank on a surviving machine after the same downtime.
  replacement_scheduled_[node] = in_place || spare || (machines_ && machines_->shrinks());
  if (replacement_scheduled_[node]) add_timer(now() + downtime, Timer::Kind::replacement, node, 0);
}

void Simulation::notify_detection(NodeId failed, std::uint32_t incarnation) {
  if (node::FailureRecord* record = ledger_.find(failed, incarnation)) record->detected_at = now();
  if (!host(failed) && !replacement_scheduled_[failed]) {
    fail_run("node " + std::to_string(failed) + " failed and no spare node is left (/platform/spares = " +
             std::to_string(config_.platform.spares) + ")");
    return;
  }
  // Every live process hears of it, a replacement already up included, in a total order.
  const node::FailureNotice notice{failed, incarnation, ++detections_};
  if (recorder_.active()) {
    node::Record r{node::RecordKind::notice, now()};
    r.peer = failed;
    r.incarnation = incarnation;
    r.sequence = notice.sequence;
    recorder_.record(r);
  }
  for (NodeId n = 0; n < ranks_.size() && !halted_; ++n) {
    if (!host(n)) continue;
    if (frozen(n)) {
      DeferredEvent event;
      event.kind = DeferredEvent::Kind::notice;
      event.notice = notice;
      migration_->defer(n, std::move(event));
      continue;
    }
    host(n)->on_failure_notice(notice);
  }
}

void Simulation::replace(NodeId node) {
  if (host(node) || halted_) return;
  replacement_scheduled_[node] = false;
  note_progress();  // the protocol gets its full span to recover the new process
  bool rehosted = false;
  if (restart_in_place_[node]) {
    restart_in_place_[node] = false;  // after a process failure: the same host, no spare
  } else if (machines_) {
    std::string error;
    if (!machines_->restart(node, now(), rehosted, error)) {
      fail_run(error);
      return;
    }
  } else {
    backend_.replace_node(node);
  }
  if (node::FailureRecord* record = ledger_.find(node, ranks_[node].incarnation() - 1)) record->replaced_at = now();
  if (recorder_.active()) {
    // A spare, or (shrink, no spare left) a surviving machine that now runs one rank more.
    node::Record r{rehosted ? node::RecordKind::rehost : node::RecordKind::replacement, now()};
    r.peer = node;
    r.incarnation = ranks_[node].incarnation();
    std::string ranks;
    if (machines_) {
      ranks = machines_->describe(node, r);
      r.text = ranks;
    }
    recorder_.record(r);
  }
  // Renewal failure models: the new incarnation has its own time to failure.
  // (A rank re-hosted by a shrink runs on a machine that has its own failures.)
  if (!(machines_ && machines_->rehosted(node))) {
    if (auto next = failures_.next_after(node, now())) schedule_failure(*next, node, 0, failures_.draw_class(node));
  }
  ranks_[node].replace(ranks_[node].incarnation(), detections_, process_metrics_[node]);
  // What was kept for it travels again, unless its sender died since (lost with it).
  ranks_[node].redeliver([this](node::Message&& m) {
    if (halted_) return false;
    if (host(m.source) && m.source_incarnation == ranks_[m.source].incarnation()) route(std::move(m));
    return true;
  });
}

// ----------------------------------------------------------------------------- migration

void Simulation::set_migration_timer(double time, NodeId node, std::uint64_t token) {
  add_timer(time, Timer::Kind::migration, node, token);
}

void Simulation::on_migration_transfer_done(NodeId node, std::uint64_t token) {
  if (halted_ || !migration_) return;
  count_event();
  if (halted_) return;
  migration_->on_transfer_done(node, token);
}

void Simulation::replay(NodeId node, std::vector<DeferredEvent>& events) {
  for (DeferredEvent& event : events) {
    if (halted_ || !host(node) || frozen(node)) return;
    node::NodeHost& host = *this->host(node);
    switch (event.kind) {
      case DeferredEvent::Kind::message: deliver(event.message); break;
      case DeferredEvent::Kind::release: host.released(event.message); break;
      case DeferredEvent::Kind::timer: host.on_timer(event.token); break;
      case DeferredEvent::Kind::storage: host.on_storage_done(event.token, event.has_content ? &event.content : nullptr); break;
      case DeferredEvent::Kind::notice: host.on_failure_notice(event.notice); break;
    }
  }
}

// ----------------------------------------------------------------------------- records

void Simulation::record_failure_effect(const node::FailureNotice& failure, const node::FailureEffect& effect) {
  if (node::FailureRecord* record = ledger_.find(failure.node, failure.incarnation)) node::add_effect(*record, effect);
}

void Simulation::record_recovered(const node::FailureNotice& failure) {
  note_progress();
  if (!ledger_.recovered(failure.node, failure.incarnation, now())) return;
  if (machines_) machines_->recovered(failure.node, failure.incarnation, ranks_[failure.node].incarnation(), now());
}

void Simulation::record_checkpoint(const node::CheckpointRecord& record) {
  // Not progress: checkpoints go on while a restarted node waits for ever (issue 39).
  node::update_checkpoints(metrics_, record);
}

// ----------------------------------------------------------------------------- end of run

void Simulation::check_completion() {
  if (halted_ || ledger_.unrecovered() != 0) return;
  // Each node calls this as it finishes: not a scan of every host each time. The hosts before
  // the cursor were finished when it passed them; once it reaches the end, one pass confirms that
  // all still are (a rollback may have undone one), or sends the cursor back there.
  while (completion_cursor_ < ranks_.size()) {
    node::NodeHost* host = this->host(completion_cursor_);
    if (!host || !host->finished()) return;
    ++completion_cursor_;
  }
  for (std::size_t n = 0; n < ranks_.size(); ++n) {
    if (!host(n) || !host(n)->finished()) {
      completion_cursor_ = n;
      return;
    }
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
  backend_.halt();
  finalize_metrics();
  if (recorder_.active()) {
    const std::string text = metrics_.complete ? std::string("complete, oracle ") + (metrics_.oracle_ok ? "ok" : "failed")
                                               : "failed: " + metrics_.failure_reason;
    node::Record r{node::RecordKind::run_end, now()};
    r.text = text;
    recorder_.record(r);
  }
  recorder_.close();
}

void Simulation::finalize_metrics() {
  if (migration_) migration_->finish();
  for (auto& rank : ranks_) {
    if (rank.up()) rank.host()->account_peaks();
  }
  metrics_.test_faults_fired = options_.test_faults ? options_.test_faults->fired : 0;
  if (machines_) machines_->finish();
  node::fold_process_metrics(metrics_, process_metrics_, node_count(), options_.protocol_metrics);
}

void Simulation::check_oracle() {
  const std::vector<std::vector<HandleId>> final_handles = final_handles_by_node(graph_);
  OracleFindings findings;
  const std::vector<node::Digest> expected =
      expected_digests_.valid() ? expected_digests_.get() : failure_free_digests(graph_, false);
  for (NodeId n = 0; n < node_count(); ++n) {
    const node::NodeRuntime* runtime = host(n) ? &host(n)->node_runtime() : nullptr;
    observers_[n].check_oracle(graph_, runtime, final_handles[n], expected, findings);
  }
  metrics_.oracle_missing = std::move(findings.missing_lines);
  metrics_.oracle_wrong = std::move(findings.wrong_lines);
  metrics_.oracle_ok = findings.ok();
}

void Simulation::finish() {
  if (halted_) return;
  // The backend ran out of events before the run completed: a stall. Say who waits for what.
  metrics_.makespan = now();
  report_stall();
  std::uint64_t remaining = 0;
  for (const auto& rank : ranks_) {
    if (rank.up() && rank.host()->has_runtime()) remaining += rank.host()->node_runtime().remaining_tasks();
  }
  fail_run("stalled at " + std::to_string(now()) + " s: no event left but " + std::to_string(remaining) +
           " tasks not done (see stall_report)");
}

void Simulation::report_stall() {
  if (const std::string phases = protocol_phases(); !phases.empty()) {
    metrics_.stall_report.push_back("protocol " + config_.protocol.type + ": " + phases);
  }
  for (NodeId n = 0; n < node_count(); ++n) {
    std::string line = observers_[n].stall_line(host(n) ? &host(n)->node_runtime() : nullptr);
    if (!line.empty()) metrics_.stall_report.push_back(std::move(line));
  }
}

void Simulation::count_event() {
  if (halted_) return;
  if (++events_without_progress_ > progress_event_bound_) {
    fail_without_progress(std::to_string(events_without_progress_ - 1) + " events since " +
                          std::to_string(last_progress_time_) + " s of simulated time");
    return;
  }
  if (now() - last_progress_time_ > progress_span_bound_) {
    fail_without_progress("from " + std::to_string(last_progress_time_) + " s to " + std::to_string(now()) +
                          " s of simulated time, more than " + std::to_string(progress_span_bound_) + " s");
    return;
  }
  if (++events_since_check_ >= kEventsBetweenChecks) periodic_checks();
}

void Simulation::periodic_checks() {
  events_since_check_ = 0;
  if (stop_requested()) {
    report_stall();
    fail_run("interrupted at " + std::to_string(now()) + " s of simulated time (the results so far are kept)");
    return;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  if (config_.run.wall_limit > 0 && wall > config_.run.wall_limit) {
    report_stall();
    fail_run("wall time limit reached: " + std::to_string(wall) + " s of wall time at " + std::to_string(now()) +
             " s of simulated time (/run/wall_limit)");
    return;
  }
  if (options_.progress) report_progress();
}

void Simulation::report_progress() {
  const auto wall = std::chrono::steady_clock::now();
  if (wall - last_progress_ < std::chrono::seconds(2)) return;
  last_progress_ = wall;
  std::uint64_t remaining = 0;
  for (const auto& rank : ranks_) {
    if (rank.up() && rank.host()->has_runtime()) remaining += rank.host()->node_runtime().remaining_tasks();
  }
  const double done = double(graph_.task_count() - std::min<std::uint64_t>(remaining, graph_.task_count()));
  const double fraction = done / double(std::max<std::size_t>(1, graph_.task_count()));
  const double elapsed = std::chrono::duration<double>(wall - wall_start_).count();
  // The time left at the pace of the tasks so far (failures redo some: a lower bound then).
  char eta[48] = ", ETA --";
  if (fraction > 0) std::snprintf(eta, sizeof eta, ", ETA %.0f s", elapsed * (1 - fraction) / fraction);
  std::fprintf(stderr, "[ftsim] simulated %.4g s, tasks %.0f / %zu (%.1f%%), failures %zu, wall %.1f s%s\n", now(), done,
               graph_.task_count(), 100.0 * fraction, metrics_.failures.size(), elapsed, eta);
}

}  // namespace ftsim::world
