#pragma once
// Messages between processes (node hosts and the coordinator). Data messages carry one version
// of a data handle with its digest; control messages carry a protocol's encoded bytes (see
// wire.hpp). Every message has its simulated size: payload, an envelope (StarPU-MPI sends 32
// bytes with each message) and the protocol header words it piggybacks.
#include <array>
#include <cstdint>

#include "graphs/ids.hpp"
#include "sim/core/content.hpp"
#include "sim/core/digest.hpp"
#include "sim/core/wire.hpp"

namespace ftsim::core {

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
inline constexpr std::size_t kMaxHeaderWords = 4;

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
  // Protocol header words piggybacked on data messages (epoch, date, phase...): 4 bytes each.
  std::array<std::uint32_t, kMaxHeaderWords> header{};
  std::uint8_t header_words = 0;
  // Envelope: stale messages (from a dead incarnation, to one that is gone, or from an older
  // epoch) are recognised by these.
  std::uint32_t source_incarnation = 0;
  std::uint32_t destination_incarnation = kAnyIncarnation;
  std::uint32_t epoch = 0;
  double sent_at = 0;         // when it left its node (for traces)
  std::uint64_t sequence = 0;  // position in its channel (FIFO per ordered pair), set by the driver
};

// A sender-based message log's entry for a data message, by reference: destination, handle,
// version and digest (the version stays in memory; no copy of the payload).
Bytes log_record(const Message& m);

}  // namespace ftsim::core
