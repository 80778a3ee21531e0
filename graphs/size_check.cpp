#include "graphs/size_check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "graphs/apps/applications.hpp"
#include "graphs/cost_model.hpp"
#include "graphs/ids.hpp"
#include "sim/config/units.hpp"

namespace ftsim::graphs {

namespace {

using config::ApplicationType;
using config::ConfigError;
using config::format_number;

// Bytes per element of the graph and of the simulation, measured on the built-in applications
// and rounded up: the estimate errs on the large side. Peak resident memory of failure-free runs
// under "nic" (/usr/bin/time, 28 November 2026): a 450-tile Cholesky (15.3 M tasks, 45.6 M
// dependencies) 1.85 GB, a 256 x 256-tile stencil of 60 sweeps (7.9 M tasks, 46.6 M dependencies)
// 1.43 GB; fitted, about 60 B per task and 21 B per dependency (accesses and the simulation's
// state per task included). The constants below give 2.07 GB and 1.6 GB for them (+12%).
constexpr double kBytesPerTask = 64;
constexpr double kBytesPerAccess = 4;
constexpr double kBytesPerEdge = 20;
constexpr double kBytesPerHandle = 64;
constexpr double kBytesPerTransfer = 128;
constexpr double kBytesPerCut = 16;
constexpr double kBytesPerGraphFileByte = 16;   // nlohmann's document of a graph file
constexpr double kBytesPerSimgridObject = 3072;  // a host, a switch or a link
constexpr double kBytesPerCore = 16;
constexpr double kBaseBytes = 64.0 * (1 << 20);  // the process itself

// The largest count of the graph's 32-bit ids (kNone is reserved).
constexpr double kMaxIds = double(kNone) - 1;
constexpr double kMaxBytes = 18446744073709551615.0;  // 2^64 - 1

std::string about(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

// The parameter that makes the graph large: the iterations when a single iteration fits,
// else the parameter of one iteration's size.
std::string size_pointer(const config::Config& config, bool one_iteration_fits) {
  switch (config.application.type) {
    case ApplicationType::cholesky: return "/application/tiles";
    case ApplicationType::stencil: return one_iteration_fits ? "/application/iterations" : "/application/tiles";
    case ApplicationType::cg: return one_iteration_fits ? "/application/iterations" : "/application/blocks";
    case ApplicationType::spmd: return one_iteration_fits ? "/application/iterations" : "/platform/nodes";
    case ApplicationType::json: return "/application/file";
    case ApplicationType::wfformat:
    case ApplicationType::dot: return "/application/path";
  }
  return "/application";
}

// The parameter that sets the size of the data handles.
std::string bytes_pointer(const config::Config& config) {
  switch (config.application.type) {
    case ApplicationType::cholesky: return "/application/tile_size";
    case ApplicationType::stencil: return "/application/tile_size";
    case ApplicationType::cg: return "/application/grid";
    case ApplicationType::spmd:
      return config.application.spmd.message_bytes >= config.application.spmd.state_bytes ? "/application/message_size"
                                                                                          : "/application/state_size";
    case ApplicationType::json: return "/application/file";
    case ApplicationType::wfformat:
    case ApplicationType::dot: return "/application/path";
  }
  return "/application";
}

double graph_bytes(const GraphEstimate& e) {
  return e.tasks * kBytesPerTask + e.accesses * kBytesPerAccess + e.edges * kBytesPerEdge + e.handles * kBytesPerHandle +
         e.transfers * kBytesPerTransfer + e.cuts * kBytesPerCut;
}

double platform_bytes(const config::PlatformConfig& p) {
  const double hosts = double(p.nodes) + (p.unlimited_spares ? 0 : p.spares) + p.storage.hosts + 1;
  const auto topology = config::topology_size(p.network, static_cast<std::uint64_t>(hosts));
  const double objects = p.xml.empty() ? double(topology.places) + double(topology.switches) + double(topology.links) : 3 * hosts;
  return objects * kBytesPerSimgridObject + (double(p.nodes) + (p.unlimited_spares ? 0 : p.spares)) * p.cores_per_node * kBytesPerCore;
}

std::string counts(const GraphEstimate& e) {
  return "about " + about(e.tasks) + " tasks, " + about(e.accesses) + " data accesses, " + about(e.edges) + " dependencies and " +
         about(e.handles) + " data handles";
}

// Every task of each kernel must last at most the horizon at its core speed.
void check_task_durations(const config::Config& config, const GraphEstimate& e) {
  const auto& platform = config.platform;
  if (platform.core_gflops.empty() && !platform.default_core_gflops) return;
  for (const KernelFlops& kernel : e.kernels) {
    auto found = platform.core_gflops.find(kernel.name);
    const bool own = found != platform.core_gflops.end();
    if (!own && !platform.default_core_gflops) continue;  // reported by the cost model
    const double gflops = own ? found->second : *platform.default_core_gflops;
    const double seconds = kernel.max_flops / (gflops * 1e9);
    if (seconds <= config::kMaxSeconds) continue;
    const std::string speed = speed_pointer(config, kernel.name);
    if (!kernel.flops_pointer.empty()) {  // the flops are a value of the config
      throw ConfigError(config.file, kernel.flops_pointer,
                        "expected flops with which every " + kernel.name + " task lasts at most " + format_number(config::kMaxSeconds) +
                            " s at " + format_number(gflops) + " GFlop/s (" + speed + "), got " + format_number(kernel.max_flops) +
                            ": " + format_number(seconds) + " s");
    }
    throw ConfigError(config.file, speed,
                      "expected core speeds with which every task lasts at most " + format_number(config::kMaxSeconds) +
                          " s, got " + format_number(gflops) + " GFlop/s for " + kernel.name + " tasks of up to " +
                          format_number(kernel.max_flops) + " flops: " + format_number(seconds) + " s");
  }
}

}  // namespace

double physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0 ? double(pages) * double(page_size) : 0;
}

double estimated_memory_bytes(const config::Config& config) {
  double graph = 0;
  if (config::is_graph_file(config.application.type)) {
    std::error_code error;
    const std::string& file = config.application.type == ApplicationType::json ? config.application.json.file
                                                                                : config.application.workflow.path;
    const auto file_bytes = std::filesystem::file_size(file, error);
    graph = error ? 0 : double(file_bytes) * kBytesPerGraphFileByte;
  } else {
    graph = graph_bytes(estimate_application(config));
  }
  return kBaseBytes + graph + platform_bytes(config.platform);
}

GraphEstimate estimate_application(const config::Config& config) {
  const auto& app = config.application;
  switch (app.type) {
    case ApplicationType::cholesky: return estimate_cholesky(app.cholesky, config.platform.nodes);
    case ApplicationType::stencil: return estimate_stencil(app.stencil);
    case ApplicationType::cg: return estimate_cg(app.cg, config.platform.nodes);
    case ApplicationType::spmd: return estimate_spmd(app.spmd, config.platform.nodes);
    case ApplicationType::json:
    case ApplicationType::wfformat:
    case ApplicationType::dot: break;
  }
  return {};
}

void check_application_size(const config::Config& config) {
  double graph = 0;
  std::string graph_pointer = size_pointer(config, true), graph_text;
  if (config::is_graph_file(config.application.type)) {
    std::error_code error;
    const std::string& file = config.application.type == ApplicationType::json ? config.application.json.file
                                                                                : config.application.workflow.path;
    const auto file_bytes = std::filesystem::file_size(file, error);
    graph = error ? 0 : double(file_bytes) * kBytesPerGraphFileByte;
    graph_text = "the graph file of " + config::format_bytes(double(file_bytes));
  } else {
    const GraphEstimate e = estimate_application(config);
    config::Config one = config;
    one.application.stencil.iterations = one.application.cg.iterations = one.application.spmd.iterations = 1;
    const GraphEstimate first = estimate_application(one);
    const bool one_iteration_fits = std::max({first.tasks, first.accesses, first.edges, first.handles}) <= kMaxIds &&
                                    graph_bytes(first) <= physical_memory_bytes() / 2;
    graph_pointer = size_pointer(config, one_iteration_fits);
    if (std::max({e.tasks, e.accesses, e.edges, e.handles}) > kMaxIds) {
      throw ConfigError(config.file, graph_pointer,
                        "expected a task graph of at most " + std::to_string(kNone - 1) +
                            " tasks, data accesses, dependencies and data handles (its ids are 32-bit), got " + counts(e));
    }
    if (e.largest_handle > kMaxBytes) {
      throw ConfigError(config.file, bytes_pointer(config),
                        "expected data handles of less than 16 EiB, got one of " + about(e.largest_handle) + " bytes");
    }
    if (e.data_bytes > kMaxBytes) {
      throw ConfigError(config.file, bytes_pointer(config),
                        "expected less than 16 EiB of data in all, got " + about(e.data_bytes) + " bytes");
    }
    check_task_durations(config, e);
    graph = graph_bytes(e);
    graph_text = "a graph of " + counts(e);
  }
  const double platform = platform_bytes(config.platform);
  const double needed = kBaseBytes + graph + platform;
  const double available = physical_memory_bytes();
  if (available > 0 && needed > available) {
    const bool graph_larger = graph >= platform;
    const std::string pointer = graph_larger ? graph_pointer : "/platform/nodes";
    const std::string what = graph_larger ? graph_text : "a platform of " + std::to_string(config.platform.nodes) + " nodes of " +
                                                             std::to_string(config.platform.cores_per_node) + " cores";
    throw ConfigError(config.file, pointer,
                      "expected a simulation that fits in memory, got " + what + ": an estimated " + config::format_bytes(needed) +
                          ", more than the " + config::format_bytes(available) + " of physical memory");
  }
}

}  // namespace ftsim::graphs
