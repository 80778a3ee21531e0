#pragma once
// What a process knows of the other processes' incarnations. Most nodes are at a default (their
// first incarnation at the start of the job; unknown to a replacement until it hears from them), so
// only the nodes that differ are kept: a process holds O(nodes it heard of a failure or restart
// of), not a value per node of the job, which over all processes is N^2 (68 GB at 131,072 nodes).
#include <cstdint>

#include "graphs/ids.hpp"
#include "sim/node/flat_map.hpp"

namespace ftsim::protocols {

class NodeIncarnations {
public:
  // Before reset: every node is `outside`.
  explicit NodeIncarnations(std::uint32_t outside = 0) : outside_(outside) {}
  // Every node of [0, nodes) at `value`; nodes outside it are `outside`.
  void reset(graphs::NodeId nodes, std::uint32_t value, std::uint32_t outside) {
    nodes_ = nodes;
    default_ = value;
    outside_ = outside;
    differing_.clear();
  }
  bool empty() const { return nodes_ == 0; }
  std::uint32_t get(graphs::NodeId node) const {
    if (node >= nodes_) return outside_;
    const auto it = differing_.find(node);
    return it == differing_.end() ? default_ : it->second;
  }
  void set(graphs::NodeId node, std::uint32_t value) {
    if (node >= nodes_) return;
    if (value == default_) {
      differing_.erase(node);
    } else {
      differing_[node] = value;
    }
  }

private:
  graphs::NodeId nodes_ = 0;
  std::uint32_t default_ = 0, outside_ = 0;
  node::FlatMap64<std::uint32_t> differing_;
};

}  // namespace ftsim::protocols
