#pragma once
// A workflow read from a file (WfFormat JSON, DOT) before it becomes a TaskGraph: tasks with their
// cost, parents and input/output files. build_workflow() submits it to the STF builder in a
// topological order, so versions, transfers (cache rule) and cuts come from the builder
// (docs/inputs.md#task-graphs).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graphs/distribution.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

struct WorkflowTask {
  std::string kernel;                     // tasks of one kernel share a name (and a core speed)
  double flops = 0;
  std::optional<std::uint32_t> machine;   // the file's machine or host index (placement "file")
  std::int32_t priority = 0;
  std::vector<std::uint32_t> parents;     // dependencies without data (or with: duplicates are harmless)
  std::vector<std::uint32_t> inputs;      // file indices read
  std::vector<std::uint32_t> outputs;     // file indices written
};

struct WorkflowFile {
  std::uint64_t bytes = 0;
};

struct WorkflowDag {
  std::string origin;                     // the file, for messages
  std::vector<WorkflowTask> tasks;
  std::vector<WorkflowFile> files;
  // Where task i is in the file: a JSON pointer or "line N" (only called on error).
  std::function<std::string(std::uint32_t)> where;
  // What placement "file" reads, for the message when a task has none ("machines", "performer").
  std::string machine_key = "machine";
};

struct WorkflowOptions {
  config::WorkflowPlacement placement = config::WorkflowPlacement::round_robin;
  const Distribution* distribution = nullptr;  // placement "distribution"
  std::uint32_t cut_levels = 1;
  NodeId nodes = 1;
};

// Throws ConfigError naming dag.origin and the task's place for a cycle or a task without a machine.
TaskGraph build_workflow(const WorkflowDag& dag, const WorkflowOptions& options);

// The kernel of a task name: its trailing instance number removed ("split_ID0000001" and
// "split_00042" are "split"; "task7" is "task"); a name that is only a number is "task".
std::string kernel_of_task_name(const std::string& name);

}  // namespace ftsim::graphs
