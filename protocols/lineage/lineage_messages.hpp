#pragma once
// The lineage protocol's control messages, one struct each whose fields() lists its fields once
// (sim/node/codec.hpp: node::encode, node::decode<T>). The encoded bytes count in a message's
// simulated size: change the order or width of the fields only on purpose. Who sends what, and
// why, is in lineage_protocol.hpp.
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/node/codec.hpp"

namespace ftsim::protocols::lineage::messages {

enum MessageType : std::uint32_t {
  kInventoryRequest = 1,  // coordinator -> node: report your state for round r (a Round)
  kInventory,             // node -> coordinator: task states and versions held (an Inventory)
  kPlan,                  // coordinator -> node: what to re-execute, re-send, reload (a Plan)
  kApplied,               // node -> coordinator: plan r applied (its re-executions counted) (a Round)
  kGo,                    // coordinator -> nodes: every node applied plan r: re-send (a Round)
  kRecomputed,            // node -> coordinator: the re-executions of round r have run (a Round)
};

enum TaskState : std::uint8_t { kNeverRan = 0, kTaskDone = 1, kToRunAgain = 2 };

// The messages that carry a round number and nothing else.
struct Round {
  std::uint32_t round = 0;
  template <class F> void fields(F& f) { f(round); }
};

struct Inventory {
  std::uint32_t round = 0;
  bool fresh = false;                // a replacement given no plan yet: holds and knows nothing
  std::vector<std::uint8_t> state;   // not fresh: per local task, a TaskState
  std::vector<std::uint64_t> held;   // not fresh: the VersionStore keys it holds, sorted
  template <class F> void fields(F& f) {
    f(round, fresh);
    if (!fresh) f(state, held);
  }
};

// A recovery re-send: version (handle, version) to node `to`.
struct Send {
  graphs::HandleId handle;
  graphs::Version version;
  graphs::NodeId to;
  template <class F> void fields(F& f) { f(handle, version, to); }
};

// A node's part of a recovery plan.
struct Plan {
  std::uint32_t round = 0;
  bool replacement = false;                // the node is a replacement: tasks not listed count as done
  std::vector<graphs::TaskId> run;         // tasks to (re-)execute
  std::vector<Send> sends;                 // versions to send once held
  std::vector<graphs::HandleId> reloads;   // initial values to read again
  template <class F> void fields(F& f) { f(round, replacement, run, sends, reloads); }
};

}  // namespace ftsim::protocols::lineage::messages
