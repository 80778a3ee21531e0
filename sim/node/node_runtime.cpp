#include "sim/node/node_runtime.hpp"

#include "graphs/huge_pages.hpp"

#include <algorithm>
#include <sstream>


namespace ftsim::node {

using graphs::Access;
using graphs::AccessMode;

// ----------------------------------------------------------------------------- snapshots

void NodeSnapshot::encode(WireWriter& out) const {
  out.u64(done.size());
  out.u8s(done.data(), done.size());  // at every checkpoint: a byte per task of the node
  std::vector<std::uint64_t> keys;
  keys.reserve(store.size());
  for (const auto& [key, entry] : store) keys.push_back(key);
  std::sort(keys.begin(), keys.end());  // the same bytes for the same content
  out.u64(keys.size());
  std::size_t contents = 0;
  for (const auto& [key, entry] : store) contents += entry.content ? entry.content->size() : 0;
  out.reserve(keys.size() * 45 + contents + 8);
  for (std::uint64_t key : keys) {
    const VersionStore::Entry& e = store.at(key);
    out.u64(key);
    out.u64(e.bytes);
    out.u64(e.digest);
    out.u32(e.remaining_readers);
    out.u8(e.copy ? 1 : 0);
    out.content(e.content.get());
  }
  out.u64(bytes);
}

NodeSnapshot NodeSnapshot::decode(WireReader& in) {
  NodeSnapshot s;
  s.done.resize(in.count(1));
  in.u8s(s.done.data(), s.done.size());
  const std::uint64_t entries = in.count(37);
  for (std::uint64_t i = 0; i < entries; ++i) {
    const std::uint64_t key = in.u64();
    VersionStore::Entry e;
    e.bytes = in.u64();
    e.digest = in.u64();
    e.remaining_readers = in.u32();
    e.copy = in.u8() != 0;
    e.content = in.content();
    s.store.emplace(key, e);
  }
  s.bytes = in.u64();
  return s;
}

// ----------------------------------------------------------------------------- lifecycle

NodeRuntime::NodeRuntime(NodeId node, std::uint32_t cores, const graphs::TaskGraph& graph, const RuntimeIndex& index,
                         RuntimeServices& services, TestFaults* test_faults)
    : node_(node),
      cores_(cores),
      graph_(graph),
      index_(index),
      services_(services),
      test_faults_(test_faults) {
  graphs::reserve_on_huge_pages(tasks_, index.tasks_of(node).size());  // read at every task event
  tasks_.resize(index.tasks_of(node).size());
  done_flags_.assign(tasks_.size(), 0);
}

NodeSnapshot NodeRuntime::initial_snapshot() const {
  NodeSnapshot s;
  s.done.assign(index_.tasks_of(node_).size(), 0);
  for (HandleId h : index_.owned_handles(node_)) {
    VersionStore::Entry e;
    e.bytes = graph_.bytes(h);
    e.digest = initial_digest(h);
    e.content = services_.initial_content(h);
    s.store.emplace(VersionStore::key(h, 0), e);
    s.bytes += graph_.bytes(h);
  }
  return s;
}

NodeSnapshot NodeRuntime::snapshot() const {
  NodeSnapshot s;
  s.done = done_flags_;  // kept up to date at every change to or from done: a copy, not a scan
  for (const auto& [key, entry] : store_.entries()) {
    if (entry.superseded) continue;
    s.store.emplace(key, entry);
    s.bytes += entry.bytes;
  }
  return s;
}

void NodeRuntime::restore(const NodeSnapshot& snapshot) {
  remaining_ = 0;
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    TaskState& task = tasks_[i];
    if (task.status != TaskStatus::running) {  // a running task runs on (abort() first to stop it)
      task.status = snapshot.done[i] ? TaskStatus::done : TaskStatus::waiting;
      done_flags_[i] = snapshot.done[i] ? 1 : 0;
      task.executed_once = snapshot.done[i];
    }
    if (task.status != TaskStatus::done) ++remaining_;
  }
  store_.assign(snapshot.store);
  subscriptions_.clear();
  done_cursor_ = 0;
  if (test_faults_ && test_faults_->stale_recovery) plant_stale_version(snapshot);
}

void NodeRuntime::plant_stale_version(const NodeSnapshot& snapshot) {
  // Test only: a checkpoint restore that brings back a stale version of a datum still needed.
  if (std::none_of(snapshot.done.begin(), snapshot.done.end(), [](std::uint8_t d) { return d != 0; })) return;
  std::vector<std::uint64_t> keys;
  for (const auto& [key, entry] : store_.entries()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (std::uint64_t key : keys) {
    const HandleId h = VersionStore::handle_of(key);
    const Version v = VersionStore::version_of(key);
    bool needed = v == graph_.final_version(h) && graph_.version_node(h, v) == node_;
    for (TaskId r : index_.readers(h, v)) needed = needed || (graph_.node(r) == node_ && status(r) != TaskStatus::done);
    if (!needed) continue;
    store_.corrupt(h, v);
    ++test_faults_->fired;
    return;
  }
}

void NodeRuntime::forget_schedule() {
  running_.clear();
  ready_ = {};
  set_aside_.clear();
  beyond_limit_.clear();
  sending_.clear();
  outgoing_ = 0;
  protocol_cores_ = 0;
  subscriptions_.clear();
}

void NodeRuntime::wipe() {
  // The backend already killed what was running.
  for (const RunningTask& r : running_) status_of(r.task) = TaskStatus::waiting;
  forget_schedule();
  store_.clear();
  paused_ = false;
}

void NodeRuntime::abort() {
  for (const RunningTask& r : running_) {
    services_.cancel_task(r.task);
    status_of(r.task) = TaskStatus::waiting;
  }
  forget_schedule();
}

bool NodeRuntime::input_missing(TaskId, const Access& a) const {
  const Version v = version_read(a);
  if (v > 0) {
    const TaskId writer = graph_.writer(a.handle, v);
    // Produced by an unfinished local task: that dependency is counted as an edge.
    if (graph_.node(writer) == node_ && status(writer) != TaskStatus::done) return false;
  }
  return !store_.holds(a.handle, v);
}

void NodeRuntime::rebuild() {
  requeue();
  dispatch();
}

void NodeRuntime::requeue() {
  done_cursor_ = 0;
  ready_ = {};
  set_aside_.clear();
  beyond_limit_.clear();
  remaining_ = 0;
  // At a job's start no task has run: every local predecessor and every locally produced input
  // is then pending without reading its status (two dependent misses each, on millions of tasks).
  const bool none_started = std::all_of(tasks_.begin(), tasks_.end(), [](const TaskState& s) {
    return s.status == TaskStatus::waiting || s.status == TaskStatus::ready;
  });
  if (none_started) {
    requeue_none_started();
    return;
  }
  for (TaskId t : index_.tasks_of(node_)) {
    TaskStatus& s = status_of(t);
    if (s == TaskStatus::done) continue;
    ++remaining_;
    if (s == TaskStatus::running) continue;
    std::int32_t pending = 0;
    for (TaskId p : graph_.predecessors(t)) {
      if (graph_.node(p) == node_ && status(p) != TaskStatus::done) ++pending;
    }
    for (const Access& a : graph_.accesses(t)) {
      if (graphs::reads(a.mode) && input_missing(t, a)) ++pending;
    }
    tasks_[slot(t)].pending = pending;
    s = TaskStatus::waiting;
    if (pending == 0) make_ready(t);
  }
}

void NodeRuntime::requeue_none_started() {
  const auto local = index_.tasks_of(node_);
  remaining_ = local.size();
  for (std::uint32_t i = 0; i < local.size(); ++i) {
    const TaskId t = local[i];
    std::int32_t pending = 0;
    for (TaskId p : graph_.predecessors(t)) pending += graph_.node(p) == node_;
    for (const Access& a : graph_.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const Version v = version_read(a);
      // Produced by a local task, which has not run: counted as an edge above.
      if (v > 0 && graph_.node(graph_.writer(a.handle, v)) == node_) continue;
      pending += !store_.holds(a.handle, v);
    }
    TaskState& state = tasks_[i];
    state.pending = pending;
    state.status = TaskStatus::waiting;
    done_flags_[i] = 0;
    if (pending == 0) make_ready(t);
  }
}

void NodeRuntime::send(NodeId to, HandleId h, Version v, Traffic traffic, TaskId writer) {
  ++sending_[h];
  ++outgoing_;
  Digest digest = store_.read_digest(h, v);
  if (traffic == Traffic::recovery && test_faults_) {
    if (test_faults_->stale_recovery) {
      digest = mix_digest(digest);  // test only: a re-sent version that is not what it claims to be
      ++test_faults_->fired;
    }
    if (test_faults_->replay_previous_digest) {
      // Test only: a replay that carries the digest of the version before the one it claims.
      digest = v > 0 && store_.holds(h, v - 1) ? store_.read_digest(h, v - 1) : mix_digest(digest);
      ++test_faults_->fired;
    }
  }
  services_.send_data(to, h, v, digest, traffic, writer);
}

void NodeRuntime::send_subscribers(HandleId h, Version v) {
  if (subscriptions_.empty()) return;
  auto it = subscriptions_.find(VersionStore::key(h, v));
  if (it == subscriptions_.end()) return;
  auto subscribers = std::move(it->second);
  subscriptions_.erase(it);
  for (auto [to, traffic] : subscribers) send(to, h, v, traffic);
}

void NodeRuntime::send_initial_values() {
  for (std::uint32_t id : index_.initial_sends(node_)) {
    const graphs::Transfer& x = graph_.transfers()[id];
    send(x.destination, x.handle, 0, Traffic::application);
  }
}

// ----------------------------------------------------------------------------- scheduling

void NodeRuntime::resume() {
  paused_ = false;
  retry();
}

void NodeRuntime::set_task_limit(TaskId limit) {
  task_limit_ = limit;
  for (TaskId t : beyond_limit_) {
    if (status(t) == TaskStatus::ready) queue_ready(t, priority(t));
  }
  beyond_limit_.clear();
  retry();
}

void NodeRuntime::retry() {
  for (TaskId t : set_aside_) {
    if (status(t) == TaskStatus::ready) queue_ready(t, priority(t));
  }
  set_aside_.clear();
  dispatch();
}

void NodeRuntime::hold_writes(HandleId h) { ++sending_[h]; }

void NodeRuntime::release_writes(HandleId h) {
  auto it = sending_.find(h);
  if (it != sending_.end() && it->second > 0 && --it->second == 0) sending_.erase(it);
  if (!set_aside_.empty()) retry();
}

bool NodeRuntime::reserve_core() {
  if (running_.size() + protocol_cores_ >= cores_) return false;
  ++protocol_cores_;
  return true;
}

void NodeRuntime::release_core() {
  if (protocol_cores_ > 0) --protocol_cores_;
  dispatch();
}

void NodeRuntime::make_ready(TaskId task) {
  status_of(task) = TaskStatus::ready;
  queue_ready(task, priority(task));
}

bool NodeRuntime::write_held(TaskId task) const {
  // In place: a first execution may not overwrite data that is still being sent (StarPU holds a
  // read access on data under transfer). Re-executions produce old versions beside the new ones.
  if (tasks_[slot(task)].executed_once || sending_.empty()) return false;
  for (const Access& a : graph_.accesses(task)) {
    if (!graphs::writes(a.mode)) continue;
    auto it = sending_.find(a.handle);
    if (it != sending_.end() && it->second > 0) return true;
  }
  return false;
}

void NodeRuntime::dispatch() {
  if (!services_.defers_dispatch()) {
    dispatch_now();
    return;
  }
  if (dispatch_requested_) return;
  dispatch_requested_ = true;
  services_.dispatch_requested();
}

void NodeRuntime::flush_dispatch() {
  dispatch_requested_ = false;
  dispatch_now();
}

void NodeRuntime::dispatch_now() {
  while (!paused_ && running_.size() + protocol_cores_ < cores_ && !ready_.empty()) {
    const ReadyEntry entry = ready_.top();
    const TaskId t = entry.task;
    const std::int32_t queued_at = entry.priority;
    ready_.pop();
    if (tasks_[entry.slot].status != TaskStatus::ready) continue;
    if (!priority_override_.empty() && queued_at != priority(t)) continue;  // queued before an override
    if (t >= task_limit_) {
      beyond_limit_.push_back(t);
      continue;
    }
    if (write_held(t) || !services_.may_start(t)) {
      set_aside_.push_back(t);
      continue;
    }
    // The task reads its inputs now: their digests make its outputs' (see produce_outputs).
    Digest inputs = task_seed(graph_.kernel(t), t);
    bool missing = false;
    for (const Access& a : graph_.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const Digest* held = store_.find_digest(a.handle, version_read(a));
      missing = missing || held == nullptr;
      inputs = combine_digest(inputs, held ? *held : store_.read_digest(a.handle, version_read(a)));
    }
    if (missing) ++inputs_missing_at_start_;
    tasks_[entry.slot].status = TaskStatus::running;
    running_.push_back({t, inputs});
    services_.start_task(t);
  }
}

std::uint32_t NodeRuntime::local_readers_not_done(HandleId h, Version v) const {
  std::uint32_t count = 0;
  for (TaskId r : index_.readers_on(graph_, h, v, node_)) {
    if (status(r) != TaskStatus::done) ++count;
  }
  return count;
}

void NodeRuntime::produce_outputs(TaskId task, Digest digest, bool first_execution) {
  // `digest`: what the task computed, its identity and the content it read as it found it in
  // memory when it started (a wrong or missing input changes it).
  for (const Access& a : graph_.accesses(task)) {
    if (graphs::reads(a.mode)) store_.reader_done(a.handle, version_read(a));
  }
  for (const Access& a : graph_.accesses(task)) {
    if (!graphs::writes(a.mode)) continue;
    store_.produce(a.handle, a.version, graph_.bytes(a.handle), output_digest(digest, a.handle),
                   services_.output_content(task, a.handle));
    send_subscribers(a.handle, a.version);
  }
  if (!first_execution) return;
  for (std::uint32_t id : index_.sends_after(task)) {
    const graphs::Transfer& x = graph_.transfers()[id];
    send(x.destination, x.handle, x.version, Traffic::application, task);
  }
}

// ----------------------------------------------------------------------------- events

void NodeRuntime::hint(const RuntimeHint& hint) const {
  switch (hint.kind) {
    case RuntimeHint::Kind::task_end: prefetch_task_end(hint.task); return;
    case RuntimeHint::Kind::task_versions: prefetch_task_versions(hint.task); return;
    case RuntimeHint::Kind::next_ready_entries: prefetch_next_ready_entries(); return;
    case RuntimeHint::Kind::send_done: sending_.prefetch(hint.handle); return;
    case RuntimeHint::Kind::version: store_.prefetch(hint.handle, hint.version); return;
  }
}

void NodeRuntime::prefetch_task_end(TaskId task) const {
  __builtin_prefetch(&tasks_[slot(task)]);
  __builtin_prefetch(graph_.accesses(task).data());
  __builtin_prefetch(graph_.successors(task).data());
  // The task the node would start next: its state and accesses (its entries were hinted a stage
  // earlier, by prefetch_next_ready_entries).
  if (ready_.empty()) return;
  const TaskId next = ready_.top().task;
  __builtin_prefetch(&tasks_[ready_.top().slot]);
  __builtin_prefetch(graph_.accesses(next).data());
}

void NodeRuntime::prefetch_next_ready_entries() const {
  if (ready_.empty()) return;
  const TaskId next = ready_.top().task;
  graph_.prefetch_task(next);  // its kernel (the digest seed at its start) and access offsets
  index_.prefetch_task(next);  // its slot in tasks_
}

void NodeRuntime::prefetch_task_versions(TaskId task) const {
  for (const Access& a : graph_.accesses(task)) {
    if (graphs::reads(a.mode)) store_.prefetch(a.handle, version_read(a));
    if (graphs::writes(a.mode)) {
      store_.prefetch(a.handle, a.version);
      sending_.prefetch(a.handle);  // its count of sends in flight
    }
  }
  // The task this end will likely start next: its accesses were hinted an event earlier
  // (prefetch_task_end); the versions it reads are looked up as it starts (dispatch_now).
  if (ready_.empty()) return;
  const TaskId next = ready_.top().task;
  for (const Access& a : graph_.accesses(next)) {
    if (graphs::reads(a.mode)) store_.prefetch(a.handle, version_read(a));
  }
}

void NodeRuntime::on_task_finished(TaskId task) {
  auto it = std::find_if(running_.begin(), running_.end(), [task](const RunningTask& r) { return r.task == task; });
  if (it == running_.end()) return;  // cancelled meanwhile
  const Digest inputs = it->inputs;
  *it = running_.back();
  running_.pop_back();

  TaskState& state = tasks_[slot(task)];
  const bool first_execution = !state.executed_once;
  state.status = TaskStatus::done;
  done_flags_[slot(task)] = 1;
  state.executed_once = 1;
  ++state.executions;
  --remaining_;
  produce_outputs(task, inputs, first_execution);
  for (TaskId succ : graph_.successors(task)) {
    if (graph_.node(succ) != node_) continue;
    TaskState& next = tasks_[slot(succ)];
    if (next.status == TaskStatus::waiting && --next.pending == 0) make_ready(succ);
  }
  services_.task_completed(task, first_execution);
  dispatch();
}

void NodeRuntime::reload_initial(HandleId h) {
  store_.add_own(h, 0, graph_.bytes(h), initial_digest(h), services_.initial_content(h));
}

bool NodeRuntime::reload_version(const NodeSnapshot& snapshot, HandleId h, Version v) {
  auto it = snapshot.store.find(VersionStore::key(h, v));
  if (it == snapshot.store.end()) return false;
  if (store_.holds(h, v)) return true;
  const VersionStore::Entry& e = it->second;
  if (graph_.version_node(h, v) == node_) {
    store_.add_own(h, v, e.bytes, e.digest, e.content);
  } else {
    store_.add_copy(h, v, e.bytes, local_readers_not_done(h, v), e.digest, e.content);
  }
  return true;
}

ContentRef NodeRuntime::input_content(const Access& a) const { return store_.read_content(a.handle, version_read(a)); }

void NodeRuntime::on_data(HandleId h, Version v, Digest digest, ContentRef content) {
  if (store_.holds(h, v)) return;  // a duplicate (e.g. re-sent during a recovery)
  const bool own = graph_.version_node(h, v) == node_;
  if (own) {
    store_.add_own(h, v, graph_.bytes(h), digest, std::move(content));
  } else {
    store_.add_copy(h, v, graph_.bytes(h), local_readers_not_done(h, v), digest, std::move(content));
  }
  const TaskId writer = v == 0 ? graphs::kNone : graph_.writer(h, v);
  const bool produced_here_later =
      writer != graphs::kNone && graph_.node(writer) == node_ && status(writer) != TaskStatus::done;
  if (!produced_here_later) {
    for (TaskId r : index_.readers_on(graph_, h, v, node_)) {
      TaskState& reader = tasks_[slot(r)];
      if (reader.status == TaskStatus::waiting && --reader.pending == 0) make_ready(r);
    }
  }
  send_subscribers(h, v);
  dispatch();
}

void NodeRuntime::set_priority(TaskId task, std::int32_t priority) {
  if (priority_override_.empty()) {
    const auto local = index_.tasks_of(node_);
    priority_override_.resize(local.size());
    for (std::size_t i = 0; i < local.size(); ++i) priority_override_[i] = graph_.priority(local[i]);
  }
  if (priority_override_[slot(task)] == priority) return;
  priority_override_[slot(task)] = priority;
  if (status(task) == TaskStatus::ready) {
    queue_ready(task, priority);  // the entry at the old priority is skipped when it comes up
    dispatch();
  }
}

void NodeRuntime::on_send_done(HandleId h) {
  auto it = sending_.find(h);
  if (it != sending_.end() && it->second > 0 && --it->second == 0) sending_.erase(it);
  if (outgoing_ > 0) --outgoing_;
  if (!set_aside_.empty()) retry();
}

// ----------------------------------------------------------------------------- recovery helpers

void NodeRuntime::subscribe(HandleId h, Version v, NodeId to, Traffic traffic) {
  if (store_.holds(h, v)) {
    send(to, h, v, traffic);
  } else {
    subscriptions_[VersionStore::key(h, v)].emplace_back(to, traffic);
  }
}

void NodeRuntime::mark_for_reexecution(TaskId task) {
  TaskStatus& s = status_of(task);
  if (s != TaskStatus::done) return;
  s = TaskStatus::waiting;
  done_flags_[slot(task)] = 0;
  ++remaining_;
  // The copies it reads must live until it has run again.
  for (const Access& a : graph_.accesses(task)) {
    if (graphs::reads(a.mode)) store_.reader_added(a.handle, version_read(a));
  }
}

NodeInventory NodeRuntime::inventory() const {
  NodeInventory inventory;
  inventory.held.reserve(store_.size());
  for (const auto& [key, entry] : store_.entries()) inventory.held.push_back(key);
  std::sort(inventory.held.begin(), inventory.held.end());
  return inventory;
}

bool NodeRuntime::done_before(TaskId limit) const {
  // Tasks before the cursor are known done (reset whenever tasks may become undone).
  const auto local = index_.tasks_of(node_);
  while (done_cursor_ < local.size() && tasks_[done_cursor_].status == TaskStatus::done) ++done_cursor_;
  return done_cursor_ == local.size() || local[done_cursor_] >= limit;
}

std::vector<TaskId> NodeRuntime::waiting_sample(std::size_t count) const {
  std::vector<TaskId> sample;
  for (TaskId t : index_.tasks_of(node_)) {
    if (status(t) == TaskStatus::done) continue;
    sample.push_back(t);
    if (sample.size() >= count) break;
  }
  return sample;
}

std::string NodeRuntime::describe_wait(TaskId task) const {
  std::ostringstream out;
  out << graph_.task_name(task) << " [";
  switch (status(task)) {
    case TaskStatus::waiting: out << "waiting"; break;
    case TaskStatus::ready: out << (paused_ ? "ready, node paused" : task >= task_limit_ ? "ready, after the current cut" : "ready, held"); break;
    case TaskStatus::running: out << "running"; break;
    case TaskStatus::done: out << "done"; break;
  }
  out << "]";
  bool first = true;
  auto item = [&](const std::string& text) {
    out << (first ? ": " : ", ") << text;
    first = false;
  };
  for (TaskId p : graph_.predecessors(task)) {
    if (graph_.node(p) == node_ && status(p) != TaskStatus::done) item("task " + graph_.task_name(p));
  }
  for (const Access& a : graph_.accesses(task)) {
    if (graphs::reads(a.mode) && input_missing(task, a)) {
      const Version v = version_read(a);
      item("data " + graph_.handle_name(a.handle) + " v" + std::to_string(v) + " from node " +
           std::to_string(graph_.version_node(a.handle, v)));
    }
  }
  return out.str();
}

}  // namespace ftsim::node
