#pragma once
// What MPI ranks send each other, on one tag of one communicator so that MPI's non-overtaking
// rule keeps every pair of ranks FIFO (the channel semantics of sim/core). A packet is a kind
// byte and its fields, encoded with the same wire format as control messages; a host message
// carries a core::Message whole, with the real content of a data version inline.
#include <cstdint>

#include "sim/node/message.hpp"
#include "sim/node/run_metrics.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::mpi {

enum class PacketKind : std::uint8_t {
  host_message,    // a message between node hosts (nodes, coordinator)
  // driver -> rank
  fail,            // fail-stop now: {incarnation, failure index}
  notice,          // a failure notice: {node, incarnation, sequence}
  replace,         // start a replacement host: {incarnation, last notice sequence}
  storage_done,    // {incarnation, token, found, bytes, content}
  status_query,    // {round}
  finish,          // {complete}: stop and send the results
  // rank -> driver
  storage_write,   // {incarnation, server, key, bytes, token, content}
  storage_read,    // {incarnation, server, key, token}
  storage_erase,   // {server, key}
  status,          // {round, finished, sent, received, busy, remaining}
  failure_effect,  // {node, incarnation, effect}
  recovered,       // {node, incarnation}
  checkpoint,      // a CheckpointRecord
  fail_run,        // {reason}
  task_count,      // {node}: the node reached a task count at which a failure is configured
  results,         // a rank's share of the results
};

// What a rank tells the termination detection.
struct RankStatus {
  bool finished = false;       // its host is up and has nothing left to do
  std::uint64_t sent = 0, received = 0;  // counted packets (see packet.hpp)
  std::uint64_t busy = 0;      // kernels, activities and timers pending: things that happen by themselves
  std::uint64_t remaining = 0;  // tasks not done
  double last_completion = 0;  // when its last task finished
};

// Packets counted by the termination detection (all but the detection's own).
inline bool counted(PacketKind kind) { return kind != PacketKind::status_query && kind != PacketKind::status; }

// A packet of that kind with no field yet (append them with a WireWriter).
inline core::Bytes packet_of(PacketKind kind) { return core::Bytes{static_cast<std::uint8_t>(kind)}; }

void encode_message(core::WireWriter& out, const core::Message& m);
core::Message decode_message(core::WireReader& in);

void encode_metrics(core::WireWriter& out, const core::NodeMetrics& m);
core::NodeMetrics decode_metrics(core::WireReader& in);

void encode_effect(core::WireWriter& out, const core::FailureEffect& e);
core::FailureEffect decode_effect(core::WireReader& in);

void encode_string(core::WireWriter& out, const std::string& text);
std::string decode_string(core::WireReader& in);

}  // namespace ftsim::mpi
