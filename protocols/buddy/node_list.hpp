#pragma once
// The nodes a phase of the buddy protocol waits for, as its stall reports name them: the first
// eight, then "...".
#include <string>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::protocols::buddy {

inline std::string buddy_node_list(const std::vector<graphs::NodeId>& nodes) {
  std::string text;
  for (std::size_t i = 0; i < nodes.size() && i < 8; ++i) text += (i ? ", " : "") + std::to_string(nodes[i]);
  return text + (nodes.size() > 8 ? ", ..." : "");
}

}  // namespace ftsim::protocols::buddy
