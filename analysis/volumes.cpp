#include "analysis/volumes.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace ftsim::analysis {

using namespace ftsim::graphs;

double PerNode::average() const { return bytes.empty() ? 0.0 : total() / double(bytes.size()); }
double PerNode::min() const { return bytes.empty() ? 0.0 : *std::min_element(bytes.begin(), bytes.end()); }
double PerNode::max() const { return bytes.empty() ? 0.0 : *std::max_element(bytes.begin(), bytes.end()); }
double PerNode::total() const { return std::accumulate(bytes.begin(), bytes.end(), 0.0); }

PerNode application_bytes_sent(const TaskGraph& graph) {
  PerNode sent{std::vector<double>(graph.node_count(), 0.0)};
  for (const Transfer& x : graph.transfers()) sent.bytes[x.source] += double(graph.bytes(x.handle));
  return sent;
}

namespace {

// Application transfers sorted by (handle, version, destination), to ask "does node b receive
// version v of h, and from which task on?" in O(log n).
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

CheckpointVolumes compute_volumes(const TaskGraph& graph, const CutSelection& cuts, const BuddyMapping& buddies) {
  const NodeId nodes = graph.node_count();
  const std::size_t handles = graph.handle_count();
  CheckpointVolumes v;
  v.checkpoints = cuts.checkpoint_count();
  v.cuts = cuts.cuts();
  for (PerNode* p : {&v.blind, &v.differential, &v.cached, &v.cached_any, &v.peak_held}) p->bytes.assign(nodes, 0.0);

  const TransferIndex transfers(graph);
  // Version of every handle at the current cut, and the bytes each node holds the latest version of.
  std::vector<Version> version(handles, 0);
  std::vector<double> produced_bytes(nodes, 0.0);
  for (HandleId h = 0; h < handles; ++h) produced_bytes[graph.owner(h)] += double(graph.bytes(h));
  // On each buddy: bytes of the latest saved version of every datum it protects.
  std::vector<double> held(nodes, 0.0);
  std::vector<NodeId> saved_from(handles, kNone);  // whose buddies hold the datum
  std::vector<std::uint32_t> stamp(handles, 0);  // checkpoint that last saw the handle modified
  std::vector<HandleId> modified;

  CutId applied = 0;  // candidate cuts folded into `version`
  for (std::size_t c = 1; c <= v.checkpoints; ++c) {
    const CutId cut = cuts.cut_of(c);
    const TaskId position = graph.cut_position(cut);
    modified.clear();
    for (CutId k = applied + 1; k <= cut; ++k) {
      for (const auto& entry : graph.modified_before_cut(k)) {
        const HandleId h = entry.handle;
        const double bytes = double(graph.bytes(h));
        produced_bytes[graph.version_node(h, version[h])] -= bytes;
        version[h] = entry.version;
        produced_bytes[graph.version_node(h, version[h])] += bytes;
        if (stamp[h] != c) {
          stamp[h] = static_cast<std::uint32_t>(c);
          modified.push_back(h);
        }
      }
    }
    applied = cut;

    for (NodeId n = 0; n < nodes; ++n) {
      v.blind.bytes[n] += produced_bytes[n] * double(buddies.buddies(n).size());
    }
    // Differential saves of this checkpoint; a buddy keeps the previous checkpoint until this one
    // is complete, so its peak is what it held before plus what arrives now.
    std::vector<double> arriving(nodes, 0.0);
    for (HandleId h : modified) {
      const NodeId from = graph.version_node(h, version[h]);
      const double bytes = double(graph.bytes(h));
      for (NodeId buddy : buddies.buddies(from)) {
        v.differential.bytes[from] += bytes;
        ++v.saves;
        const TaskId consumer = transfers.consumer(h, version[h], buddy);
        if (consumer == kNone || consumer >= position) {
          v.cached.bytes[from] += bytes;
        } else {
          ++v.cached_saves;
        }
        if (consumer == kNone) v.cached_any.bytes[from] += bytes;
        arriving[buddy] += bytes;
      }
    }
    for (NodeId b = 0; b < nodes; ++b) v.peak_held.bytes[b] = std::max(v.peak_held.bytes[b], held[b] + arriving[b]);
    // After the checkpoint completes, the buddy keeps one version of each datum it protects.
    for (HandleId h : modified) {
      const NodeId from = graph.version_node(h, version[h]);
      if (saved_from[h] == from) continue;
      const double bytes = double(graph.bytes(h));
      if (saved_from[h] != kNone) {
        for (NodeId buddy : buddies.buddies(saved_from[h])) held[buddy] -= bytes;
      }
      saved_from[h] = from;
      for (NodeId buddy : buddies.buddies(from)) held[buddy] += bytes;
    }
  }
  return v;
}

}  // namespace ftsim::analysis
