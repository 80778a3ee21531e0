#include "graphs/buddy_mapping.hpp"

#include <algorithm>

#include "graphs/stf_builder.hpp"

namespace ftsim::graphs {

BuddyMapping::BuddyMapping(const config::BuddyConfig& buddy,
                           const config::DistributionConfig& distribution, NodeId nodes) {
  offset_.push_back(0);
  const NodeId q = distribution.Q;
  for (NodeId n = 0; n < nodes; ++n) {
    buddy.append_buddies(n, nodes, q, buddies_);
    offset_.push_back(static_cast<std::uint32_t>(buddies_.size()));
  }
  for (NodeId n = 0; n < nodes; ++n) {
    for (NodeId b : buddies(n)) {
      if (b == n || b >= nodes) throw GraphError("invalid buddy " + std::to_string(b) + " for node " + std::to_string(n));
    }
  }
  // The inverse (a node listed twice as the same node's buddy keeps its data once).
  auto first_time = [&](NodeId n, std::size_t i) {
    const auto list = buddies(n);
    return std::find(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(i), list[i]) == list.begin() + static_cast<std::ptrdiff_t>(i);
  };
  kept_offset_.assign(std::size_t(nodes) + 1, 0);
  for (NodeId n = 0; n < nodes; ++n) {
    for (std::size_t i = 0; i < buddies(n).size(); ++i) {
      if (first_time(n, i)) ++kept_offset_[buddies(n)[i] + 1];
    }
  }
  for (NodeId n = 0; n < nodes; ++n) kept_offset_[n + 1] += kept_offset_[n];
  kept_for_.resize(kept_offset_[nodes]);
  std::vector<std::uint32_t> cursor(kept_offset_.begin(), kept_offset_.end() - 1);
  for (NodeId n = 0; n < nodes; ++n) {
    for (std::size_t i = 0; i < buddies(n).size(); ++i) {
      if (first_time(n, i)) kept_for_[cursor[buddies(n)[i]]++] = n;
    }
  }
}

}  // namespace ftsim::graphs
