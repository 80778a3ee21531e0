#include "analysis/volumes.hpp"

#include "graphs/checkpoint_saves.hpp"

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

CheckpointVolumes compute_volumes(const TaskGraph& graph, const CutSelection& cuts, const BuddyMapping& buddies) {
  const NodeId nodes = graph.node_count();
  const std::size_t handles = graph.handle_count();
  CheckpointVolumes v;
  v.checkpoints = cuts.checkpoint_count();
  v.cuts = cuts.cuts();
  for (PerNode* p : {&v.blind, &v.differential, &v.cached, &v.cached_any, &v.peak_held}) p->bytes.assign(nodes, 0.0);

  const CheckpointSaves saves(graph, cuts, buddies);
  // The bytes of the latest versions each node produced (blind saves), kept up to date cut by cut.
  std::vector<Version> version(handles, 0);
  std::vector<double> produced_bytes(nodes, 0.0);
  for (HandleId h = 0; h < handles; ++h) produced_bytes[graph.owner(h)] += double(graph.bytes(h));
  // On each buddy: bytes of the latest saved version of every datum it protects.
  std::vector<double> held(nodes, 0.0);
  std::vector<NodeId> saved_from(handles, kNone);  // whose buddies hold the datum
  CutId applied = 0;  // candidate cuts folded into `version`
  for (std::size_t c = 1; c <= v.checkpoints; ++c) {
    const CutId cut = cuts.cut_of(c);
    for (CutId k = applied + 1; k <= cut; ++k) {
      for (const auto& entry : graph.modified_before_cut(k)) {
        const HandleId h = entry.handle;
        const double bytes = double(graph.bytes(h));
        produced_bytes[graph.version_node(h, version[h])] -= bytes;
        version[h] = entry.version;
        produced_bytes[graph.version_node(h, version[h])] += bytes;
      }
    }
    applied = cut;
    for (NodeId n = 0; n < nodes; ++n) {
      v.blind.bytes[n] += produced_bytes[n] * double(buddies.buddies(n).size());
    }
    // Differential saves of this checkpoint; a buddy keeps the previous checkpoint until this one
    // is complete, so its peak is what it held before plus what arrives now.
    std::vector<double> arriving(nodes, 0.0);
    for (const CheckpointSave& save : saves.of(c)) {
      const double bytes = double(graph.bytes(save.handle));
      v.differential.bytes[save.from] += bytes;
      ++v.saves;
      if (save.cached) {
        ++v.cached_saves;
      } else {
        v.cached.bytes[save.from] += bytes;
      }
      if (!save.transferred) v.cached_any.bytes[save.from] += bytes;
      arriving[save.buddy] += bytes;
    }
    for (NodeId b = 0; b < nodes; ++b) v.peak_held.bytes[b] = std::max(v.peak_held.bytes[b], held[b] + arriving[b]);
    // After the checkpoint completes, the buddy keeps one version of each datum it protects.
    for (const CheckpointSave& save : saves.of(c)) {
      const HandleId h = save.handle;
      if (saved_from[h] == save.from) continue;
      const double bytes = double(graph.bytes(h));
      if (saved_from[h] != kNone) {
        for (NodeId buddy : buddies.buddies(saved_from[h])) held[buddy] -= bytes;
      }
      saved_from[h] = save.from;
      for (NodeId buddy : buddies.buddies(save.from)) held[buddy] += bytes;
    }
  }
  return v;
}

}  // namespace ftsim::analysis
