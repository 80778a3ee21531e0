#include "protocols/uncoordinated/unco_line.hpp"

#include <algorithm>

namespace ftsim::protocols::uncoordinated {

std::vector<std::uint32_t> recovery_line(std::vector<std::uint32_t> line,
                                         const std::vector<std::vector<messages::Dependency>>& dependencies) {
  const std::size_t processes = line.size();
  struct Edge {
    std::uint32_t threshold, epoch;
    std::size_t reporter;
  };
  std::vector<std::vector<Edge>> by_trigger(processes);
  for (std::size_t p = 0; p < dependencies.size() && p < processes; ++p) {
    for (const messages::Dependency& d : dependencies[p]) {
      if (d.trigger < processes) by_trigger[d.trigger].push_back({d.threshold, d.epoch, p});
    }
  }
  // Highest threshold first: as the trigger's epoch goes down, more of its dependencies apply.
  for (auto& edges : by_trigger) {
    std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.threshold > b.threshold; });
  }
  std::vector<std::size_t> cursor(processes, 0);
  std::vector<std::size_t> worklist;
  for (std::size_t p = 0; p < processes; ++p) {
    if (line[p] != messages::kNoEpoch) worklist.push_back(p);
  }
  while (!worklist.empty()) {
    const std::size_t t = worklist.back();
    worklist.pop_back();
    auto& edges = by_trigger[t];
    while (cursor[t] < edges.size() && edges[cursor[t]].threshold >= line[t]) {
      const Edge& e = edges[cursor[t]++];
      if (e.epoch < line[e.reporter]) {
        line[e.reporter] = e.epoch;
        worklist.push_back(e.reporter);
      }
    }
  }
  return line;
}

}  // namespace ftsim::protocols::uncoordinated
