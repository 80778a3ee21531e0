#include "protocols/cck/cck_messages.hpp"

#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

std::uint64_t send(node::ProtocolContext& ctx, node::NodeId to, MessageType type, const Control& control,
                   std::uint32_t incarnation) {
  std::vector<node::SharedBytes> parts;
  node::Bytes body = node::encode(control, type, &parts);
  std::uint64_t size = body.encoded_size();
  for (const node::SharedBytes& part : parts) size += node::inline_size(*part);
  ctx.send_control(to, type, std::move(body), node::Traffic::control, 0, incarnation, std::move(parts));
  return size;
}

}  // namespace ftsim::protocols::cck
