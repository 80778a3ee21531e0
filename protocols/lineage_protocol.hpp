#pragma once
// lineage: no checkpoint. When a node fails, its replacement starts empty; every version that a
// task still to run needs (or that is a final result) and that no live node holds any more is
// recomputed by re-executing the task that wrote it, recursively through that task's own inputs
// (what Dask and Ray do). The plan is made by the coordinator, which like a Dask scheduler knows
// which tasks ran and where each version is held; survivors keep computing meanwhile, re-execute
// the tasks the plan gives them and re-send the versions they hold that others lost.
#include <memory>
#include <vector>

#include "sim/core/protocol.hpp"
#include "sim/core/protocol_context.hpp"

namespace ftsim::protocols {

struct LineageShared {
  std::vector<std::uint8_t> marked;  // per task: re-execution ordered by a plan, not yet done
  std::uint64_t outstanding = 0;
};

class LineageProtocol final : public core::Protocol {
public:
  LineageProtocol(std::shared_ptr<LineageShared> shared, bool coordinator)
      : shared_(std::move(shared)), coordinator_(coordinator) {}

  void on_task_completed(core::ProtocolContext& ctx, core::TaskId task, bool first_execution) override;
  void on_failure_detected(core::ProtocolContext& ctx, core::NodeId failed) override;
  void on_restart(core::ProtocolContext& ctx) override;
  bool finished(core::ProtocolContext& ctx) override;

private:
  void plan(core::ProtocolContext& ctx);
  void check_recovered(core::ProtocolContext& ctx);

  std::shared_ptr<LineageShared> shared_;
  bool coordinator_;
};

}  // namespace ftsim::protocols
