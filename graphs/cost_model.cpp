#include "graphs/cost_model.hpp"

#include <cmath>
#include <optional>

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

namespace {

// A kernel timed by a StarPU model: the speed that gives its tasks the entry's mean duration.
// All its tasks must have the same flops (one tile size), else one duration cannot fit them.
double model_speed(const config::Config& config, const TaskGraph& graph, KernelId k, const config::KernelModel& model) {
  const std::string& name = graph.kernel_name(k);
  const std::string pointer = "/platform/kernel_models/" + config::escape_pointer_token(name);
  std::optional<double> flops;
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    if (graph.kernel(t) != k) continue;
    if (flops && *flops != graph.flops(t)) {
      throw config::ConfigError(config.file, pointer, "the " + name + " tasks have different flops (" + config::format_number(*flops) +
                                    " and " + config::format_number(graph.flops(t)) + "): one measured duration cannot time them all");
    }
    flops = graph.flops(t);
  }
  if (!flops) return 1;  // no task of this kernel: any speed
  const config::PerfmodelEntry* chosen = nullptr;
  std::string available;
  for (const auto& e : model.entries) {
    const bool match = model.size ? e.size == *model.size : std::abs(e.flops - *flops) <= 1e-9 * *flops;
    if (match && !chosen) chosen = &e;
    available += (available.empty() ? "" : ", ") + (model.size ? std::to_string(e.size) + " bytes" : config::format_number(e.flops) + " flops");
  }
  if (!chosen) {
    throw config::ConfigError(config.file, pointer,
                              "no entry of " + model.file + " for " +
                                  (model.size ? std::to_string(*model.size) + " bytes (\"size\")" : config::format_number(*flops) + " flops (the " + name + " tasks' flops)") +
                                  "; it has " + available);
  }
  if (!(chosen->mean_us > 0)) {
    throw config::ConfigError(model.file + ":" + std::to_string(chosen->line), "", "the entry chosen for " + name + " has a mean duration of 0");
  }
  return *flops > 0 ? *flops / (chosen->mean_us * 1e-6) : 1;
}

}  // namespace

CostModel::CostModel(const config::Config& config, const TaskGraph& graph) {
  const auto& platform = config.platform;
  if (platform.core_gflops.empty() && !platform.default_core_gflops && platform.kernel_models.empty()) return;
  for (KernelId k = 0; k < graph.kernel_count(); ++k) {
    auto found = platform.core_gflops.find(graph.kernel_name(k));
    auto model = platform.kernel_models.find(graph.kernel_name(k));
    if (model != platform.kernel_models.end()) {
      flops_per_second_.push_back(model_speed(config, graph, k, model->second));
    } else if (found != platform.core_gflops.end()) {
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
