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
}

}  // namespace ftsim::graphs
