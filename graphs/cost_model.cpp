#include "graphs/cost_model.hpp"

#include "sim/config/units.hpp"

namespace ftsim::graphs {

std::string speed_pointer(const config::Config& config, const std::string& kernel) {
  const auto& document = config.document;
  if (document.contains("platform") && document["platform"].contains("core_gflops") &&
      document["platform"]["core_gflops"].is_number()) {
    return "/platform/core_gflops";
  }
  const bool own = config.platform.core_gflops.count(kernel) > 0;
  return "/platform/core_gflops/" + (own ? config::escape_pointer_token(kernel) : std::string("default"));
}

CostModel::CostModel(const config::Config& config, const TaskGraph& graph) {
  const auto& platform = config.platform;
  if (platform.core_gflops.empty() && !platform.default_core_gflops) return;
  for (KernelId k = 0; k < graph.kernel_count(); ++k) {
    auto found = platform.core_gflops.find(graph.kernel_name(k));
    if (found != platform.core_gflops.end()) {
      flops_per_second_.push_back(found->second * 1e9);
    } else if (platform.default_core_gflops) {
      flops_per_second_.push_back(*platform.default_core_gflops * 1e9);
    } else {
      throw config::ConfigError(config.file, "/platform/core_gflops",
                                "no speed for kernel \"" + graph.kernel_name(k) +
                                    "\" of the graph and no \"default\"");
    }
  }
  // A task that lasts longer than the horizon (e.g. 1e308 flops of a graph file) would make the
  // simulated times infinite.
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    const double duration = seconds(graph, t);
    if (duration <= config::kMaxSeconds) continue;
    const std::string& kernel = graph.kernel_name(graph.kernel(t));
    throw config::ConfigError(config.file, speed_pointer(config, kernel),
                              "expected core speeds with which every task lasts at most " + config::format_number(config::kMaxSeconds) +
                                  " s, got " + config::format_number(flops_per_second_[graph.kernel(t)] / 1e9) + " GFlop/s for task " +
                                  graph.task_name(t) + " of " + config::format_number(graph.flops(t)) + " flops: " +
                                  config::format_number(duration) + " s");
  }
  for (const auto& [name, speed] : platform.core_gflops) {
    bool used = false;
    for (KernelId k = 0; k < graph.kernel_count(); ++k) used = used || graph.kernel_name(k) == name;
    if (!used) {
      throw config::ConfigError(config.file, "/platform/core_gflops/" + config::escape_pointer_token(name),
                                "the graph has no kernel \"" + name + "\"");
    }
  }
}

}  // namespace ftsim::graphs
