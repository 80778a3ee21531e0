#include "protocols/cck/cck_messages.hpp"

#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

core::Bytes Control::encode(std::uint32_t type) const {
  core::Bytes out;
  core::WireWriter w(out);
  w.u64(round);
  switch (type) {
    case kInit:
      w.u32(checkpoint);
      w.u32(valid);
      break;
    case kPing:
    case kPong:
      w.u8(static_cast<std::uint8_t>(session));
      if (session == Session::checkpoint) w.u32(checkpoint);
      break;
    case kCont: w.u32(checkpoint); break;
    case kAck:
      w.u32(checkpoint);
      w.u64(bytes);
      w.u64(messages);
      w.u64(message_bytes);
      break;
    case kRestart:
      w.u32(checkpoint);
      w.u32(valid);
      w.u32(cause.node);
      w.u32(cause.incarnation);
      w.u32(cause.sequence);
      w.u64(completed);
      w.u64(incarnations.size());
      for (auto [node, incarnation] : incarnations) {
        w.u32(node);
        w.u32(incarnation);
      }
      break;
    case kGather: {
      // The layout of the blocks written inline, as one array: its length, the count, then per
      // block its node and the block (length-prefixed). The blocks themselves are the parts: the
      // body holds the length, the count and the nodes, and each part counts 8 + its size, so
      // the simulated size is that of the inline array, 8 + 4 + Σ(4 + 8 + |block|).
      w.u32(step);
      std::uint64_t length = 4;
      for (const auto& [node, block] : blocks) length += 4 + 16 + block->size();
      w.u64(length);
      w.u32(static_cast<std::uint32_t>(blocks.size()));
      for (const auto& [node, block] : blocks) w.u32(node);
      break;
    }
    case kDone:
      w.u64(tasks);
      w.u64(messages);
      w.u8(restored ? 1 : 0);
      break;
    default: break;
  }
  return out;
}

Control Control::decode(const core::Message& m) {
  Control c;
  core::WireReader r(m.body);
  c.round = r.u64();
  switch (m.control_type) {
    case kInit:
      c.checkpoint = r.u32();
      c.valid = r.u32();
      break;
    case kPing:
    case kPong:
      c.session = r.u8() == 0 ? Session::checkpoint : Session::restart;
      if (c.session == Session::checkpoint) c.checkpoint = r.u32();
      break;
    case kCont: c.checkpoint = r.u32(); break;
    case kAck:
      c.checkpoint = r.u32();
      c.bytes = r.u64();
      c.messages = r.u64();
      c.message_bytes = r.u64();
      break;
    case kRestart:
      c.checkpoint = r.u32();
      c.valid = r.u32();
      c.cause.node = r.u32();
      c.cause.incarnation = r.u32();
      c.cause.sequence = r.u32();
      c.completed = r.u64();
      c.incarnations.resize(r.count(8));
      for (auto& [node, incarnation] : c.incarnations) {
        node = r.u32();
        incarnation = r.u32();
      }
      break;
    case kGather: {
      c.step = r.u32();
      const std::uint64_t length = r.u64();
      const std::uint32_t count = r.u32();
      if (count != m.parts.size()) throw core::WireError("cck: GATHER names " + std::to_string(count) + " blocks, carries " +
                                                         std::to_string(m.parts.size()));
      std::uint64_t expected = 4;
      c.blocks.resize(count);
      for (std::uint32_t k = 0; k < count; ++k) {
        c.blocks[k] = {r.u32(), m.parts[k]};
        expected += 4 + 16 + m.parts[k]->size();
      }
      if (length != expected) throw core::WireError("cck: GATHER's blocks do not have the length it states");
      break;
    }
    case kDone:
      c.tasks = r.u64();
      c.messages = r.u64();
      c.restored = r.u8() != 0;
      break;
    default: throw core::WireError("cck: unknown control message type " + std::to_string(m.control_type));
  }
  r.expect_done();
  return c;
}

std::vector<core::SharedBytes> Control::parts(std::uint32_t type) const {
  std::vector<core::SharedBytes> out;
  if (type != kGather) return out;
  out.reserve(blocks.size());
  for (const auto& [node, block] : blocks) out.push_back(block);
  return out;
}

std::uint64_t send(core::ProtocolContext& ctx, core::NodeId to, MessageType type, const Control& control,
                   std::uint32_t incarnation) {
  core::Bytes body = control.encode(type);
  std::vector<core::SharedBytes> parts = control.parts(type);
  std::uint64_t size = body.encoded_size();
  for (const core::SharedBytes& part : parts) size += core::inline_size(*part);
  ctx.send_control(to, type, std::move(body), core::Traffic::control, 0, incarnation, std::move(parts));
  return size;
}

}  // namespace ftsim::protocols::cck
