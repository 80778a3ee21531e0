#pragma once
// Execution state of every task, shared by the node runtimes of one process and indexed by task
// id (struct of arrays; each node only touches its own tasks).
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::core {

enum class TaskStatus : std::uint8_t { waiting, ready, running, done };

struct TaskTable {
  explicit TaskTable(std::size_t tasks)
      : status(tasks, TaskStatus::waiting), executed_once(tasks, 0), executions(tasks, 0), pending(tasks, 0) {}

  std::vector<TaskStatus> status;
  // The task ran since the last rollback that undid it: its application sends are done.
  std::vector<std::uint8_t> executed_once;
  std::vector<std::uint16_t> executions;  // completed executions, for re-execution counts
  std::vector<std::int32_t> pending;      // unsatisfied dependencies while waiting
};

}  // namespace ftsim::core
