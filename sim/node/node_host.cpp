#include "sim/node/node_host.hpp"

#include <algorithm>
#include <stdexcept>


namespace ftsim::node {

NodeHost::NodeHost(NodeId node, std::uint32_t incarnation, const HostSetup& setup, HostEnvironment& environment,
                   std::unique_ptr<Protocol> protocol)
    : node_(node),
      incarnation_(incarnation),
      setup_(setup),
      env_(environment),
      metrics_(environment.metrics_of(node)),
      protocol_(std::move(protocol)),
      send_queue_(setup.config.platform.network.send_window) {
  if (node < setup.graph.node_count()) {
    const std::uint32_t cores = setup.config.platform.cores_per_node;
    RuntimeServices& services = *this;
    runtime_ = std::make_unique<NodeRuntime>(node, cores, setup.graph, setup.index, services, setup.test_faults);
    for (std::uint32_t c = cores; c-- > 0;) free_cores_.push_back(c);
  }
}

NodeHost::~NodeHost() { account_peaks(); }

ProtocolRuntime NodeHost::runtime() {
  if (!runtime_) throw std::logic_error("protocol bug: the coordinator has no node runtime");
  return ProtocolRuntime(*runtime_);
}

// ----------------------------------------------------------------------------- start

void NodeHost::load_initial_state() {
  if (runtime_) runtime_->restore(runtime_->initial_snapshot());
}

void NodeHost::start_protocol() { protocol_->on_start(*this); }

void NodeHost::send_initial_values() {
  if (runtime_) runtime_->send_initial_values();
}

void NodeHost::schedule() {
  if (runtime_) runtime_->rebuild();
}

void NodeHost::requeue_tasks() {
  if (runtime_) runtime_->requeue();
}

void NodeHost::request_dispatch() {
  if (runtime_) runtime_->dispatch();
}

void NodeHost::dispatch() {
  if (runtime_) runtime_->flush_dispatch();
}

void NodeHost::restart(const RestartInfo& info) { protocol_->on_restart(*this, info); }

std::string NodeHost::protocol_phase() { return protocol_->phase(*this); }

bool NodeHost::finished() {
  if (runtime_ && runtime_->remaining_tasks() != 0) return false;
  return protocol_->finished(*this);
}

// ----------------------------------------------------------------------------- tasks

void NodeHost::start_task(TaskId task) {
  std::uint32_t core = 0;
  if (!free_cores_.empty()) {
    core = free_cores_.back();
    free_cores_.pop_back();
  }
  running_.push_back({task, now(), core});
  if (env_.recorder().active()) {
    Record r{RecordKind::task_start, now()};
    r.process = node_;
    r.core = core;
    r.task = task;
    env_.recorder().record(r);
  }
  env_.start_task(node_, task, task_seconds(task));
}

void NodeHost::cancel_task(TaskId task) {
  for (std::size_t i = 0; i < running_.size(); ++i) {
    if (running_[i].task != task) continue;
    metrics_.lost_seconds += now() - running_[i].start;
    free_cores_.push_back(running_[i].core);
    running_[i] = running_.back();
    running_.pop_back();
    break;
  }
  env_.cancel_task(node_, task);
}

double NodeHost::running_seconds() const {
  double seconds = 0;
  for (const Running& r : running_) seconds += now() - r.start;
  return seconds;
}

bool NodeHost::run_activity(double seconds, std::uint64_t token) {
  if (!runtime_ || !runtime_->reserve_core()) return false;
  const TaskId id = next_activity_++;
  activities_.push_back({id, token, now()});
  env_.start_task(node_, id, seconds);
  return true;
}

void NodeHost::on_task_finished(TaskId task) {
  if (task >= kActivityBase) {
    for (std::size_t i = 0; i < activities_.size(); ++i) {
      if (activities_[i].id != task) continue;
      const std::uint64_t token = activities_[i].token;
      metrics_.busy_seconds += now() - activities_[i].start;
      activities_[i] = activities_.back();
      activities_.pop_back();
      runtime_->release_core();
      protocol_->on_activity_done(*this, token);
      if (runtime_->remaining_tasks() == 0) env_.check_completion();  // it may have been the last work
      return;
    }
    return;
  }
  double start = now();
  std::uint32_t core = 0;
  bool found = false;
  for (std::size_t i = 0; i < running_.size(); ++i) {
    if (running_[i].task != task) continue;
    start = running_[i].start;
    core = running_[i].core;
    running_[i] = running_.back();
    running_.pop_back();
    free_cores_.push_back(core);
    found = true;
    break;
  }
  if (!found) return;  // cancelled meanwhile
  ++metrics_.executions;
  TestFaults* faults = setup_.test_faults;
  const bool planted = faults && faults->done_without_running && faults->fired == 0;
  if (planted) ++faults->fired;
  const bool reexecution = !planted && env_.observe_execution(task);
  if (reexecution) ++metrics_.reexecutions;
  metrics_.busy_seconds += now() - start;
  if (env_.recorder().active()) {
    Record r{RecordKind::task_end, now(), start};
    r.process = node_;
    r.core = core;
    r.task = task;
    r.again = reexecution;
    env_.recorder().record(r);
  }
  runtime_->on_task_finished(task);
}

void NodeHost::task_completed(TaskId task, bool first_execution) {
  protocol_->on_task_completed(*this, task, first_execution);
  if (runtime_->remaining_tasks() == 0) env_.check_completion();
}

// ----------------------------------------------------------------------------- messages

void NodeHost::account(const Message& m) {
  if (node_ < node_count()) {
    ++metrics_.messages_sent[static_cast<std::size_t>(m.traffic)];
    metrics_.bytes_sent[static_cast<std::size_t>(m.traffic)] += m.bytes;
  }
  if (!m.is_data && m.traffic == Traffic::control) {
    ++metrics_.service_messages;
    metrics_.service_bytes += m.bytes;
  }
}

void NodeHost::transmit(Message m) {
  m.source = node_;
  m.source_incarnation = incarnation_;
  m.epoch = epoch_;
  account(m);
  if (send_queue_.admit(m)) post(std::move(m));
}

void NodeHost::post(Message m) {
  m.sent_at = now();
  env_.send(std::move(m));
}

void NodeHost::post_next(NodeId destination) {
  if (send_queue_.window() == 0) return;
  completions_.push_back(destination);
  if (posting_) return;  // the loop below takes it
  posting_ = true;
  while (!completions_.empty()) {
    const NodeId d = completions_.back();
    completions_.pop_back();
    if (auto next = send_queue_.completed(d)) post(std::move(*next));
  }
  posting_ = false;
}

std::int32_t NodeHost::first_reader_priority(HandleId h, Version v, NodeId to) const {
  // StarPU-MPI posts a transfer with the priority of the task it is for: the first reader
  // submitted on the destination (later readers find it in the communication cache).
  const auto readers = setup_.index.readers_on(setup_.graph, h, v, to);
  return readers.empty() ? 0 : setup_.graph.priority(readers.front());
}

void NodeHost::send_data(NodeId to, HandleId handle, Version version, Digest digest, Traffic traffic,
                         TaskId writer) {
  const auto& graph = setup_.graph;
  Message m;
  m.source = node_;
  m.destination = to;
  m.traffic = traffic;
  m.is_data = true;
  m.handle = handle;
  m.version = version;
  m.digest = digest;
  m.content = runtime_->store().read_content(handle, version);
  // (Without candidate cuts every section is 0: no need to look the writer up, a cache miss.)
  if (version > 0 && graph.cut_count() > 0) {
    m.section = graph.section(writer != graphs::kNone ? writer : graph.writer(handle, version));
  }
  m.epoch = epoch_;
  if (send_queue_.window() > 0 && traffic == Traffic::application) m.priority = first_reader_priority(handle, version, to);
  const SendVerdict verdict = protocol_->on_send(*this, m);
  m.bytes = graph.bytes(handle) + setup_.envelope_bytes + 4ull * m.header_words;
  switch (verdict) {
    case SendVerdict::hold: held_sends_.push_back(std::move(m)); return;
    case SendVerdict::suppress:
      ++metrics_.sends_suppressed;
      runtime_->on_send_done(handle);  // as if it had left: nothing waits for it
      return;
    case SendVerdict::send_and_log: {
      m.logged = true;
      log_store_.put(log_store_.next_key(), log_record(m), graph.bytes(handle));
      break;
    }
    case SendVerdict::send: break;
  }
  transmit(std::move(m));
}

void NodeHost::release_held_sends() {
  auto held = std::move(held_sends_);
  held_sends_.clear();
  for (Message& m : held) transmit(std::move(m));
}

void NodeHost::release_held_sends_to(NodeId destination) {
  auto held = std::move(held_sends_);
  held_sends_.clear();
  for (Message& m : held) {
    if (m.destination == destination) {
      transmit(std::move(m));
    } else {
      held_sends_.push_back(std::move(m));
    }
  }
}

void NodeHost::redeliver_deferred() {
  auto deferred = std::move(deferred_);
  deferred_.clear();
  for (const Message& m : deferred) deliver(m);  // may defer some again, in order
}

void NodeHost::discard_deferred() {
  metrics_.orphans_dropped += deferred_.size();
  deferred_.clear();
}

void NodeHost::send_control(NodeId to, std::uint32_t type, Bytes body, Traffic traffic, std::uint64_t payload_bytes,
                            std::uint32_t destination_incarnation, std::vector<SharedBytes> parts) {
  Message m;
  m.destination = to;
  m.traffic = traffic;
  m.is_data = false;
  m.control_type = type;
  m.bytes = body.encoded_size() + setup_.envelope_bytes + payload_bytes;
  for (const SharedBytes& part : parts) m.bytes += inline_size(*part);
  m.body = std::move(body);
  m.parts = std::move(parts);
  m.destination_incarnation = destination_incarnation;
  transmit(std::move(m));
}

void NodeHost::deliver(const Message& m) {
  if (!m.is_data) {
    protocol_->on_control(*this, m);
    return;
  }
  if (!runtime_) return;
  switch (protocol_->on_receive(*this, m)) {
    case ReceiveVerdict::drop_duplicate: ++metrics_.duplicates_received; return;
    case ReceiveVerdict::drop_orphan: ++metrics_.orphans_dropped; return;
    case ReceiveVerdict::consumed: return;
    case ReceiveVerdict::defer: deferred_.push_back(m); return;
    case ReceiveVerdict::accept: break;
  }
  if (env_.recorder().active()) {
    Record r{RecordKind::data_received, now()};
    r.process = node_;
    r.message = &m;
    env_.recorder().record(r);
  }
  if (runtime_->store().holds(m.handle, m.version)) ++metrics_.duplicates_received;
  runtime_->on_data(m.handle, m.version, m.digest, m.content);
  protocol_->on_stored(*this, m);
}

void NodeHost::released(const Message& m) {
  post_next(m.destination);
  if (!m.is_data || !runtime_) return;
  runtime_->on_send_done(m.handle);
  protocol_->on_data_released(*this, m);
}

// ----------------------------------------------------------------------------- timers, storage, notices

void NodeHost::on_timer(std::uint64_t token) { protocol_->on_timer(*this, token); }

void NodeHost::storage_write(std::uint32_t server, std::uint64_t key, Bytes content, std::uint64_t bytes,
                             std::uint64_t token) {
  if (node_ < node_count() && server != kLocalStorage) {  // local storage: no network
    ++metrics_.messages_sent[static_cast<std::size_t>(Traffic::checkpoint)];
    metrics_.bytes_sent[static_cast<std::size_t>(Traffic::checkpoint)] += bytes;
  }
  env_.storage_write(node_, server, key, std::move(content), bytes, token);
}

void NodeHost::storage_read(std::uint32_t server, std::uint64_t key, std::uint64_t token) {
  env_.storage_read(node_, server, key, token);
}

void NodeHost::on_storage_done(std::uint64_t token, const Bytes* content) {
  protocol_->on_storage_done(*this, token, content);
}

void NodeHost::on_failure_notice(const FailureNotice& notice) { protocol_->on_failure_notice(*this, notice); }

void NodeHost::note(std::string_view text, const char* trace_category) {
  Record r{RecordKind::note, now()};
  r.process = node_;
  r.text = text;
  r.category = trace_category;
  env_.recorder().record(r);
}

void NodeHost::record_local_checkpoint(std::uint32_t checkpoint) {
  if (!env_.recorder().active()) return;
  Record r{RecordKind::local_checkpoint, now()};
  r.process = node_;
  r.checkpoint = checkpoint;
  env_.recorder().record(r);
}

void NodeHost::record_log_change(NodeId destination, HandleId handle, Version version, bool logged) {
  if (!env_.recorder().active()) return;
  Message m;
  m.source = node_;
  m.destination = destination;
  m.handle = handle;
  m.version = version;
  m.logged = logged;
  Record r{RecordKind::data_logged, now()};
  r.process = node_;
  r.message = &m;
  r.logged = logged;
  env_.recorder().record(r);
}

void NodeHost::record_span(std::string_view name, const char* category, double start) {
  Record r{RecordKind::span, now(), start};
  r.process = node_;
  r.text = name;
  r.category = category;
  env_.recorder().record(r);
}

void NodeHost::hold_for_migration(bool hold) {
  migration_hold_ = hold;
  if (!hold && runtime_) runtime_->retry();  // the tasks the hold set aside
}

std::uint64_t NodeHost::memory_bytes() const {
  // A task's descriptor in the runtime (state, dependency counter, priority): 16 bytes.
  constexpr std::uint64_t kTaskDescriptorBytes = 16;
  std::uint64_t bytes = checkpoint_store_.bytes() + log_store_.bytes();
  if (runtime_) bytes += runtime_->store().bytes() + kTaskDescriptorBytes * runtime_->remaining_tasks();
  for (const Message& m : held_sends_) bytes += m.bytes;
  for (const Message& m : deferred_) bytes += m.bytes;
  return std::max<std::uint64_t>(bytes, 1);
}

void NodeHost::account_peaks() {
  if (accounted_) return;  // once per incarnation
  accounted_ = true;
  if (runtime_) {
    metrics_.peak_memory_bytes = std::max(metrics_.peak_memory_bytes, runtime_->store().peak_bytes());
    metrics_.log_copies_peak = std::max(metrics_.log_copies_peak, runtime_->store().superseded_peak_bytes());
    metrics_.inputs_missing_at_start += runtime_->inputs_missing_at_start();
  }
  metrics_.checkpoint_store_total += checkpoint_store_.total_bytes();
  metrics_.checkpoint_store_peak = std::max(metrics_.checkpoint_store_peak, checkpoint_store_.peak_bytes());
  metrics_.log_store_total += log_store_.total_bytes();
  metrics_.log_store_peak = std::max(metrics_.log_store_peak, log_store_.peak_bytes());
}

}  // namespace ftsim::node
