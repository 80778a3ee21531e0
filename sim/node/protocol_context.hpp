#pragma once
// ProtocolContext: everything a protocol instance may do, bound to its own process (a node or
// the coordinator). It is abstract so that the same protocol objects run in the simulation
// (NodeHost over the world driver), in a unit test (NodeHost over a fake environment) and on an
// MPI rank. What it offers is what a real process has: its own runtime (through the narrow
// ProtocolRuntime) and memory, the job's task graph (every process of an STF runtime submits the
// whole graph), messages, stable storage, timers and cores. It offers no other node's state, no
// true liveness (only failure notices), no failure schedule (a protocol's options are read from
// the config without /failures, protocols/registry.hpp) and no run-wide metrics: the record_*
// calls report, they never read.
#include <cstdint>
#include <string>
#include <string_view>

#include "graphs/task_graph.hpp"
#include "sim/node/message.hpp"
#include "sim/node/protocol_runtime.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_store.hpp"
#include "sim/node/run_metrics.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/run_record.hpp"

namespace ftsim::node {

// The server that names a node's own local storage (an SSD, a RAM disk) in storage requests.
inline constexpr std::uint32_t kLocalStorage = 0xFFFFFFFFu;

class ProtocolContext {
public:
  virtual ~ProtocolContext() = default;

  // --- who, when, and what every process of the job knows ---
  virtual NodeId node() const = 0;
  virtual NodeId node_count() const = 0;
  NodeId coordinator() const { return node_count(); }
  bool is_coordinator() const { return node() == coordinator(); }
  virtual std::uint32_t incarnation() const = 0;
  virtual double now() const = 0;
  virtual const graphs::TaskGraph& graph() const = 0;
  virtual const RuntimeIndex& index() const = 0;
  virtual double task_seconds(TaskId task) const = 0;

  // --- its own process ---
  // What this node's runtime offers a protocol (the coordinator has none: calling it there is a
  // protocol bug).
  virtual ProtocolRuntime runtime() = 0;
  // The protocol's epoch, stamped on every message the process sends.
  virtual std::uint32_t epoch() const = 0;
  virtual void set_epoch(std::uint32_t epoch) = 0;
  // Stores the protocol owns in this process's memory.
  virtual ProtocolStore& checkpoint_store() = 0;  // checkpoint copies held for other nodes
  virtual ProtocolStore& log_store() = 0;         // logged messages

  // --- messages ---
  // A control message: `body` is the encoded content; its simulated size is the body plus the
  // envelope plus `payload_bytes` (the data it stands for, e.g. a checkpoint's content).
  // `destination_incarnation`: dropped on arrival if the destination is no longer that
  // incarnation (kAnyIncarnation: whichever holds the rank then). `parts`: immutable buffers that
  // follow the body, shared by reference, each counted as if written inline (Message::parts).
  virtual void send_control(NodeId to, std::uint32_t type, Bytes body, Traffic traffic = Traffic::control,
                            std::uint64_t payload_bytes = 0, std::uint32_t destination_incarnation = kAnyIncarnation,
                            std::vector<SharedBytes> parts = {}) = 0;
  // Sends the data messages that on_send held, in the order they were held.
  virtual void release_held_sends() = 0;
  // Sends those of the held messages to `destination` only (the others stay held, in order).
  virtual void release_held_sends_to(NodeId destination) = 0;
  // Delivers again, in order of arrival, the data messages on_receive deferred (each is offered to
  // on_receive again, and may be deferred again); or drops them (counted as orphans).
  virtual void redeliver_deferred() = 0;
  virtual void discard_deferred() = 0;

  // --- stable storage (reliable servers, numbered 0 .. storage_servers() - 1), and the node's own
  // local storage (server kLocalStorage, /platform/local_storage: it survives a process failure,
  // not the node's; no network, its own bandwidth) ---
  virtual std::uint32_t storage_servers() const = 0;
  // Writes `content` (standing for `bytes` of data) under `key`; on_storage_done(token, null).
  virtual void storage_write(std::uint32_t server, std::uint64_t key, Bytes content, std::uint64_t bytes,
                             std::uint64_t token) = 0;
  // Reads `key` back; on_storage_done(token, content or null if the server does not hold it).
  virtual void storage_read(std::uint32_t server, std::uint64_t key, std::uint64_t token) = 0;
  virtual void storage_erase(std::uint32_t server, std::uint64_t key) = 0;

  // --- time and cores ---
  // on_timer(token) after `delay`; the id returned cancels it.
  virtual std::uint64_t set_timer(double delay, std::uint64_t token) = 0;
  virtual void cancel_timer(std::uint64_t id) = 0;
  // Runs a protocol activity of `seconds` on one of the node's cores (e.g. a checkpoint copy);
  // on_activity_done(token). False if no core is free now.
  virtual bool run_activity(double seconds, std::uint64_t token) = 0;

  // --- reports (write-only) ---
  virtual ProtocolCounters& counters() = 0;
  virtual void record_failure_effect(const FailureNotice& failure, const FailureEffect& effect) = 0;
  virtual void record_recovered(const FailureNotice& failure) = 0;
  virtual void record_checkpoint(const CheckpointRecord& record) = 0;
  // Records of the protocol's phases and decisions, for the trace and the event log (ftsim run
  // --trace, --log protocol). Build their text only if recording() is true.
  virtual bool recording() const = 0;
  // A decision (one line of the event log; also a marker in the trace if `trace_category` is set).
  virtual void note(std::string_view text, const char* trace_category = "") = 0;
  // A phase of the protocol on this process, from `start` to now (a span in the trace).
  virtual void record_span(std::string_view name, const char* category, double start) = 0;
  // The state of this process now is its checkpoint `checkpoint` (its local snapshot: the events
  // it had before are in it, those after are not), for checkpoint traces (ftsim run
  // --checkpoint-trace, the recovery-line analysis). Cheap when nothing records.
  virtual void record_local_checkpoint(std::uint32_t checkpoint) = 0;
  // A data message this process sent to `destination`, of (handle, version), is now kept (`logged`)
  // or no longer kept in a log it can replay: its `logged` flag in checkpoint traces becomes that
  // (a protocol that decides on logging only once the receiver has answered, e.g. Guermouche 2011,
  // where the sender keeps every message until its acknowledgement tells whether it must stay).
  // Cheap when nothing records.
  virtual void record_log_change(NodeId destination, HandleId handle, Version version, bool logged) = 0;
  // Aborts the whole job (MPI_Abort): the run fails (exit code 1) with this reason.
  virtual void fail_run(const std::string& reason) = 0;
  // The protocol's own work may have ended: let the driver re-examine whether the run is over.
  virtual void check_completion() = 0;
};

}  // namespace ftsim::node
