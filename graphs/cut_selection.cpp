#include "graphs/cut_selection.hpp"

#include <algorithm>

namespace ftsim::graphs {

CutSelection::CutSelection(const config::CheckpointConfig& placement, const TaskGraph& graph,
                           const std::string& config_file) {
  const std::uint64_t candidates = graph.cut_count();
  std::vector<CutId> cuts;
  if (placement.placement == config::CutPlacement::every) {
    for (std::uint64_t j = placement.every; j <= candidates; j += placement.every) {
      cuts.push_back(static_cast<CutId>(j));
    }
  } else {
    if (std::uint64_t(placement.count) + 2 > candidates) {
      throw config::ConfigError(config_file, placement.pointer + "/count",
                                config::count_limit_message(candidates, placement.count));
    }
    for (std::uint64_t i = 1; i <= placement.count; ++i) {
      // Cut after outer iteration floor(i * NT / (C + 1)) (0-based) is candidate cut that + 1.
      cuts.push_back(static_cast<CutId>(i * candidates / (placement.count + 1) + 1));
    }
  }
  *this = CutSelection(std::move(cuts), graph);
}

CutSelection::CutSelection(std::vector<CutId> cuts, const TaskGraph& graph) {
  for (CutId cut : cuts) {
    if (cut < 1 || cut > graph.cut_count()) continue;
    if (graph.cut_position(cut) >= graph.task_count()) continue;  // nothing after it
    if (!cuts_.empty() && cut <= cuts_.back()) continue;
    cuts_.push_back(cut);
    positions_.push_back(graph.cut_position(cut));
  }
}

std::uint32_t CutSelection::section(TaskId t) const {
  return static_cast<std::uint32_t>(std::upper_bound(positions_.begin(), positions_.end(), t) -
                                    positions_.begin());
}

}  // namespace ftsim::graphs
