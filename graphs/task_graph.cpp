#include "graphs/task_graph.hpp"

#include "graphs/huge_pages.hpp"

#include <algorithm>
#include <numeric>

namespace ftsim::graphs {

namespace {
std::string label_suffix(const Label& label, char open, char separator, char close) {
  std::string text;
  for (std::int32_t index : {label.a, label.b, label.c}) {
    if (index < 0) break;
    text += text.empty() ? open : separator;
    text += std::to_string(index);
  }
  if (!text.empty()) text += close;
  return text;
}
}  // namespace

std::string TaskGraph::task_name(TaskId t) const {
  std::string suffix = label_suffix(task_label_[t], '(', ',', ')');
  return kernel_names_[task_kernel_[t]] + (suffix.empty() ? "#" + std::to_string(t) : suffix);
}

std::string TaskGraph::handle_name(HandleId h) const {
  const Label& label = handle_label_[h];
  if (label.a < 0) {
    // Family 0 is the default "data": number it; any other family without a label is a name.
    return handle_family_[h] == 0 ? family_names_[0] + "#" + std::to_string(h) : family_names_[handle_family_[h]];
  }
  std::string text = family_names_[handle_family_[h]];
  for (std::int32_t index : {label.a, label.b, label.c}) {
    if (index < 0) break;
    text += "[" + std::to_string(index) + "]";
  }
  return text;
}

std::span<const TaskId> TaskGraph::successors(TaskId t) const {
  auto [first, last] = boost::adjacent_vertices(t, dag_);
  return {first, last};
}

const TaskGraph::CutEntries& TaskGraph::cut_entries() const {
  std::call_once(cut_entries_->computed, [this] {
    CutEntries& cut = *cut_entries_;
    std::vector<Version> version(handle_count(), 0);
    std::vector<std::uint32_t> section_of(handle_count(), 0);  // last section that wrote it, + 1
    std::vector<HandleId> written;
    cut.offset.assign(1, 0);
    TaskId t = 0;
    for (std::uint32_t c = 1; c <= cut_position_.size(); ++c) {
      for (; t < cut_position_[c - 1]; ++t) {
        for (const Access& a : accesses(t)) {
          if (!writes(a.mode)) continue;
          version[a.handle] = a.version;  // versions grow with submission: the last write wins
          if (section_of[a.handle] != c) {
            section_of[a.handle] = c;
            written.push_back(a.handle);
          }
        }
      }
      // In handle order: sorted, or, when most handles were written (a stencil's sweep writes every
      // tile), read off in one pass over the handles, cheaper than the sort.
      if (written.size() * 16 < handle_count()) {
        std::sort(written.begin(), written.end());
        for (HandleId h : written) cut.entries.push_back({h, version[h]});
      } else {
        for (HandleId h = 0; h < handle_count(); ++h) {
          if (section_of[h] == c) cut.entries.push_back({h, version[h]});
        }
      }
      cut.offset.push_back(static_cast<std::uint32_t>(cut.entries.size()));
      written.clear();
    }
  });
  return *cut_entries_;
}

CutId TaskGraph::section(TaskId t) const {
  // Cuts at position <= t come before task t.
  return static_cast<CutId>(std::upper_bound(cut_position_.begin(), cut_position_.end(), t) -
                            cut_position_.begin());
}

std::uint64_t TaskGraph::total_data_bytes() const {
  return std::accumulate(handle_bytes_.begin(), handle_bytes_.end(), std::uint64_t{0});
}

void TaskGraph::set_dependencies(std::vector<std::uint32_t> predecessor_offset, std::vector<TaskId> predecessors,
                                 BackgroundPrefault& prefault) {
  // A directed Boost CSR graph filled directly (its arrays are public members): Boost's edge-list
  // constructor sorts the edges twice through temporary copies, while ours are already sorted by
  // target. Same layout as that constructor makes: out-edges of a task in edge order (so by target).
  const std::size_t tasks = task_kernel_.size();
  const std::size_t edges = predecessors.size();
  dag_.m_vertex_properties.resize(tasks);
  std::vector<std::uint32_t>& out_start = dag_.m_forward.m_rowstart;
  reserve_on_huge_pages(out_start, tasks + 1);
  out_start.assign(tasks + 1, 0);
  for (TaskId source : predecessors) ++out_start[source];
  std::uint32_t first = 0;
  for (std::size_t t = 0; t <= tasks; ++t) {
    const std::uint32_t degree = out_start[t];
    out_start[t] = first;
    first += degree;
  }
  // out_start[s] is now the first out-edge of s; used as a cursor it ends at the next one's.
  std::vector<TaskId>& successors = dag_.m_forward.m_column;
  reserve_on_huge_pages(successors, edges);
  prefault.add(successors);
  successors.resize(edges);
  for (TaskId t = 0; t < tasks; ++t) {
    for (std::uint32_t e = predecessor_offset[t]; e < predecessor_offset[t + 1]; ++e) {
      successors[out_start[predecessors[e]]++] = t;
    }
  }
  std::copy_backward(out_start.begin(), out_start.end() - 1, out_start.end());
  out_start[0] = 0;
  // The edge list itself is the predecessors' CSR.
  predecessor_offset_ = std::move(predecessor_offset);
  predecessors_ = std::move(predecessors);
}

}  // namespace ftsim::graphs
