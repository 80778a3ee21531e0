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
    case kGather:
      w.u32(step);
      w.bytes(blocks);
      break;
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
    case kGather:
      c.step = r.u32();
      c.blocks = r.bytes();
      break;
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

std::uint64_t send(core::ProtocolContext& ctx, core::NodeId to, MessageType type, const Control& control,
                   std::uint32_t incarnation) {
  core::Bytes body = control.encode(type);
  const std::uint64_t size = body.encoded_size();
  ctx.send_control(to, type, std::move(body), core::Traffic::control, 0, incarnation);
  return size;
}

}  // namespace ftsim::protocols::cck
