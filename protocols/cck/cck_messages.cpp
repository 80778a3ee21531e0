#include "protocols/cck/cck_messages.hpp"

#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

std::uint64_t send(core::ProtocolContext& ctx, core::NodeId to, MessageType type, const Control& control,
                   std::uint32_t incarnation) {
  std::vector<core::SharedBytes> parts;
  core::Bytes body = core::encode(control, type, &parts);
  std::uint64_t size = body.encoded_size();
  for (const core::SharedBytes& part : parts) size += core::inline_size(*part);
  ctx.send_control(to, type, std::move(body), core::Traffic::control, 0, incarnation, std::move(parts));
  return size;
}

}  // namespace ftsim::protocols::cck
