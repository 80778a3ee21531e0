#pragma once
// Analytic checkpoint volumes of a task graph, without a timed simulation: the columns of
// Lion & Thibault 2020 Table I (and Lion 2022 Table 2.1) for one checkpoint placement.
//   blind         every datum at each checkpoint, whatever its state
//   differential  only data written since the previous checkpoint (never an initial value)
//   cached        differential minus the saves whose version the buddy already holds or has a
//                 transfer for submitted earlier in the STF order (the StarPU-MPI cache rule)
//   cached_any    differential minus the saves whose version the buddy receives at any time of
//                 the run (the net extra traffic if application and checkpoint transfers merge)
// plus the application bytes each node sends and the peak checkpoint bytes a buddy holds.
// A node saves the versions it produced (and the initial data it owns) to each of its buddies.
#include <cstdint>
#include <vector>

#include "graphs/buddy_mapping.hpp"
#include "graphs/cut_selection.hpp"
#include "graphs/task_graph.hpp"

namespace ftsim::analysis {

struct PerNode {
  std::vector<double> bytes;  // one entry per node
  double average() const;
  double min() const;
  double max() const;
  double total() const;
};

struct CheckpointVolumes {
  std::size_t checkpoints = 0;
  std::vector<graphs::CutId> cuts;    // candidate cut of each checkpoint (cut c follows iteration c-1)
  PerNode blind, differential, cached, cached_any;
  PerNode peak_held;                   // as a buddy: max over checkpoints of bytes held
  std::uint64_t saves = 0, cached_saves = 0;  // differential sends and how many the cache spares
};

PerNode application_bytes_sent(const graphs::TaskGraph& graph);

CheckpointVolumes compute_volumes(const graphs::TaskGraph& graph, const graphs::CutSelection& cuts,
                                  const graphs::BuddyMapping& buddies);

}  // namespace ftsim::analysis
