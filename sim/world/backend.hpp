#pragma once
// What a backend (SimGrid simulation, MPI execution) does for the sans-I/O core, and the events
// it reports back. The core never touches time, hosts or networks itself.
#include <cstdint>
#include <stdexcept>

#include "sim/node/message.hpp"

namespace ftsim::world {

using graphs::NodeId;
using graphs::TaskId;

// A cache hint: an event a backend will report soon. Task ends are hinted three stages deep, each
// stage fetching what the one before brought into cache points to:
//   task_entries (the third event from now): the task's own entries (per-task arrays of the graph
//     and index);
//   task_end (the second): what those point to (its state, accesses, successors, observer record);
//   task_versions (the next): the slots of the versions its accesses name, in its node's table.
// delivery: a message about to be delivered (its slot fetched a stage earlier): the channel it
//   arrives on, the sender's count of sends in flight of its handle, the receiver's version slot.
struct Upcoming {
  enum class Stage : std::uint8_t { task_entries, task_end, task_versions, delivery };
  Stage stage = Stage::task_end;
  NodeId node = 0;
  TaskId task = 0;
  const node::Message* message = nullptr;  // delivery only
};

// Events a backend delivers to the core (implemented by Simulation).
class BackendEvents {
public:
  virtual ~BackendEvents() = default;
  virtual void on_task_finished(NodeId node, TaskId task) = 0;
  // Cache hints, the one entry point for them: a backend that knows its next events names them
  // before the current one is handled (Upcoming says which and how far ahead). They only warm
  // caches; they must change nothing.
  virtual void hint(const Upcoming&) {}
  // A message reached its destination (the backend never delivers to or from a dead node).
  virtual void on_message_delivered(const node::Message& message) = 0;
  // A message was cancelled because its destination failed (the sender learns it is gone).
  virtual void on_message_lost(const node::Message& message) = 0;
  // A transfer to or from stable storage completed.
  virtual void on_storage_done(NodeId node, std::uint64_t token) = 0;
  virtual void on_timer(std::uint64_t token) = 0;
  // A transfer of a migrating rank's state to its spare host completed (migration.hpp).
  virtual void on_migration_transfer_done(NodeId, std::uint64_t) {}
  // Every event of the current instant has been reported (after request_end_of_instant()).
  virtual void on_end_of_instant() {}
};

class Backend {
public:
  virtual ~Backend() = default;
  virtual double now() const = 0;
  // Runs `task` on one core of `node` for `seconds`; reports on_task_finished.
  virtual void start_task(NodeId node, TaskId task, double seconds) = 0;
  virtual void cancel_task(NodeId node, TaskId task) = 0;
  // Sends; reports on_message_delivered. Messages to oneself are delivered without the network.
  virtual void send(node::Message message) = 0;
  // Moves bytes between a node and a stable-storage server; reports on_storage_done.
  virtual void storage_transfer(NodeId node, std::uint32_t server, std::uint64_t bytes, bool write,
                                std::uint64_t token) = 0;
  virtual std::uint32_t storage_servers() const = 0;
  virtual void set_timer(double time, std::uint64_t token) = 0;
  // Fail-stop: everything running on the node, and every message from or to it, is lost.
  virtual void fail_node(NodeId node) = 0;
  // A spare host takes the rank of a failed node.
  virtual void replace_node(NodeId node) = 0;
  // A backend that can tell when every event of an instant has been reported (a simulation)
  // calls on_end_of_instant() then, once per request; the core decides which ready tasks start
  // there, so that simultaneous events give the same schedule in whatever order they come.
  virtual bool ends_instants() const { return false; }
  virtual void request_end_of_instant() {}
  // Shrink (sim/world/shrink.hpp): the failed rank `node` restarts on the machine that runs rank
  // `host_rank`, sharing its links (the world shares its cores). False if the backend cannot.
  virtual bool rehost_node(NodeId /*node*/, NodeId /*host_rank*/) { return false; }
  // The run is over (complete or failed): cancel every activity and timer still pending.
  virtual void halt() = 0;

  // Proactive migration (sim/world/migration.hpp; only the SimGrid backend has it, the loader
  // refuses /failures/prediction elsewhere). A spare host is set aside for the rank of `node`
  // (a later replace_node of that rank takes it); bytes move from the rank's host to that spare,
  // reporting on_migration_transfer_done, and are cancelled if the rank fails; then the rank runs
  // on the spare.
  virtual bool reserve_spare_host(NodeId) { return false; }
  virtual void migration_transfer(NodeId, std::uint64_t, std::uint64_t) { throw std::logic_error("no migration on this backend"); }
  virtual void move_to_reserved_host(NodeId) { throw std::logic_error("no migration on this backend"); }
};

}  // namespace ftsim::world
