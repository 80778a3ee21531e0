#include "protocols/cck/cck_allgather.hpp"

#include <algorithm>

namespace ftsim::protocols::cck {

AllGather::AllGather(graphs::NodeId node, graphs::NodeId nodes, node::SharedBytes own)
    : node_(node), nodes_(nodes), blocks_(nodes) {
  blocks_[node] = std::move(own);
}

std::uint32_t AllGather::steps(graphs::NodeId nodes) {
  std::uint32_t steps = 0;
  while ((std::uint64_t(1) << steps) < nodes) ++steps;
  return steps;
}

graphs::NodeId AllGather::waiting_for() const {
  if (complete()) return nodes_;
  const std::uint64_t distance = std::uint64_t(1) << step_;
  return static_cast<graphs::NodeId>((node_ + distance) % nodes_);
}

std::optional<AllGather::Outgoing> AllGather::send() {
  if (complete() || sent_) return std::nullopt;
  const std::uint64_t distance = std::uint64_t(1) << step_;
  const auto count = static_cast<graphs::NodeId>(std::min<std::uint64_t>(distance, nodes_ - distance));
  Outgoing out{static_cast<graphs::NodeId>((node_ + nodes_ - distance % nodes_) % nodes_), step_, {}};
  out.blocks.reserve(count);
  for (graphs::NodeId k = 0; k < count; ++k) {
    const graphs::NodeId block = (node_ + k) % nodes_;
    out.blocks.emplace_back(block, blocks_[block]);
  }
  sent_ = true;
  advance();  // its own message may already be here
  return out;
}

void AllGather::receive(std::uint32_t step, Blocks blocks) {
  if (complete() || step < step_) return;  // a duplicate
  early_.emplace(step, std::move(blocks));
  advance();
}

void AllGather::advance() {
  // A step's blocks are taken once its own message has been handed out (they extend what the
  // next step sends).
  while (sent_ && !complete()) {
    auto it = early_.find(step_);
    if (it == early_.end()) return;
    const auto count = static_cast<graphs::NodeId>(it->second.size());
    for (auto& [block, content] : it->second) {
      if (block < nodes_) blocks_[block] = std::move(content);
    }
    held_ = std::min<graphs::NodeId>(nodes_, held_ + count);
    early_.erase(it);
    ++step_;
    sent_ = false;
  }
}

}  // namespace ftsim::protocols::cck
