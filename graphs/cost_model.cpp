#include "graphs/cost_model.hpp"

namespace ftsim::graphs {

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
