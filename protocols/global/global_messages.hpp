#pragma once
// The global protocol's control messages: one type number each and one struct for their content,
// whose fields() lists each type's own fields once (sim/node/codec.hpp). The encoded bytes count in
// a message's simulated size: change the order or width of the fields only on purpose.
// Who sends what, and why, is in global_protocol.hpp.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/node/codec.hpp"
#include "sim/node/message.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::global::messages {

using node::Bytes;
using node::FailureNotice;
using node::Message;
using node::NodeId;

enum MessageType : std::uint32_t {
  kRequest = 1,     // coordinator -> nodes: stop for checkpoint k
  kReady,           // node -> coordinator: stopped; data messages sent per node in this epoch
  kSave,            // coordinator -> node: save checkpoint k once you received `count` messages
  kSaved,           // node -> coordinator: checkpoint k saved and acknowledged
  kCommit,          // coordinator -> nodes: checkpoint k is valid, resume
  kRecover,         // coordinator -> nodes: restore checkpoint k (0: the start) for epoch e
  kRestored,        // node -> coordinator: restored for epoch e
  kResume,          // coordinator -> nodes: every node restored for epoch e, resume
  kCheckpointData,  // node -> buddy: the content of checkpoint k
  kCheckpointAck,   // buddy -> node: stored
  kRestoreRequest,  // replacement -> buddy: send my checkpoint k back
  kRestoreData,     // buddy -> replacement: the content of checkpoint k
  kNotHeld,         // buddy -> replacement: I do not hold checkpoint k of yours
  kLost,            // replacement -> coordinator (levels): checkpoint k is lost at every level I can reach
  kXorBlock,        // node -> XOR set member: one block of checkpoint k, for its parity
  kXorRequest,      // replacement -> XOR set members: rebuild my checkpoint k
  kXorPieces,       // member -> replacement: its checkpoint k and its parity block of it
  kXorNotHeld,      // member -> replacement: I hold no checkpoint k (or no parity of it)
  kXorParityBlock,  // member -> replacement that restored k from another level: its block for the replacement's parity
};

// The content of every message type (each type encodes only its own fields).
struct Control {
  std::uint32_t checkpoint = 0;
  std::uint32_t epoch = 0;
  std::uint64_t count = 0;                              // kSave: messages; kSaved, kCheckpointData, kXor*: bytes;
                                                        // kXorRequest: 1 to ask for the parity blocks only
  std::vector<std::pair<NodeId, std::uint64_t>> sent;   // kReady
  FailureNotice cause{};                                // kRecover
  Bytes snapshot;                                       // kCheckpointData, kRestoreData, kXorBlock, kXorPieces
  std::uint64_t length = 0;                             // kXorBlock: the length of the checkpoint it is cut from
  Bytes parity;                                         // kXorPieces: xor_code::Parity, encoded

  template <class F> void fields(F& f, std::uint32_t type) {
    f(checkpoint, epoch);
    if (type == kSave || type == kSaved || type == kCheckpointData) f(count);
    if (type == kReady) f(sent);
    if (type == kRecover) f(cause);
    if (type == kCheckpointData || type == kRestoreData) f(snapshot);
    if (type == kXorBlock || type == kXorPieces || type == kXorParityBlock) f(count, snapshot);
    if (type == kXorBlock || type == kXorParityBlock) f(length);
    if (type == kXorRequest) f(count);
    if (type == kXorPieces) f(parity);
  }
};

inline Control with(std::uint32_t checkpoint, std::uint32_t epoch) {
  Control c;
  c.checkpoint = checkpoint;
  c.epoch = epoch;
  return c;
}

inline void send(node::ProtocolContext& ctx, NodeId to, std::uint32_t type, const Control& c,
                 node::Traffic traffic = node::Traffic::control, std::uint64_t payload_bytes = 0) {
  ctx.send_control(to, type, node::encode(c, type), traffic, payload_bytes);
}

// Where a checkpoint lives: in a buddy's store or on stable storage, by origin and id.
inline std::uint64_t checkpoint_key(NodeId origin, std::uint32_t checkpoint) {
  return (std::uint64_t(origin) << 32) | checkpoint;
}
inline NodeId origin_of(std::uint64_t key) { return static_cast<NodeId>(key >> 32); }
inline std::uint32_t checkpoint_of(std::uint64_t key) { return static_cast<std::uint32_t>(key & 0xffffffffu); }
// The stable-storage server of this node's checkpoints.
inline std::uint32_t storage_server(node::ProtocolContext& ctx) {
  return ctx.node() % std::max(1u, ctx.storage_servers());
}

// Timer, activity and storage tokens. The coordinator's period timer is 0.
constexpr std::uint64_t kRestartDelayToken = 1;
constexpr std::uint64_t kReadTokenBit = 1ull << 62;  // a checkpoint read back (+ the epoch)
// Levels: the n-th read a node asks of a level's storage. Only the latest is awaited: a late
// answer to an earlier one (another level, another recovery, another checkpoint of the same
// recovery after a fall-back) is told apart.
constexpr std::uint64_t kLevelReadBit = 1ull << 48;
constexpr std::uint64_t level_read_token(std::uint32_t sequence) { return kReadTokenBit | kLevelReadBit | sequence; }
// A checkpoint written: its number and the epoch it was written in (epochs count failures: far
// below kReadTokenBit).
inline std::uint64_t write_token(std::uint32_t checkpoint, std::uint32_t epoch) {
  return (std::uint64_t(epoch) << 32) | checkpoint;
}
// /checkpoint_data: the CPU time of encoding a checkpoint image / decoding a chain (+ a sequence
// number: a stale one, from before a failure, is ignored).
constexpr std::uint64_t kEncodeTokenBit = 1ull << 61;
constexpr std::uint64_t kDecodeTokenBit = 1ull << 60;
constexpr std::uint64_t kSequenceMask = 0xffffffffu;
// An XOR level: the CPU time of a parity block (+ a sequence number, as above).
constexpr std::uint64_t kXorTokenBit = 1ull << 59;
// Where a node keeps its parity block of checkpoint k in its checkpoint store (no node's id has
// the top bit: the keeper's copies never clash with it).
inline std::uint64_t parity_key(std::uint32_t checkpoint) { return (1ull << 63) | checkpoint; }
inline bool is_parity_key(std::uint64_t key) { return (key >> 63) != 0; }

}  // namespace ftsim::protocols::global::messages
