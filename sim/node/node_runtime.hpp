#pragma once
// NodeRuntime: the runtime of one node (StarPU-MPI-like, owner computes), as a deterministic
// state machine that does no I/O. It executes the node's share of the graph on its cores with a
// priority scheduler, holds data versions in a VersionStore, and sends the transfers of the
// transfer plan when the versions they carry are produced. The services it needs (start a task,
// send a message) are asked of a RuntimeServices implementation.
//
// Readiness of a waiting task = its unfinished local predecessors (any dependency type) plus the
// versions it reads that the node does not hold and no unfinished local task will produce.
// Arriving versions and completing predecessors decrement that count. rebuild() recomputes it
// from the current state, which is how every recovery (rollback, restart, re-execution) resumes.
#include <cstdint>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphs/task_graph.hpp"
#include "sim/node/message.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/task_table.hpp"
#include "sim/node/test_faults.hpp"
#include "sim/node/version_store.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::node {

// What the runtime of one node asks of its host (the node host, or a test's fake).
class RuntimeServices {
public:
  virtual ~RuntimeServices() = default;
  virtual void start_task(TaskId task) = 0;
  virtual void cancel_task(TaskId task) = 0;
  // `writer`: the task that produced the version when the caller knows it (its own task's
  // outputs), else graphs::kNone (looked up: a cache miss at scale).
  virtual void send_data(NodeId to, HandleId handle, Version version, Digest digest, Traffic traffic,
                         TaskId writer) = 0;
  virtual void task_completed(TaskId task, bool first_execution) = 0;
  // A protocol veto on starting a task now (e.g. a checkpoint in progress); see NodeRuntime::retry().
  virtual bool may_start(TaskId task) = 0;
  // Simulation backends decide which ready tasks start once every event of the current instant is
  // known (docs/runtime.md, "Simultaneous events"): the runtime then asks for a dispatch and
  // its host calls NodeRuntime::flush_dispatch() at the end of the instant. A real execution
  // (MPI) dispatches at once.
  virtual bool defers_dispatch() { return false; }
  virtual void dispatch_requested() {}
  // Real contents (MPI backend; a simulation has none): a handle's initial value, as the job's
  // input gives it, and what the execution of `task` that just finished wrote to `h`.
  virtual ContentRef initial_content(HandleId) { return nullptr; }
  virtual ContentRef output_content(TaskId, HandleId) { return nullptr; }
};

// What a checkpoint or a rollback keeps of a node: its finished tasks and the versions it holds
// (with their digests). It is content: it travels encoded to a buddy or to stable storage.
struct NodeSnapshot {
  std::vector<std::uint8_t> done;  // per task of the node, in tasks_of(node) order
  std::unordered_map<std::uint64_t, VersionStore::Entry> store;
  std::uint64_t bytes = 0;         // live data: what saving it costs

  void encode(WireWriter& out) const;
  static NodeSnapshot decode(WireReader& in);
};

// The versions a node holds, for a recovery planner (task states it reads with status()).
struct NodeInventory {
  std::vector<std::uint64_t> held;  // VersionStore keys, sorted
};

// A cache hint for NodeRuntime::hint: what the node will be asked soon.
//   task_end: `task` ends next (its state, accesses and successors, and the accesses of the task
//     the next dispatch would start);
//   task_versions: the versions `task` reads and writes, in this node's table (once its accesses
//     are in cache: task_end, an event earlier);
//   next_ready_entries: the per-task entries of the task the next dispatch would start;
//   send_done: the count of sends in flight of `handle`; version: the slot of (handle, version).
struct RuntimeHint {
  enum class Kind : std::uint8_t { task_end, task_versions, next_ready_entries, send_done, version };
  Kind kind = Kind::task_end;
  TaskId task = 0;
  HandleId handle = 0;
  Version version = 0;
};

class NodeRuntime {
public:
  // `test_faults`: what a test planted (test_faults.hpp); null in every real run.
  NodeRuntime(NodeId node, std::uint32_t cores, const graphs::TaskGraph& graph, const RuntimeIndex& index,
              RuntimeServices& services, TestFaults* test_faults = nullptr);

  NodeId node() const { return node_; }
  std::uint32_t cores() const { return cores_; }

  // --- lifecycle ---
  // Initial state: no task done, the node holds the initial value of the data it owns.
  NodeSnapshot initial_snapshot() const;
  NodeSnapshot snapshot() const;
  // Replaces the state (tasks done, versions held); tasks not done will send again. A task running
  // now runs on (abort() first to stop it).
  void restore(const NodeSnapshot& snapshot);
  // The node lost everything (fail-stop): no version held, nothing running.
  void wipe();
  // Cancels running tasks, empties the ready queue, forgets in-flight sends.
  void abort();
  // Recomputes the pending counts and the ready queue from the current state, then dispatches.
  void rebuild();
  // rebuild() without the dispatch. Reads and writes this node's state only: the runtimes of
  // different nodes may requeue at the same time (the start of a run does, on two threads).
  void requeue();
  // Starts ready tasks now, or asks for a dispatch at the end of the instant (RuntimeServices::defers_dispatch).
  void dispatch();
  // Sends the initial values of the transfer plan (start of a run or of a restart from scratch).
  void send_initial_values();

  // --- scheduling controls for protocols ---
  void pause() { paused_ = true; }
  void resume();
  bool paused() const { return paused_; }
  // Tasks with an id >= limit do not start (a graph cut: they are after it).
  void set_task_limit(TaskId limit);
  TaskId task_limit() const { return task_limit_; }
  // Re-examines tasks a may_start() veto put aside.
  void retry();
  // Starts ready tasks on free cores, highest priority first: the end of an instant when the
  // host defers dispatching (RuntimeServices::defers_dispatch), at once otherwise.
  void flush_dispatch();
  // Overrides a task's priority (higher first); a ready task is reordered at once.
  void set_priority(TaskId task, std::int32_t priority);
  // Write holds: no first execution overwrites h while held (e.g. a checkpoint send of its
  // current version is pending). Pin a version in the store instead for copy-on-write.
  void hold_writes(HandleId h);
  void release_writes(HandleId h);
  // A protocol activity (e.g. a checkpoint copy task) takes one core / gives it back.
  bool reserve_core();
  void release_core();

  // --- events ---
  void on_task_finished(TaskId task);
  // Cache hints, one entry point (RuntimeHint says what comes): the misses of an event overlap
  // the event before instead of stalling one after another. Changes no result.
  void hint(const RuntimeHint& hint) const;
  void on_data(HandleId h, Version v, Digest digest, ContentRef content = nullptr);
  void on_send_done(HandleId h);

  // --- recovery helpers ---
  VersionStore& store() { return store_; }
  const VersionStore& store() const { return store_; }
  // Sends (h, v) to `to` as soon as the node holds it (now if it does).
  void subscribe(HandleId h, Version v, NodeId to, Traffic traffic);
  // Marks a finished task to run again (lineage re-execution), counting it again as a reader of
  // the copies it reads; call rebuild() afterwards. Its application sends are not repeated.
  void mark_for_reexecution(TaskId task);
  NodeInventory inventory() const;
  // Reads the job's input of h again (its initial value, version 0), as a restart would.
  void reload_initial(HandleId h);
  // Reads (h, v) back from a snapshot of this node (a checkpoint copy it keeps), as a restart from
  // that checkpoint would, without changing any task state: an own version as the snapshot holds
  // it, a copy for the local readers that still need it. False if the snapshot does not hold it.
  // Call rebuild() afterwards.
  bool reload_version(const NodeSnapshot& snapshot, HandleId h, Version v);
  // The content an access of a local task reads from memory now (see VersionStore::read_content).
  ContentRef input_content(const graphs::Access& access) const;

  // --- task state (this node's tasks only) ---
  TaskStatus status(TaskId task) const { return tasks_[slot(task)].status; }
  std::uint16_t executions(TaskId task) const { return tasks_[slot(task)].executions; }
  bool executed_once(TaskId task) const { return tasks_[slot(task)].executed_once != 0; }
  // Tasks started while an input version was not in memory (a protocol bug the oracle sees).
  std::uint64_t inputs_missing_at_start() const { return inputs_missing_at_start_; }

  // --- state queries ---
  std::uint32_t running() const { return static_cast<std::uint32_t>(running_.size()); }
  std::uint32_t outgoing_in_flight() const { return outgoing_; }
  std::uint64_t remaining_tasks() const { return remaining_; }
  // Quiescent: nothing running and every message it sent delivered.
  bool quiescent() const { return running_.empty() && outgoing_ == 0; }
  // All tasks before `limit` (in submission order) are done.
  bool done_before(TaskId limit) const;
  // For stall reports: why a waiting task waits.
  std::string describe_wait(TaskId task) const;
  std::vector<TaskId> waiting_sample(std::size_t count) const;

private:
  void prefetch_task_end(TaskId task) const;
  void prefetch_task_versions(TaskId task) const;
  void prefetch_next_ready_entries() const;
  struct ReadyEntry {
    std::int32_t priority;
    TaskId task;
    std::uint32_t slot;  // slot(task): its state is read as it comes up, without a lookup that misses
    bool operator<(const ReadyEntry& other) const {
      // Highest priority first, then submission order.
      return priority != other.priority ? priority < other.priority : task > other.task;
    }
  };
  bool input_missing(TaskId task, const graphs::Access& access) const;
  void requeue_none_started();  // requeue() when no task has run or is running
  void send(NodeId to, HandleId h, Version v, Traffic traffic, TaskId writer = graphs::kNone);
  void send_subscribers(HandleId h, Version v);
  void forget_schedule();
  void plant_stale_version(const NodeSnapshot& snapshot);
  void make_ready(TaskId task);
  void queue_ready(TaskId task, std::int32_t priority) { ready_.push({priority, task, slot(task)}); }
  std::int32_t priority(TaskId task) const {
    return priority_override_.empty() ? graph_.priority(task) : priority_override_[slot(task)];
  }
  void dispatch_now();
  bool write_held(TaskId task) const;
  void produce_outputs(TaskId task, Digest inputs, bool first_execution);
  std::uint32_t local_readers_not_done(HandleId h, Version v) const;
  std::uint32_t slot(TaskId t) const { return index_.local_slot(t); }
  TaskStatus& status_of(TaskId t) { return tasks_[slot(t)].status; }

  NodeId node_;
  std::uint32_t cores_;
  const graphs::TaskGraph& graph_;
  const RuntimeIndex& index_;
  RuntimeServices& services_;
  TestFaults* test_faults_;
  TaskTable tasks_;
  std::vector<std::uint8_t> done_flags_;  // status == done, per task: what a snapshot copies

  VersionStore store_;
  std::priority_queue<ReadyEntry> ready_;
  // Tasks on a core, with the digest of the inputs they read when they started (a task reads
  // its inputs as it starts; its outputs' digests are derived from them as it ends).
  struct RunningTask {
    TaskId task;
    Digest inputs;
  };
  std::vector<RunningTask> running_;
  std::vector<TaskId> set_aside_;                            // vetoed or write hold: retried often
  std::vector<TaskId> beyond_limit_;                         // after the task limit: retried when it moves
  FlatMap64<std::uint32_t> sending_;                         // in-flight sends and protocol write holds per handle
  std::uint32_t protocol_cores_ = 0;                         // cores taken by protocol activities
  std::uint64_t inputs_missing_at_start_ = 0;
  std::uint32_t outgoing_ = 0;
  std::uint64_t remaining_ = 0;                              // tasks of the node not done
  std::unordered_map<std::uint64_t, std::vector<std::pair<NodeId, Traffic>>> subscriptions_;
  bool paused_ = false;
  bool dispatch_requested_ = false;
  TaskId task_limit_ = graphs::kNone;
  mutable std::size_t done_cursor_ = 0;
  std::vector<std::int32_t> priority_override_;  // per local task, once a protocol overrides one
};

}  // namespace ftsim::node
