#pragma once
// The saves of asynchronous differential checkpoints at graph cuts (Lion & Thibault 2020 §V;
// Lion 2022 §2.4): at checkpoint c, every datum modified since the previous checkpoint is saved
// at its version at the cut, by the node that produced that version, to each of that node's
// buddies. A save is *cached* when the buddy receives that version anyway through an application
// transfer submitted before the cut (the StarPU-MPI cache rule: no bytes move for it). Every node
// derives the same plan from the graph, as every StarPU-MPI node derives it from the templates.
#include <cstdint>
#include <span>
#include <vector>

#include "graphs/buddy_mapping.hpp"
#include "graphs/cut_selection.hpp"
#include "graphs/task_graph.hpp"

namespace ftsim::graphs {

struct CheckpointSave {
  HandleId handle;
  Version version;
  NodeId from;   // the node that produced the version (the origin of the save)
  NodeId buddy;
  bool cached;       // the buddy receives (h, v) through a transfer submitted before the cut
  bool transferred;  // the buddy receives (h, v) through an application transfer at any time
};

class CheckpointSaves {
public:
  CheckpointSaves(const TaskGraph& graph, const CutSelection& cuts, const BuddyMapping& buddies);

  std::size_t checkpoints() const { return offset_.size() - 1; }
  // The saves of checkpoint c (1 … checkpoints()), in handle order of modification.
  std::span<const CheckpointSave> of(std::size_t checkpoint) const {
    return {saves_.data() + offset_[checkpoint - 1], saves_.data() + offset_[checkpoint]};
  }
  // The first task after checkpoint c's cut.
  TaskId position(std::size_t checkpoint) const { return position_[checkpoint - 1]; }

  // The saves of checkpoint c made by node `from` / kept by node `buddy`, as indices for save(),
  // in the order of of(c): what one node plans, without a scan of every node's saves (which made
  // the start of N nodes O(N x saves)).
  std::span<const std::uint32_t> from(std::size_t checkpoint, NodeId node) const { return by_origin_.of(checkpoint, node); }
  std::span<const std::uint32_t> kept_by(std::size_t checkpoint, NodeId node) const { return by_buddy_.of(checkpoint, node); }
  const CheckpointSave& save(std::uint32_t index) const { return saves_[index]; }

private:
  // Save indices grouped by (checkpoint, node), each group in of(c) order.
  struct NodeIndex {
    NodeId nodes = 0;
    std::vector<std::uint32_t> offset;  // per (checkpoint - 1) x nodes + node
    std::vector<std::uint32_t> saves;
    std::span<const std::uint32_t> of(std::size_t checkpoint, NodeId node) const {
      const std::size_t key = (checkpoint - 1) * nodes + node;
      return {saves.data() + offset[key], saves.data() + offset[key + 1]};
    }
  };
  void index(NodeIndex& index, NodeId nodes, bool by_buddy) const;

  std::vector<CheckpointSave> saves_;
  std::vector<std::size_t> offset_{0};
  std::vector<TaskId> position_;
  NodeIndex by_origin_, by_buddy_;
};

}  // namespace ftsim::graphs
