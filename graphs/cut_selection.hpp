#pragma once
// Which candidate cuts of a graph (StfBuilder::checkpoint calls, one per outer iteration of the
// built-in applications) become checkpoints, following /checkpoints:
//   every: K  -> after outer iterations K-1, 2K-1, ... (0-based)
//   count: C  -> after outer iteration floor(i * NT / (C + 1)), i = 1..C, NT = number of cuts
// A cut with no task after it is never taken: the run is over. Checkpoint ids start at 1.
#include <vector>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

class CutSelection {
public:
  // Throws ConfigError (at the placement's JSON path) when the graph has too few cuts.
  CutSelection(const config::CheckpointConfig& placement, const TaskGraph& graph,
               const std::string& config_file);
  // Directly from candidate cut ids (ascending, 1-based); for tests and the Python API.
  CutSelection(std::vector<CutId> cuts, const TaskGraph& graph);

  std::size_t checkpoint_count() const { return cuts_.size(); }
  // The candidate cut of checkpoint c (1-based).
  CutId cut_of(std::size_t checkpoint) const { return cuts_[checkpoint - 1]; }
  const std::vector<CutId>& cuts() const { return cuts_; }
  // Checkpoints submitted before task t: its section.
  std::uint32_t section(TaskId t) const;

private:
  std::vector<CutId> cuts_;
  std::vector<TaskId> positions_;
};

}  // namespace ftsim::graphs
