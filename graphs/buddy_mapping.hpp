#pragma once
// The buddy of each node: where it keeps its checkpoint data (Lion & Thibault 2020 §VI-A).
//   next            : (n + 1) mod N; (n + k) mod N with k ranks per machine (the next machine)
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
  // The nodes whose buddies include `node` (whose data it keeps), in increasing order.
  std::span<const NodeId> kept_for(NodeId node) const {
    return {kept_for_.data() + kept_offset_[node], kept_for_.data() + kept_offset_[node + 1]};
  }

private:
  std::vector<std::uint32_t> offset_;
  std::vector<NodeId> buddies_;
  std::vector<std::uint32_t> kept_offset_;  // the inverse, as a CSR
  std::vector<NodeId> kept_for_;
};

}  // namespace ftsim::graphs
