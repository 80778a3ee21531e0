#pragma once
// What CCK's roles send through, and the keys and tokens of their storage requests and CPU charges.
// CckProtocol implements Post: a message between the coordinator and the node of one process (a
// coordinator on a node) is handled at once, as a call; any other is sent to the incarnation the
// process knows of its receiver, and counted.
#include <cstdint>

#include "protocols/cck/cck_messages.hpp"
#include "protocols/cck/cck_options.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

class Post {
public:
  virtual void to_coordinator(node::ProtocolContext& ctx, MessageType type, const Control& control) = 0;
  virtual void to_node(node::ProtocolContext& ctx, NodeId node, MessageType type, const Control& control) = 0;
  // The incarnation `node` is known to be at (node::kAnyIncarnation: not known yet).
  virtual std::uint32_t incarnation_of(NodeId node) const = 0;

protected:
  ~Post() = default;
};

// Stable-storage keys: a node's checkpoint c, and the coordinator's record (on a node only).
inline std::uint64_t checkpoint_key(NodeId node, std::uint32_t checkpoint) {
  return (std::uint64_t(node) << 32) | checkpoint;
}
inline constexpr std::uint64_t kCoordinatorRecordKey = 0xffffffff00000000ull;
// Storage tokens (the low 32 bits: a checkpoint id).
inline constexpr std::uint64_t kReadToken = 1ull << 62;
inline constexpr std::uint64_t kRecordToken = 1ull << 61;
inline constexpr std::uint64_t kRecordReadToken = kRecordToken | kReadToken;
// /checkpoint_data: the CPU time of encoding an image / decoding a chain (+ a sequence number).
inline constexpr std::uint64_t kEncodeToken = 1ull << 60;
inline constexpr std::uint64_t kDecodeToken = 1ull << 59;

}  // namespace ftsim::protocols::cck
