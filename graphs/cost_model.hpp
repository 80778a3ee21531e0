#pragma once
// The cost model: seconds of a task on one core = its flops / (core GFlop/s of its kernel).
// Kernel speeds come from /platform/core_gflops; a kernel without a speed and no "default" is a
// config error naming that path. A task longer than config::kMaxSeconds is a config error too
// (its kernel's speed is too low for its flops).
#include <optional>
#include <string>
#include <vector>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

class CostModel {
public:
  // Throws ConfigError when the config gives speeds but misses one of the graph's kernels.
  CostModel(const config::Config& config, const TaskGraph& graph);

  // False when the config gives no kernel speed at all (then seconds() must not be used).
  bool has_speeds() const { return !flops_per_second_.empty(); }
  double flops_per_second(KernelId k) const { return flops_per_second_[k]; }
  double seconds(const TaskGraph& graph, TaskId t) const {
    return graph.flops(t) / flops_per_second_[graph.kernel(t)];
  }

private:
  std::vector<double> flops_per_second_;
};

// The JSON pointer of the speed that applies to `kernel`: /platform/core_gflops (one number),
// /platform/core_gflops/<kernel> or /platform/core_gflops/default.
std::string speed_pointer(const config::Config& config, const std::string& kernel);

}  // namespace ftsim::graphs
