#include "graphs/buddy_mapping.hpp"

#include "graphs/stf_builder.hpp"

namespace ftsim::graphs {

BuddyMapping::BuddyMapping(const config::BuddyConfig& buddy,
                           const config::DistributionConfig& distribution, NodeId nodes) {
  offset_.push_back(0);
  const NodeId q = distribution.Q;
  for (NodeId n = 0; n < nodes; ++n) {
    switch (buddy.kind) {
      case config::BuddyKind::next: buddies_.push_back((n + 1) % nodes); break;
      case config::BuddyKind::next_in_row: buddies_.push_back(n - n % q + (n + 1) % q); break;
      case config::BuddyKind::next_in_column: buddies_.push_back((n + q) % nodes); break;
      case config::BuddyKind::explicit_list:
        for (auto b : buddy.explicit_buddies.at(n)) buddies_.push_back(b);
        break;
    }
    offset_.push_back(static_cast<std::uint32_t>(buddies_.size()));
  }
  for (NodeId n = 0; n < nodes; ++n) {
    for (NodeId b : buddies(n)) {
      if (b == n || b >= nodes) throw GraphError("invalid buddy " + std::to_string(b) + " for node " + std::to_string(n));
    }
  }
}

}  // namespace ftsim::graphs
