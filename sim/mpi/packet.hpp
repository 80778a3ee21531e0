#pragma once
// What MPI ranks send each other, on one tag of one communicator so that MPI's non-overtaking
// rule keeps every pair of ranks FIFO (the channel semantics of sim/core). A packet is a kind
// byte and its fields: one struct per kind, whose fields() lists them once (sim/node/codec.hpp,
// the convention of control messages); a host message carries a node::Message whole, with the
// real content of a data version inline.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/config/run_config.hpp"
#include "sim/node/codec.hpp"
#include "sim/node/message.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/run_metrics.hpp"

namespace ftsim::mpi {

enum class PacketKind : std::uint8_t {
  host_message,    // a message between node hosts (nodes, coordinator)
  // driver -> rank
  fail,            // fail-stop now
  notice,          // a failure notice
  replace,         // start a replacement host
  storage_done,    // a storage request answered
  status_query,    // a termination round
  finish,          // stop and send the results
  // rank -> driver
  storage_write,
  storage_read,
  storage_erase,
  status,          // the answer to a status query
  failure_effect,
  recovered,
  checkpoint,
  fail_run,
  task_count,      // the node reached a task count at which a failure is configured
  results,         // a rank's share of the results
};

// What a rank tells the termination detection.
struct RankStatus {
  bool finished = false;       // its host is up and has nothing left to do
  std::uint64_t sent = 0, received = 0;  // counted packets (see packet.hpp)
  std::uint64_t busy = 0;      // kernels, activities and timers pending: things that happen by themselves
  std::uint64_t remaining = 0;  // tasks not done
  double last_completion = 0;  // when its last task finished
  template <class F> void fields(F& f) { f(finished, sent, received, busy, remaining, last_completion); }
};

// Packets counted by the termination detection (all but the detection's own).
inline bool counted(PacketKind kind) { return kind != PacketKind::status_query && kind != PacketKind::status; }

// A node::Message's header words, through header_word() and set_header(): a u32 count, then the words.
struct HeaderWords {
  node::Message& m;
  void write_to(node::Encoder& out) const {
    out(m.header_words);
    for (std::uint32_t word = 0; word < m.header_words; ++word) out(m.header_word(word));
  }
  void read_from(node::Decoder& in) {
    std::uint32_t words = 0;
    in(words);
    for (std::uint32_t word = 0; word < words; ++word) {
      std::uint32_t value = 0;
      in(value);
      m.set_header(word, value);
    }
  }
};

struct HostMessage {
  static constexpr PacketKind kind = PacketKind::host_message;
  node::Message message;
  template <class F> void fields(F& f) {
    node::Message& m = message;
    f(m.source, m.destination, m.bytes, node::bounded(m.traffic, node::kTrafficKinds), m.is_data, m.handle, m.version,
      m.digest, m.section, m.content, m.control_type, m.body, m.parts, HeaderWords{m}, m.source_incarnation,
      m.destination_incarnation, m.epoch, m.sent_at, m.sequence);
  }
};

// ---------------------------------------------------------------------------- driver -> rank

struct Fail {  // fail-stop now
  static constexpr PacketKind kind = PacketKind::fail;
  std::uint32_t incarnation = 0;
  std::uint64_t failure = 0;  // its index in the failure ledger
  bool process_only = false;  // a process failure: the node and its local storage stay
  template <class F> void fields(F& f) { f(incarnation, failure, process_only); }
};

struct Notice {
  static constexpr PacketKind kind = PacketKind::notice;
  node::FailureNotice notice;
  template <class F> void fields(F& f) { f(notice); }
};

struct Replace {  // start a replacement host
  static constexpr PacketKind kind = PacketKind::replace;
  std::uint32_t incarnation = 0;
  std::uint32_t sequence = 0;  // of the last notice issued
  template <class F> void fields(F& f) { f(incarnation, sequence); }
};

struct StorageDone {
  static constexpr PacketKind kind = PacketKind::storage_done;
  std::uint32_t incarnation = 0;  // the requester's
  std::uint64_t token = 0;
  bool read = false;
  bool found = false;
  std::uint64_t bytes = 0;
  node::Bytes content;
  template <class F> void fields(F& f) { f(incarnation, token, read, found, bytes, content); }
};

struct StatusQuery {
  static constexpr PacketKind kind = PacketKind::status_query;
  std::uint64_t round = 0;
  template <class F> void fields(F& f) { f(round); }
};

struct Finish {  // stop and send the results
  static constexpr PacketKind kind = PacketKind::finish;
  template <class F> void fields(F&) {}
};

// ---------------------------------------------------------------------------- rank -> driver

struct StorageWrite {
  static constexpr PacketKind kind = PacketKind::storage_write;
  std::uint32_t incarnation = 0, server = 0;
  std::uint64_t key = 0, bytes = 0, token = 0;
  node::Bytes content;
  template <class F> void fields(F& f) { f(incarnation, server, key, bytes, token, content); }
};

struct StorageRead {
  static constexpr PacketKind kind = PacketKind::storage_read;
  std::uint32_t incarnation = 0, server = 0;
  std::uint64_t key = 0, token = 0;
  template <class F> void fields(F& f) { f(incarnation, server, key, token); }
};

struct StorageErase {
  static constexpr PacketKind kind = PacketKind::storage_erase;
  std::uint32_t server = 0;
  std::uint64_t key = 0;
  template <class F> void fields(F& f) { f(server, key); }
};

struct Status {
  static constexpr PacketKind kind = PacketKind::status;
  std::uint64_t round = 0;
  RankStatus status;
  template <class F> void fields(F& f) { f(round, status); }
};

// Which failure a report is about: the node and its incarnation that failed.
struct FailureId {
  node::NodeId node = 0;
  std::uint32_t incarnation = 0;
  template <class F> void fields(F& f) { f(node, incarnation); }
};

struct FailureEffectReport {
  static constexpr PacketKind kind = PacketKind::failure_effect;
  FailureId failure;
  node::FailureEffect effect;
  template <class F> void fields(F& f) { f(failure, effect); }
};

struct Recovered {
  static constexpr PacketKind kind = PacketKind::recovered;
  FailureId failure;
  template <class F> void fields(F& f) { f(failure); }
};

struct Checkpoint {
  static constexpr PacketKind kind = PacketKind::checkpoint;
  node::CheckpointRecord record;
  template <class F> void fields(F& f) { f(record); }
};

struct FailRun {
  static constexpr PacketKind kind = PacketKind::fail_run;
  std::string reason;
  template <class F> void fields(F& f) { f(reason); }
};

struct TaskCount {  // the node reached a task count at which a failure is configured
  static constexpr PacketKind kind = PacketKind::task_count;
  node::NodeId node = 0;
  config::FailureClass failure_class = config::FailureClass::node;  // what the failure takes down
  template <class F> void fields(F& f) { f(node, node::bounded(failure_class, config::kFailureClasses)); }
};

// A rank's share of the results: its metrics, the effects of failures it measured, its stall
// report, the oracle's findings on its share and its final buffers.
struct Results {
  static constexpr PacketKind kind = PacketKind::results;
  node::NodeId process = 0;
  node::NodeMetrics metrics;
  double last_completion = 0;
  std::vector<std::pair<std::uint64_t, node::FailureEffect>> effects;  // by failure index
  std::string stall;
  std::vector<std::string> missing, wrong;
  std::vector<std::pair<graphs::HandleId, node::ContentRef>> finals;
  template <class F> void fields(F& f) { f(process, metrics, last_completion, effects, stall, missing, wrong, finals); }
};

// The bytes of a packet: its kind, then its fields (`capacity`: what to allocate at once).
template <class Packet> node::Bytes encode_packet(const Packet& p, std::size_t capacity = 0) {
  node::Bytes out{static_cast<std::uint8_t>(Packet::kind)};
  out.reserve(capacity);
  node::append(out, p);
  return out;
}

// A packet's fields, after its kind byte: all of them (node::WireError otherwise).
template <class Packet> Packet read_packet(node::WireReader& in) {
  Packet p = node::read<Packet>(in);
  in.expect_done();
  return p;
}

}  // namespace ftsim::mpi
