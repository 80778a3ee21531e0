#pragma once
// The interface every fault-tolerance protocol implements (protocols/ registers them by id).
// One instance per node, plus one for the coordinator (node id == node_count), a reliable
// manager process on its own host that protocols may use for coordination (the global
// checkpoint commit, the lineage recovery planner). An instance talks to the system only
// through its ProtocolContext.
#include <cstdint>
#include <memory>
#include <string>

#include "sim/core/message.hpp"

namespace ftsim::core {

class ProtocolContext;

class Protocol {
public:
  virtual ~Protocol() = default;

  // The run starts (every node is up, the initial values are being sent).
  virtual void on_start(ProtocolContext&) {}
  // May the node start this task now? (e.g. no while a blocking checkpoint is in progress)
  virtual bool may_start(ProtocolContext&, TaskId) { return true; }
  virtual void on_task_completed(ProtocolContext&, TaskId, bool /*first_execution*/) {}
  // A data message is about to leave / has arrived (headers may be read or set).
  virtual void on_send(ProtocolContext&, Message&) {}
  virtual void on_receive(ProtocolContext&, const Message&) {}
  // A data message this node sent has left it (delivered, lost with its destination, or
  // buffered for a rank being replaced).
  virtual void on_data_sent(ProtocolContext&, const Message&) {}
  virtual void on_control(ProtocolContext&, const Message&) {}
  virtual void on_timer(ProtocolContext&, std::uint64_t /*token*/) {}
  virtual void on_storage_done(ProtocolContext&, std::uint64_t /*token*/) {}
  // A failure notice: `failed` crashed (fail-stop); delivered after the detection latency.
  virtual void on_failure_detected(ProtocolContext&, NodeId /*failed*/) {}
  // This node is the replacement of a failed one (a spare took its rank), with no state.
  virtual void on_restart(ProtocolContext&) {}
  // Whether the protocol lets the run finish now that every task is done.
  virtual bool finished(ProtocolContext&) { return true; }
};

}  // namespace ftsim::core
