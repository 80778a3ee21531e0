#pragma once
// Messages between processes (node hosts and the coordinator). Data messages carry one version
// of a data handle with its digest; control messages carry a protocol's encoded bytes (see
// wire.hpp). Every message has its simulated size: payload, an envelope (StarPU-MPI sends 32
// bytes with each message) and the protocol header words it piggybacks.
#include <array>
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/node/content.hpp"
#include "sim/node/digest.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::node {

using graphs::HandleId;
using graphs::NodeId;
using graphs::TaskId;
using graphs::Version;

// Why bytes moved, for the accounting of results.json.
enum class Traffic : std::uint8_t {
  application,  // a transfer of the graph's transfer plan
  recovery,     // data re-sent to repair a failure (replay, lineage re-send)
  checkpoint,   // checkpoint data to a buddy or to stable storage
  restore,      // checkpoint data read back on restart
  control,      // protocol service messages (requests, acks, commits, plans)
};
const char* to_string(Traffic traffic);

inline constexpr std::uint32_t kAnyIncarnation = 0xffffffffu;
// Header words kept inside the message (more go to Message::header_more, allocated only then).
inline constexpr std::size_t kInlineHeaderWords = 4;

struct Message {
  NodeId source = 0;
  NodeId destination = 0;
  std::uint64_t bytes = 0;  // simulated size, envelope and header words included
  Traffic traffic = Traffic::application;
  bool is_data = true;
  // Data: which version of which handle, its content's digest, and the section (checkpoint
  // interval) of the task that produced it.
  HandleId handle = graphs::kNone;
  Version version = 0;
  Digest digest = 0;
  std::uint32_t section = 0;
  ContentRef content;  // the real buffer (MPI backend); null in a simulation
  // Control: protocol-defined type and encoded content.
  std::uint32_t control_type = 0;
  Bytes body;
  // Control: immutable buffers that follow the body, shared by reference with the messages that
  // carry the same ones (see SharedBytes); counted in `bytes` as if written inline. Empty (no
  // allocation) for every message but those that forward received buffers.
  std::vector<SharedBytes> parts;
  // Protocol header words piggybacked on data messages (epoch, date, phase, a vector...): any
  // number, 4 bytes each in the message's size. The first kInlineHeaderWords live in `header`.
  std::array<std::uint32_t, kInlineHeaderWords> header{};
  std::vector<std::uint32_t> header_more;
  std::uint32_t header_words = 0;

  void set_header(std::size_t word, std::uint32_t value) {
    if (word >= header_words) header_words = static_cast<std::uint32_t>(word + 1);
    if (word < kInlineHeaderWords) {
      header[word] = value;
      return;
    }
    if (header_more.size() <= word - kInlineHeaderWords) header_more.resize(word - kInlineHeaderWords + 1, 0);
    header_more[word - kInlineHeaderWords] = value;
  }
  std::uint32_t header_word(std::size_t word) const {
    if (word < kInlineHeaderWords) return header[word];
    const std::size_t more = word - kInlineHeaderWords;
    return more < header_more.size() ? header_more[more] : 0;
  }
  // Envelope: stale messages (from a dead incarnation, to one that is gone, or from an older
  // epoch) are recognised by these.
  std::uint32_t source_incarnation = 0;
  std::uint32_t destination_incarnation = kAnyIncarnation;
  std::uint32_t epoch = 0;
  double sent_at = 0;         // when it left its node (for traces)
  std::uint64_t id = 0;       // a data message's number in the run, set by the world (checkpoint traces)
  bool logged = false;        // its sender keeps it in a log it can replay (send_and_log, or the protocol's own)
  std::uint64_t sequence = 0;  // position in its channel (FIFO per ordered pair), set by the driver
  // Its order in its sender's send queue (send_queue.hpp; only with /platform/network/send_window):
  // higher leaves first. Application data: its first reader's task priority on the destination.
  std::int32_t priority = 0;
};

// A sender-based message log's entry for a data message, by reference: destination, handle,
// version and digest (the version stays in memory; no copy of the payload).
Bytes log_record(const Message& m);

}  // namespace ftsim::node
