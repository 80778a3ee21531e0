// Process clustering for the uncoordinated protocol (Guermouche 2011 §V-E.3): the clusters that
// maximise intra-cluster communication, computed by METIS on the graph's communication matrix.
#include <metis.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "protocols/uncoordinated/unco_options.hpp"

namespace ftsim::protocols::uncoordinated {

std::vector<std::vector<std::uint64_t>> communication_matrix(const graphs::TaskGraph& graph) {
  const std::size_t nodes = graph.node_count();
  std::vector<std::vector<std::uint64_t>> matrix(nodes, std::vector<std::uint64_t>(nodes, 0));
  for (const graphs::Transfer& x : graph.transfers()) {
    if (x.source < nodes && x.destination < nodes && x.source != x.destination) {
      matrix[x.source][x.destination] += graph.bytes(x.handle);
    }
  }
  return matrix;
}

std::vector<std::uint32_t> metis_clusters(const std::vector<std::vector<std::uint64_t>>& matrix, std::uint32_t parts) {
  const std::size_t nodes = matrix.size();
  std::vector<std::uint32_t> cluster(nodes, 0);
  if (parts <= 1 || nodes <= 1) return cluster;
  if (parts >= nodes) {
    for (std::size_t n = 0; n < nodes; ++n) cluster[n] = static_cast<std::uint32_t>(n);
    return cluster;
  }
  // Undirected weights (bytes both ways), scaled so that the largest fits METIS's 32-bit idx_t.
  std::uint64_t largest = 1;
  for (std::size_t a = 0; a < nodes; ++a) {
    for (std::size_t b = 0; b < nodes; ++b) largest = std::max(largest, matrix[a][b] + matrix[b][a]);
  }
  const double scale = largest > 100000000ull ? 100000000.0 / double(largest) : 1.0;
  std::vector<idx_t> xadj{0}, adjncy, adjwgt;
  for (std::size_t a = 0; a < nodes; ++a) {
    for (std::size_t b = 0; b < nodes; ++b) {
      const std::uint64_t bytes = a == b ? 0 : matrix[a][b] + matrix[b][a];
      if (bytes == 0) continue;
      adjncy.push_back(static_cast<idx_t>(b));
      adjwgt.push_back(std::max<idx_t>(1, static_cast<idx_t>(double(bytes) * scale)));
    }
    xadj.push_back(static_cast<idx_t>(adjncy.size()));
  }
  idx_t vertices = static_cast<idx_t>(nodes), constraints = 1, count = static_cast<idx_t>(parts), cut = 0;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1;  // deterministic
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> part(nodes, 0);
  // k-way partitioning; it may leave a part empty on a small graph (4 nodes in 2 of 3 parts, 3 in 1
  // of 2). Then recursive bisection (which METIS's manual advises for fewer than 8 parts), and if a
  // part is still empty each node's cluster from its position (contiguous blocks): never fewer
  // clusters than asked. (Kway first, so that what it partitions well keeps its clusters.)
  const auto every_part_used = [&] {
    std::vector<bool> used(parts, false);
    for (const idx_t p : part) used[static_cast<std::size_t>(p)] = true;
    return std::find(used.begin(), used.end(), false) == used.end();
  };
  for (const auto partition : {METIS_PartGraphKway, METIS_PartGraphRecursive}) {
    const int status = partition(&vertices, &constraints, xadj.data(), adjncy.empty() ? nullptr : adjncy.data(), nullptr,
                                 nullptr, adjwgt.empty() ? nullptr : adjwgt.data(), &count, nullptr, nullptr, options,
                                 &cut, part.data());
    if (status != METIS_OK) throw std::runtime_error("METIS partitioning failed with status " + std::to_string(status));
    if (every_part_used()) {
      for (std::size_t n = 0; n < nodes; ++n) cluster[n] = static_cast<std::uint32_t>(part[n]);
      return cluster;
    }
  }
  for (std::size_t n = 0; n < nodes; ++n) cluster[n] = static_cast<std::uint32_t>(n * parts / nodes);
  return cluster;
}

}  // namespace ftsim::protocols::uncoordinated
