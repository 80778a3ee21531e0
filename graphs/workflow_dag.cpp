#include "graphs/workflow_dag.hpp"

#include <algorithm>
#include <unordered_map>

#include "graphs/stf_builder.hpp"
#include "sim/config/config_error.hpp"

namespace ftsim::graphs {

namespace {

using config::ConfigError;

// Every dependency of the workflow: the explicit parents and producer -> consumer through a file
// (the builder would add the latter anyway; the order must respect it).
struct Edges {
  std::vector<std::vector<std::uint32_t>> successors, predecessors;
};

Edges collect_edges(const WorkflowDag& dag) {
  const auto n = static_cast<std::uint32_t>(dag.tasks.size());
  Edges e{std::vector<std::vector<std::uint32_t>>(n), std::vector<std::vector<std::uint32_t>>(n)};
  std::vector<std::vector<std::uint32_t>> producers(dag.files.size());
  for (std::uint32_t t = 0; t < n; ++t) {
    for (std::uint32_t f : dag.tasks[t].outputs) producers[f].push_back(t);
  }
  auto add = [&](std::uint32_t from, std::uint32_t to) {
    e.successors[from].push_back(to);
    e.predecessors[to].push_back(from);
  };
  for (std::uint32_t t = 0; t < n; ++t) {
    for (std::uint32_t p : dag.tasks[t].parents) add(p, t);
    for (std::uint32_t f : dag.tasks[t].inputs) {
      for (std::uint32_t p : producers[f]) {
        if (p != t) add(p, t);
      }
    }
  }
  return e;
}

// A task on a cycle, found from a task left over by Kahn's algorithm: each left-over task has a
// left-over predecessor, so walking predecessors must come back to a task already seen.
std::uint32_t task_on_cycle(const Edges& e, const std::vector<std::uint32_t>& indegree, std::uint32_t start) {
  std::vector<bool> seen(indegree.size(), false);
  std::uint32_t t = start;
  while (!seen[t]) {
    seen[t] = true;
    for (std::uint32_t p : e.predecessors[t]) {
      if (indegree[p] > 0) {
        t = p;
        break;
      }
    }
  }
  return t;
}

}  // namespace

std::string kernel_of_task_name(const std::string& name) {
  std::size_t end = name.size();
  while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') --end;
  if (end >= 2 && name.compare(end - 2, 2, "ID") == 0 && end < name.size()) end -= 2;
  while (end > 0 && (name[end - 1] == '_' || name[end - 1] == '-' || name[end - 1] == '.')) --end;
  return end == 0 ? "task" : name.substr(0, end);
}

TaskGraph build_workflow(const WorkflowDag& dag, const WorkflowOptions& options) {
  const auto n = static_cast<std::uint32_t>(dag.tasks.size());
  const Edges edges = collect_edges(dag);

  // Kahn's algorithm level by level: level 0 has no parent, level L + 1 the tasks whose last
  // parent is at level L. Within a level, the file's order. The result is the submission order.
  std::vector<std::uint32_t> indegree(n), order, level_start;
  order.reserve(n);
  for (std::uint32_t t = 0; t < n; ++t) indegree[t] = static_cast<std::uint32_t>(edges.predecessors[t].size());
  for (std::uint32_t t = 0; t < n; ++t) {
    if (indegree[t] == 0) order.push_back(t);
  }
  std::size_t begin = 0;
  while (begin < order.size()) {
    const std::size_t end = order.size();
    level_start.push_back(static_cast<std::uint32_t>(begin));
    for (std::size_t i = begin; i < end; ++i) {
      for (std::uint32_t s : edges.successors[order[i]]) {
        if (--indegree[s] == 0) order.push_back(s);
      }
    }
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(end), order.end());
    begin = end;
  }
  if (order.size() < n) {
    std::uint32_t left = 0;
    while (indegree[left] == 0) ++left;
    const std::uint32_t t = task_on_cycle(edges, indegree, left);
    throw ConfigError(dag.origin, dag.where(t), "this task is on a dependency cycle: a workflow must be a DAG");
  }

  // Placement: the node of each task, by its position k in the submission order.
  std::vector<NodeId> node(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t t = order[k];
    switch (options.placement) {
      case config::WorkflowPlacement::round_robin: node[t] = k % options.nodes; break;
      case config::WorkflowPlacement::distribution: node[t] = options.distribution->owner(k, n); break;
      case config::WorkflowPlacement::file:
        if (!dag.tasks[t].machine) {
          throw ConfigError(dag.origin, dag.where(t),
                            "placement \"file\" needs the " + dag.machine_key + " of every task; this task has none");
        }
        node[t] = *dag.tasks[t].machine % options.nodes;
        break;
    }
  }

  StfBuilder builder(options.nodes);
  // Files: owned by the node of their first writer (version 0 is never read then), else of their
  // first reader (the initial value sits where it is first needed). Unused files are left out.
  constexpr std::uint32_t kUnset = kNone;
  std::vector<std::uint32_t> first_writer(dag.files.size(), kUnset), first_reader(dag.files.size(), kUnset);
  for (std::uint32_t k = 0; k < n; ++k) {
    const WorkflowTask& task = dag.tasks[order[k]];
    for (std::uint32_t f : task.outputs) {
      if (first_writer[f] == kUnset) first_writer[f] = order[k];
    }
    for (std::uint32_t f : task.inputs) {
      if (first_reader[f] == kUnset) first_reader[f] = order[k];
    }
  }
  std::vector<HandleId> handle(dag.files.size(), kNone);
  for (std::size_t f = 0; f < dag.files.size(); ++f) {
    const std::uint32_t t = first_writer[f] != kUnset ? first_writer[f] : first_reader[f];
    if (t != kUnset) handle[f] = builder.data(dag.files[f].bytes, node[t]);
  }
  // A parent edge that no file carries becomes a 0-byte "done" handle of the parent, written by
  // it and read by the child: the builder only knows dependencies through data.
  auto carried = [&](std::uint32_t parent, std::uint32_t child) {
    for (std::uint32_t f : dag.tasks[child].inputs) {
      const auto& out = dag.tasks[parent].outputs;
      if (std::find(out.begin(), out.end(), f) != out.end()) return true;
    }
    return false;
  };
  std::vector<HandleId> done(n, kNone);
  std::vector<std::vector<std::uint32_t>> control_parents(n);
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t child = order[k];
    for (std::uint32_t parent : dag.tasks[child].parents) {
      if (carried(parent, child)) continue;
      if (done[parent] == kNone) done[parent] = builder.data(0, node[parent]);
      control_parents[child].push_back(parent);
    }
  }

  // Submission in level order, a candidate cut before every K-th level.
  std::unordered_map<std::string, KernelId> kernels;
  std::vector<AccessSpec> accesses;
  std::size_t next_level = 1;
  for (std::uint32_t k = 0; k < n; ++k) {
    while (next_level < level_start.size() && level_start[next_level] == k) {
      if (next_level % options.cut_levels == 0) builder.checkpoint();
      ++next_level;
    }
    const std::uint32_t t = order[k];
    const WorkflowTask& task = dag.tasks[t];
    auto kernel = kernels.find(task.kernel);
    if (kernel == kernels.end()) kernel = kernels.emplace(task.kernel, builder.kernel(task.kernel, 0)).first;
    accesses.clear();
    for (std::uint32_t f : task.inputs) accesses.push_back({handle[f], AccessMode::R});
    for (std::uint32_t f : task.outputs) accesses.push_back({handle[f], AccessMode::W});  // R + W merge to RW
    for (std::uint32_t p : control_parents[t]) accesses.push_back({done[p], AccessMode::R});
    if (done[t] != kNone) accesses.push_back({done[t], AccessMode::W});
    builder.task(kernel->second, accesses, node[t], task.priority, {}, task.flops);
  }
  return builder.finish();
}

}  // namespace ftsim::graphs
