#pragma once
// The buddy of each node: where it keeps its checkpoint data (Lion & Thibault 2020 §VI-A).
//   next            : (n + 1) mod N
//   next-in-row     : n - n mod Q + (n + 1) mod Q, the next node on the same row of the P x Q grid
//   next-in-column  : (n + Q) mod N, the next node on the same column
//   explicit        : a list per node (several buddies replicate the checkpoint)
#include <span>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

class BuddyMapping {
public:
  BuddyMapping(const config::BuddyConfig& buddy, const config::DistributionConfig& distribution,
               NodeId nodes);

  std::span<const NodeId> buddies(NodeId node) const {
    return {buddies_.data() + offset_[node], buddies_.data() + offset_[node + 1]};
  }
  NodeId first_buddy(NodeId node) const { return buddies_[offset_[node]]; }

private:
  std::vector<std::uint32_t> offset_;
  std::vector<NodeId> buddies_;
};

}  // namespace ftsim::graphs
