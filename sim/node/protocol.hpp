#pragma once
// The interface every fault-tolerance protocol implements (protocols/ registers them by id).
// One instance per node host, plus one for the coordinator (node id == node_count), a reliable
// manager process on a host of its own that a protocol may use for coordination. An instance
// lives and dies with its process: a node's fail-stop destroys it, and its replacement gets a
// fresh one. It acts only through its ProtocolContext and learns only from the events below:
// its own node's runtime, the messages it receives, its timers, its storage requests and the
// failure notices delivered to it (sans-I/O: events in, actions out).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sim/node/message.hpp"

namespace ftsim::node {

class ProtocolContext;

// What to do with a data message about to leave the node.
enum class SendVerdict : std::uint8_t {
  send,          // now
  hold,          // keep it in the node's send queue until the protocol calls release_held_sends()
  send_and_log,  // send now and keep a copy in the node's message log (sender-based logging)
  suppress,      // do not send at all (e.g. a re-send the receiver already has): counted
};

// What to do with a data message that arrived.
enum class ReceiveVerdict : std::uint8_t {
  accept,
  drop_duplicate,  // already received (e.g. a replay): counted, not stored
  drop_orphan,     // sent from a state that no longer exists (e.g. before a rollback): counted
  consumed,        // the protocol keeps it (e.g. checkpoint data a buddy stores): not the runtime's
  defer,           // not now (e.g. before a restore): the host keeps it, in order of arrival, until the
                   // protocol calls redeliver_deferred() (on_receive is asked again) or discard_deferred()
};

// A failure detector's notice: `node`'s incarnation `incarnation` crashed (fail-stop). Notices
// are totally ordered: `sequence` counts the detections of the run (1, 2, ...), as an agreement
// service (ULFM's MPIX_Comm_agree, a resilience manager) would number them.
struct FailureNotice {
  NodeId node = 0;
  std::uint32_t incarnation = 0;
  std::uint32_t sequence = 0;
  template <class F> void fields(F& f) { f(node, incarnation, sequence); }  // in messages (codec.hpp)
};

// What a replacement process is told when it starts: its incarnation and the last failure
// notice sequence number issued before it started (what a spawned process gets from the
// resilience manager that spawns it).
struct RestartInfo {
  std::uint32_t incarnation = 0;
  std::uint32_t last_sequence = 0;
};

class Protocol {
public:
  virtual ~Protocol() = default;

  // The run starts (every node is up, the initial values are being sent).
  virtual void on_start(ProtocolContext&) {}
  // May the node start this task now? (e.g. no while a blocking checkpoint is in progress)
  virtual bool may_start(ProtocolContext&, TaskId) { return true; }
  virtual void on_task_completed(ProtocolContext&, TaskId, bool /*first_execution*/) {}
  // A data message is about to leave: header words may be set (their bytes count).
  virtual SendVerdict on_send(ProtocolContext&, Message&) { return SendVerdict::send; }
  // A data message arrived: keep it or drop it. on_stored follows once the runtime has it.
  virtual ReceiveVerdict on_receive(ProtocolContext&, const Message&) { return ReceiveVerdict::accept; }
  virtual void on_stored(ProtocolContext&, const Message&) {}
  // A data message this node sent has left it: its buffer may be reused ("released"). This is
  // not delivery: a protocol that needs to know of delivery must ask for an acknowledgement.
  virtual void on_data_released(ProtocolContext&, const Message&) {}
  virtual void on_control(ProtocolContext&, const Message&) {}
  virtual void on_timer(ProtocolContext&, std::uint64_t /*token*/) {}
  // A stable-storage request completed; `content` is what a read returned (null for a write,
  // or for a read of a key the server does not hold).
  virtual void on_storage_done(ProtocolContext&, std::uint64_t /*token*/, const Bytes* /*content*/) {}
  // A protocol activity (ProtocolContext::run_activity) finished on a core.
  virtual void on_activity_done(ProtocolContext&, std::uint64_t /*token*/) {}
  // A failure notice, delivered after the detection latency.
  virtual void on_failure_notice(ProtocolContext&, const FailureNotice&) {}
  // This process is the replacement of a failed one (a spare took its rank): it holds nothing.
  virtual void on_restart(ProtocolContext&, const RestartInfo&) {}
  // Whether the protocol lets the run finish now that every task of the node is done.
  virtual bool finished(ProtocolContext&) { return true; }
  // What the protocol is doing on this process, in a few words ("restart: waiting for recovery
  // info from nodes 2, 5"), for the no-progress report and stall reports; empty: nothing of
  // its own (the node just runs tasks). Not called on hot paths.
  virtual std::string phase(ProtocolContext&) { return {}; }
};

// Makes the protocol instance of a new process (a node at the start, a replacement, or the
// coordinator). Each call returns a fresh object: nothing is shared between processes.
using ProtocolFactory = std::function<std::unique_ptr<Protocol>(NodeId node, bool coordinator)>;

}  // namespace ftsim::node
