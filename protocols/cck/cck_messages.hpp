#pragma once
// CCK's control messages: one struct for all of them, whose fields() lists each type's own fields
// once (sim/node/codec.hpp: node::encode(control, type), node::decode<Control>(message)). Checkpoint
// (Besseron 2006 §3.4, Figs. 3 and 4): INIT, PING, PONG, CONT, ACK. Restart (§3.5.5): RESTART,
// PING and PONG again (the flush of step 1), GATHER (the all-gather of the communication-
// restricted graphs, step 3), DONE.
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/node/codec.hpp"
#include "sim/node/message.hpp"
#include "sim/node/protocol.hpp"

namespace ftsim::protocols::cck {

enum MessageType : std::uint32_t {
  kInit = 1,  // coordinator -> node: checkpoint c starts; K is the last valid one (older copies may go)
  kPing,      // node -> node it expects data from: flush the channel (a checkpoint's or a restart's)
  kPong,      // answer to PING once the node is stopped: nothing it sent is still on the way
  kCont,      // node -> node it expects data from: my checkpoint c is saved, you may send again
  kAck,       // node -> coordinator: checkpoint c saved (bytes), and the control messages it cost
  kRestart,   // coordinator -> node: restart round r from checkpoint K (cause: a failure notice)
  kGather,    // node -> node: a step of the all-gather of round r
  kDone,      // node -> coordinator: round r applied (restored, or its re-executions done)
};

// Which protocol session a PING or PONG belongs to.
enum class Session : std::uint8_t { checkpoint = 0, restart = 1 };

// The round of a restart: the sequence number of the newest failure notice, then the incarnation
// of the coordinator that opened it (a coordinator on a node that failed opens rounds again).
inline std::uint64_t round_key(std::uint32_t sequence, std::uint32_t coordinator_incarnation) {
  return (std::uint64_t(sequence) << 32) | coordinator_incarnation;
}
inline std::uint32_t round_sequence(std::uint64_t key) { return static_cast<std::uint32_t>(key >> 32); }

// GATHER's blocks, (node, Ḡ of that node encoded), on the wire as if written inline as one array:
// its length, the count, then per block its node and the block (length-prefixed). The blocks
// themselves travel as the message's parts (shared immutable buffers, not copies): the body holds
// the length, the count and the nodes, and each part counts 8 + its size, so the simulated size is
// that of the inline array, 8 + 4 + Σ(4 + 8 + |block|).
struct GatherBlocks {
  std::vector<std::pair<node::NodeId, node::SharedBytes>>& blocks;

  static std::uint64_t length_of(std::uint64_t length, const node::SharedBytes& block) {
    return length + 4 + 16 + block->size();
  }
  void write_to(node::Encoder& out) const {
    std::uint64_t length = 4;
    for (const auto& [node, block] : blocks) length = length_of(length, block);
    out(length, static_cast<std::uint32_t>(blocks.size()));
    for (const auto& [node, block] : blocks) {
      out(node);
      out.part(block);
    }
  }
  void read_from(node::Decoder& in) {
    std::uint64_t length = 0;
    std::uint32_t count = 0;
    in(length, count);
    if (count != in.parts_left()) {
      throw node::WireError("cck: GATHER names " + std::to_string(count) + " blocks, carries " +
                            std::to_string(in.parts_left()));
    }
    std::uint64_t expected = 4;
    blocks.resize(count);
    for (auto& [node, block] : blocks) {
      in(node);
      block = in.part();
      expected = length_of(expected, block);
    }
    if (length != expected) throw node::WireError("cck: GATHER's blocks do not have the length it states");
  }
};

struct Control {
  std::uint32_t checkpoint = 0;   // INIT, PING/PONG (checkpoint), CONT, ACK; RESTART: K
  std::uint64_t round = 0;        // every type: the restart round it belongs to
  std::uint32_t valid = 0;        // INIT: the last valid checkpoint; RESTART: the next checkpoint id
  Session session = Session::checkpoint;  // PING, PONG
  std::uint64_t bytes = 0;        // ACK: checkpoint bytes saved
  std::uint64_t messages = 0;     // ACK: control messages this checkpoint cost the node; DONE: re-sends
  std::uint64_t message_bytes = 0;  // ACK: their bytes
  std::uint64_t tasks = 0;        // DONE: tasks it re-executed for this round (|T^p|)
  bool restored = false;          // DONE: it restarted from K
  std::uint32_t step = 0;         // GATHER
  std::uint64_t completed = 0;    // RESTART: the last restart round the coordinator completed
  std::vector<std::pair<node::NodeId, std::uint32_t>> incarnations{};  // RESTART: nodes past incarnation 0
  node::FailureNotice cause{};    // RESTART
  // GATHER: the all-gather blocks it carries, (node, Ḡ of that node encoded), as the message's parts.
  std::vector<std::pair<node::NodeId, node::SharedBytes>> blocks{};

  template <class F> void fields(F& f, std::uint32_t type) {
    f(round);
    switch (type) {
      case kInit: f(checkpoint, valid); break;
      case kPing:
      case kPong:
        f(node::bounded(session, 2));  // checkpoint or restart
        if (session == Session::checkpoint) f(checkpoint);
        break;
      case kCont: f(checkpoint); break;
      case kAck: f(checkpoint, bytes, messages, message_bytes); break;
      case kRestart: f(checkpoint, valid, cause, completed, incarnations); break;
      case kGather: f(step, GatherBlocks{blocks}); break;
      case kDone: f(tasks, messages, restored); break;
      default: throw node::WireError("cck: unknown control message type " + std::to_string(type));
    }
  }
};

// Sends a control message to `to`'s incarnation `incarnation` (kAnyIncarnation: whichever holds
// the rank); returns its simulated size (what the metrics count).
std::uint64_t send(node::ProtocolContext& ctx, node::NodeId to, MessageType type, const Control& control,
                   std::uint32_t incarnation);

}  // namespace ftsim::protocols::cck
