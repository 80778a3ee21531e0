#pragma once
// ProtocolRuntime: what a task runtime offers a fault-tolerance protocol on its own node, and
// nothing more (what StarPU-MPI's checkpoint hooks or Kaapi's checkpoint layer can do): scheduling
// controls, its tasks' states, reading and pinning the versions in its own memory, taking and
// restoring a snapshot (checkpoint / restart) or versions from one, re-executing tasks and
// re-sending versions.
//
// It is a view over the node's NodeRuntime and deliberately narrower: no event entry point
// (on_data, on_task_finished: events reach the runtime through the node host, which counts and
// checks them), no way to add a version of the protocol's choosing to the store, and no way to
// complete a task without running it — only restore() marks tasks done, as a restart from a
// checkpoint that contains them does. The digest oracle and its executions check (every task done
// ran at least once in the run) see any misuse of restore().
#include <cstdint>
#include <unordered_map>

#include "sim/node/node_runtime.hpp"

namespace ftsim::node {

class ProtocolRuntime {
public:
  explicit ProtocolRuntime(NodeRuntime& runtime) : runtime_(runtime) {}

  // --- scheduling ---
  void pause() { runtime_.pause(); }
  void resume() { runtime_.resume(); }
  bool paused() const { return runtime_.paused(); }
  // Tasks with an id >= limit do not start (a graph cut: they are after it).
  void set_task_limit(TaskId limit) { runtime_.set_task_limit(limit); }
  TaskId task_limit() const { return runtime_.task_limit(); }
  // Re-examines tasks a may_start() veto put aside.
  void retry() { runtime_.retry(); }
  // No first execution overwrites h while held (e.g. a checkpoint send of its current version).
  void hold_writes(HandleId h) { runtime_.hold_writes(h); }
  void release_writes(HandleId h) { runtime_.release_writes(h); }
  // Overrides the priority of one of its tasks (higher first), e.g. CCK's local reordering
  // (Besseron 2006 §3.7.2); a ready task is reordered at once.
  void set_priority(TaskId task, std::int32_t priority) { runtime_.set_priority(task, priority); }

  // --- its tasks ---
  TaskStatus status(TaskId task) const { return runtime_.status(task); }
  bool executed_once(TaskId task) const { return runtime_.executed_once(task); }
  std::uint64_t remaining_tasks() const { return runtime_.remaining_tasks(); }
  // Nothing running and every message it sent delivered.
  bool quiescent() const { return runtime_.quiescent(); }
  // All its tasks before `limit` (in submission order) are done.
  bool done_before(TaskId limit) const { return runtime_.done_before(limit); }

  // --- the versions in its memory (read, and kept alive by pins) ---
  bool holds(HandleId h, Version v) const { return runtime_.store().holds(h, v); }
  const VersionStore::Map& versions() const { return runtime_.store().entries(); }
  void pin(HandleId h, Version v) { runtime_.store().pin(h, v); }
  void unpin(HandleId h, Version v) { runtime_.store().unpin(h, v); }
  NodeInventory inventory() const { return runtime_.inventory(); }

  // --- checkpoint and restart ---
  NodeSnapshot snapshot() const { return runtime_.snapshot(); }
  // The job's input: no task done, the initial values of the data it owns.
  NodeSnapshot initial_snapshot() const { return runtime_.initial_snapshot(); }
  // Its tasks done and versions held become the snapshot's (a task running now runs on).
  void restore(const NodeSnapshot& snapshot) { runtime_.restore(snapshot); }
  // Cancels running tasks, empties the ready queue, forgets in-flight sends.
  void abort() { runtime_.abort(); }
  // Recomputes what is ready from the current state, then dispatches.
  void rebuild() { runtime_.rebuild(); }
  void send_initial_values() { runtime_.send_initial_values(); }
  // Reads the job's input of h again (version 0), as a restart does.
  void reload_initial(HandleId h) { runtime_.reload_initial(h); }
  // Reads (h, v) back from a snapshot this node took (its own checkpoint copy), as a restart from
  // it would, leaving every task state as it is (e.g. CCK: a survivor re-executes tasks from its
  // copy of the last checkpoint, Besseron 2006 §3.5). False if the snapshot does not hold it.
  // Call rebuild() afterwards.
  bool reload_version(const NodeSnapshot& snapshot, HandleId h, Version v) { return runtime_.reload_version(snapshot, h, v); }

  // --- re-execution and re-sends ---
  // A finished task is to run again (call rebuild() afterwards); its application sends are not repeated.
  void mark_for_reexecution(TaskId task) { runtime_.mark_for_reexecution(task); }
  // Sends (h, v) to `to` as soon as the node holds it (now if it does).
  void subscribe(HandleId h, Version v, NodeId to, Traffic traffic) { runtime_.subscribe(h, v, to, traffic); }

private:
  NodeRuntime& runtime_;
};

}  // namespace ftsim::node
