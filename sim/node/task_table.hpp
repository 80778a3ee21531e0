#pragma once
// Execution state of the tasks of one node (struct of arrays indexed by the task's local slot,
// RuntimeIndex::local_slot). Each node runtime owns its own: nothing about another node's tasks
// is in a node's memory.
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::core {

enum class TaskStatus : std::uint8_t { waiting, ready, running, done };

struct TaskTable {
  explicit TaskTable(std::size_t tasks)
      : status(tasks, TaskStatus::waiting), executed_once(tasks, 0), executions(tasks, 0), pending(tasks, 0) {}

  std::vector<TaskStatus> status;
  // The task's application sends are done (it ran since the last rollback that undid it, or a
  // recovery plan said its consumers are served another way).
  std::vector<std::uint8_t> executed_once;
  std::vector<std::uint16_t> executions;  // completed executions by this incarnation
  std::vector<std::int32_t> pending;      // unsatisfied dependencies while waiting
};

}  // namespace ftsim::core
