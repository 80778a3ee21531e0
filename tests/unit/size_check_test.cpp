// Graph estimates (graphs/apps/*: estimate_*) against the graphs the applications build, and the
// refusals of graphs/size_check.cpp: the estimates must be exact for tasks and handles and never
// below the built graph for the rest, or a graph that does not fit could slip through.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>

#include "graphs/application.hpp"
#include "graphs/size_check.hpp"

using namespace ftsim;
using namespace ftsim::graphs;

namespace {

config::Config make_config(const config::Json& application, std::uint32_t nodes) {
  config::Json document = {{"application", application}, {"platform", {{"nodes", nodes}, {"core_gflops", 1}}}};
  return config::load_config_json(document, "test.json");
}

config::ConfigError error_of(const config::Json& application, std::uint32_t nodes, config::Json platform = {}) {
  config::Json document = {{"application", application}, {"platform", {{"nodes", nodes}, {"core_gflops", 1}}}};
  for (const auto& item : platform.items()) document["platform"][item.key()] = item.value();
  const config::Config cfg = config::load_config_json(document, "test.json");
  try {
    check_application_size(cfg);
  } catch (const config::ConfigError& error) {
    return error;
  }
  FAIL("expected a ConfigError");
  return config::ConfigError("", "", "");
}

}  // namespace

TEST_CASE("estimates bound the graphs the applications build", "[graphs][size_check]") {
  const std::pair<config::Json, std::uint32_t> cases[] = {
      {{{"type", "cholesky"}, {"tiles", 7}, {"tile_size", 16}}, 4},
      {{{"type", "cholesky"}, {"tiles", 12}, {"tile_size", 8}, {"order", "triangle"}}, 6},
      {{{"type", "cholesky"}, {"tiles", 1}, {"tile_size", 8}}, 1},
      {{{"type", "stencil"}, {"tiles", {5, 3}}, {"tile_size", {16, 8}}, {"iterations", 4}}, 4},
      {{{"type", "stencil"}, {"tiles", 1}, {"tile_size", 16}, {"iterations", 3}}, 1},
      {{{"type", "cg"}, {"grid", 50}, {"blocks", 7}, {"iterations", 3}}, 4},
      {{{"type", "spmd"}, {"pattern", "ring"}, {"iterations", 5}, {"message_size", 64}, {"state_size", 1000}, {"flops", 1e6}}, 5},
      {{{"type", "spmd"}, {"pattern", "halo2d"}, {"iterations", 3}, {"message_size", 64}, {"state_size", 10}, {"flops", 1e6}}, 12},
      {{{"type", "spmd"}, {"pattern", "alltoall"}, {"iterations", 2}, {"message_size", 64}, {"state_size", 10}, {"flops", 1e6}}, 6},
      {{{"type", "spmd"}, {"pattern", "tree"}, {"iterations", 2}, {"message_size", 64}, {"state_size", 10}, {"flops", 1e6}}, 7},
      {{{"type", "spmd"}, {"pattern", "ring"}, {"iterations", 2}, {"message_size", 64}, {"state_size", 10}, {"flops", 1e6}}, 1},
  };
  for (const auto& [application, nodes] : cases) {
    INFO(application.dump() << " on " << nodes << " nodes");
    const config::Config cfg = make_config(application, nodes);
    const GraphEstimate e = estimate_application(cfg);
    const TaskGraph graph = build_application(cfg);
    std::size_t accesses = 0;
    std::map<std::string, double> max_flops;
    for (TaskId t = 0; t < graph.task_count(); ++t) {
      accesses += graph.accesses(t).size();
      double& flops = max_flops[graph.kernel_name(graph.kernel(t))];
      flops = std::max(flops, graph.flops(t));
    }
    std::uint64_t largest = 0;
    for (HandleId h = 0; h < graph.handle_count(); ++h) largest = std::max(largest, graph.bytes(h));
    CHECK(e.tasks == double(graph.task_count()));
    CHECK(e.handles == double(graph.handle_count()));
    CHECK(e.cuts == double(graph.cut_count()));
    CHECK(e.accesses >= double(accesses));
    CHECK(e.accesses <= 1.2 * double(accesses));
    CHECK(e.edges >= double(graph.edge_count()));
    CHECK(e.edges <= 3.0 * double(graph.edge_count()) + 10);
    CHECK(e.transfers >= double(graph.transfers().size()));
    CHECK(e.data_bytes == Approx(double(graph.total_data_bytes())).margin(1));
    CHECK(e.largest_handle >= double(largest));
    for (const KernelFlops& kernel : e.kernels) {
      INFO(kernel.name);
      CHECK(kernel.max_flops >= max_flops[kernel.name]);
    }
  }
}

TEST_CASE("graphs beyond 32-bit ids, 64-bit sizes or the horizon are refused with the key", "[graphs][size_check]") {
  config::ConfigError error = error_of({{"type", "cholesky"}, {"tiles", 4294967295U}, {"tile_size", 128}}, 4);
  CHECK(error.pointer() == "/application/tiles");
  CHECK(error.message().rfind("expected a task graph of at most 4294967294 tasks", 0) == 0);
  CHECK(error.message().find("about 1.32e+28 tasks") != std::string::npos);

  error = error_of({{"type", "spmd"}, {"pattern", "ring"}, {"iterations", 4294967295U}, {"message_size", 64},
                    {"state_size", 64}, {"flops", 1}}, 4);
  CHECK(error.pointer() == "/application/iterations");

  // One all-to-all iteration on 2^20 nodes is already 10^12 messages: the nodes are too many.
  error = error_of({{"type", "spmd"}, {"pattern", "alltoall"}, {"iterations", 1}, {"message_size", 64},
                    {"state_size", 64}, {"flops", 1}}, 1 << 20);
  CHECK(error.pointer() == "/platform/nodes");

  error = error_of({{"type", "stencil"}, {"tiles", 100000}, {"tile_size", 8}, {"iterations", 1}}, 4);
  CHECK(error.pointer() == "/application/tiles");
  error = error_of({{"type", "stencil"}, {"tiles", 10}, {"tile_size", 8}, {"iterations", 100000000}}, 4);
  CHECK(error.pointer() == "/application/iterations");

  // b x b doubles of 2^31 wrapped around to 0 bytes.
  error = error_of({{"type", "cholesky"}, {"tiles", 6}, {"tile_size", 2147483648U}}, 4);
  CHECK(error.pointer() == "/application/tile_size");
  CHECK(error.message() == "expected data handles of less than 16 EiB, got one of 3.69e+19 bytes");
  error = error_of({{"type", "cg"}, {"grid", 2000000000}, {"blocks", 100}, {"iterations", 1}}, 4);
  CHECK(error.pointer() == "/application/grid");

  error = error_of({{"type", "cholesky"}, {"tiles", 6}, {"tile_size", 128}}, 4, {{"core_gflops", 1e-300}});
  CHECK(error.pointer() == "/platform/core_gflops");
  CHECK(error.message().rfind("expected core speeds with which every task lasts at most 1e+15 s, got 1e-300 GFlop/s", 0) == 0);
  error = error_of({{"type", "cholesky"}, {"tiles", 6}, {"tile_size", 128}}, 4,
                   {{"core_gflops", {{"default", 1}, {"GEMM", 1e-300}}}});
  CHECK(error.pointer() == "/platform/core_gflops/GEMM");
  error = error_of({{"type", "spmd"}, {"pattern", "ring"}, {"iterations", 2}, {"message_size", 64}, {"state_size", 64},
                    {"flops", 1e308}}, 4);
  CHECK(error.pointer() == "/application/flops");
}

TEST_CASE("a graph larger than the physical memory is refused", "[graphs][size_check]") {
  // About 6.8e8 tasks and 2e9 dependencies: well over 100 GB.
  if (physical_memory_bytes() > 100e9) return;
  const config::ConfigError error = error_of({{"type", "cholesky"}, {"tiles", 1600}, {"tile_size", 128}}, 4);
  CHECK(error.pointer() == "/application/tiles");
  CHECK(error.message().rfind("expected a simulation that fits in memory, got a graph of about 6.84e+08 tasks", 0) == 0);
  CHECK(error.message().find("of physical memory") != std::string::npos);
}
