#include "graphs/checkpoint_saves.hpp"

#include <algorithm>
#include <tuple>

namespace ftsim::graphs {

namespace {

// Application transfers sorted by (handle, version, destination), to ask "does node b receive
// version v of h, and for which task?" in O(log n).
class TransferIndex {
public:
  explicit TransferIndex(const TaskGraph& graph) : transfers_(graph.transfers().begin(), graph.transfers().end()) {
    std::sort(transfers_.begin(), transfers_.end(), [](const Transfer& a, const Transfer& b) {
      return std::tie(a.handle, a.version, a.destination) < std::tie(b.handle, b.version, b.destination);
    });
  }
  // The consumer task of the transfer of (h, v) to node, or kNone.
  TaskId consumer(HandleId h, Version v, NodeId node) const {
    auto it = std::lower_bound(transfers_.begin(), transfers_.end(), std::tie(h, v, node),
                               [](const Transfer& x, const std::tuple<HandleId&, Version&, NodeId&>& key) {
                                 return std::tie(x.handle, x.version, x.destination) < key;
                               });
    if (it == transfers_.end() || it->handle != h || it->version != v || it->destination != node) return kNone;
    return it->consumer;
  }

private:
  std::vector<Transfer> transfers_;
};

}  // namespace

CheckpointSaves::CheckpointSaves(const TaskGraph& graph, const CutSelection& cuts, const BuddyMapping& buddies) {
  const TransferIndex transfers(graph);
  std::vector<Version> version(graph.handle_count(), 0);
  std::vector<std::uint32_t> stamp(graph.handle_count(), 0);  // checkpoint that last saw the handle modified
  std::vector<HandleId> modified;
  CutId applied = 0;  // candidate cuts folded into `version`
  for (std::size_t c = 1; c <= cuts.checkpoint_count(); ++c) {
    const CutId cut = cuts.cut_of(c);
    const TaskId position = graph.cut_position(cut);
    position_.push_back(position);
    modified.clear();
    for (CutId k = applied + 1; k <= cut; ++k) {
      for (const auto& entry : graph.modified_before_cut(k)) {
        version[entry.handle] = entry.version;
        if (stamp[entry.handle] != c) {
          stamp[entry.handle] = static_cast<std::uint32_t>(c);
          modified.push_back(entry.handle);
        }
      }
    }
    applied = cut;
    for (HandleId h : modified) {
      const NodeId from = graph.version_node(h, version[h]);
      for (NodeId buddy : buddies.buddies(from)) {
        const TaskId consumer = transfers.consumer(h, version[h], buddy);
        saves_.push_back({h, version[h], from, buddy, consumer != kNone && consumer < position, consumer != kNone});
      }
    }
    offset_.push_back(saves_.size());
  }
  index(by_origin_, graph.node_count(), false);
  index(by_buddy_, graph.node_count(), true);
}

void CheckpointSaves::index(NodeIndex& index, NodeId nodes, bool by_buddy) const {
  // A counting sort by (checkpoint, node) that keeps each group in of(c) order.
  index.nodes = nodes;
  index.offset.assign(checkpoints() * nodes + 1, 0);
  std::vector<std::size_t> key(saves_.size());
  for (std::size_t c = 1; c <= checkpoints(); ++c) {
    for (std::size_t i = offset_[c - 1]; i < offset_[c]; ++i) {
      key[i] = (c - 1) * nodes + (by_buddy ? saves_[i].buddy : saves_[i].from);
      ++index.offset[key[i] + 1];
    }
  }
  for (std::size_t k = 0; k + 1 < index.offset.size(); ++k) index.offset[k + 1] += index.offset[k];
  index.saves.resize(saves_.size());
  std::vector<std::uint32_t> cursor(index.offset.begin(), index.offset.end() - 1);
  for (std::size_t i = 0; i < saves_.size(); ++i) index.saves[cursor[key[i]]++] = static_cast<std::uint32_t>(i);
}

}  // namespace ftsim::graphs
