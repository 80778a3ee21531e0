#pragma once
// Execution state of the tasks of one node, indexed by the task's local slot
// (RuntimeIndex::local_slot). Each node runtime owns its own: nothing about another node's tasks
// is in a node's memory. One 8-byte record per task rather than one array per field: a task's
// start and end read and write all of them, and at millions of tasks each separate array costs a
// cache miss per event.
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::node {

enum class TaskStatus : std::uint8_t { waiting, ready, running, done };

struct TaskState {
  TaskStatus status = TaskStatus::waiting;
  // The task's application sends are done (it ran since the last rollback that undid it, or a
  // recovery plan said its consumers are served another way).
  std::uint8_t executed_once = 0;
  std::uint16_t executions = 0;  // completed executions by this incarnation
  std::int32_t pending = 0;      // unsatisfied dependencies while waiting
};
static_assert(sizeof(TaskState) == 8);

using TaskTable = std::vector<TaskState>;

}  // namespace ftsim::node
