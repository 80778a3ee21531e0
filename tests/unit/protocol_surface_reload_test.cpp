// The protocol surface's reload of a version from a snapshot the node took (ProtocolRuntime::
// reload_version; CCK's survivors re-execute tasks from their own copy of the last checkpoint,
// Besseron 2006 §3.5). One node: t0 writes X (v1), t1 updates it in place (v2, so v1 leaves the
// memory), t2 reads v2. After t1 the probe marks t1 for re-execution: without the reload its input
// X v1 is gone and the run stalls; with it, t1 runs again and the digests are the failure-free
// ones. No SimGrid.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/node/protocol_context.hpp"
#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

struct Seen {
  bool reloaded = false, unknown_refused = false, states_kept = false;
};

struct Reloading final : node::Protocol {
  Seen* seen;
  bool reload;
  std::optional<node::NodeSnapshot> after_t0;
  bool marked = false;
  Reloading(Seen* s, bool r) : seen(s), reload(r) {}
  void on_task_completed(node::ProtocolContext& ctx, node::TaskId task, bool first) override {
    node::ProtocolRuntime runtime = ctx.runtime();
    if (task == 0) after_t0 = runtime.snapshot();
    if (task != 1 || !first || marked) return;
    marked = true;
    REQUIRE_FALSE(runtime.holds(0, 1));  // overwritten in place by t1
    runtime.mark_for_reexecution(1);
    if (reload) {
      seen->reloaded = runtime.reload_version(*after_t0, 0, 1);
      seen->unknown_refused = !runtime.reload_version(*after_t0, 0, 2);  // not in that snapshot
      seen->states_kept = runtime.status(0) == node::TaskStatus::done && runtime.status(1) != node::TaskStatus::done;
    }
    runtime.rebuild();
  }
};

config::Json chain(const std::filesystem::path& file) {
  std::ofstream(file) << R"({"format": "ftsim-graph", "version": 1, "nodes": 1,
    "kernels": [{"name": "f", "flops": 1e6}],
    "data": [{"name": "X", "bytes": 8, "owner": 0}, {"name": "Y", "bytes": 8, "owner": 0}],
    "submission": [{"kernel": "f", "node": 0, "access": [["W", "X"]]},
                   {"kernel": "f", "node": 0, "access": [["RW", "X"]]},
                   {"kernel": "f", "node": 0, "access": [["R", "X"], ["W", "Y"]]}]})";
  return {{"application", {{"type", "json"}, {"file", file.string()}}},
          {"platform", {{"nodes", 1}, {"cores_per_node", 1}, {"core_gflops", 2}}},
          {"protocol", {{"type", "none"}}}};
}

}  // namespace

TEST_CASE("protocol surface: a version is reloaded from the node's own snapshot, task states untouched",
          "[core][surface]") {
  const auto file = std::filesystem::temp_directory_path() / ("ftsim_reload_" + std::to_string(::getpid()) + ".json");
  const config::Json document = chain(file);
  Seen with, without;
  const node::RunMetrics reloaded = testing::run_on_queue(document, "reload", 1e-6, 1e9, [&](node::NodeId, bool) {
    return std::make_unique<Reloading>(&with, true);
  });
  const node::RunMetrics stalled = testing::run_on_queue(document, "no reload", 1e-6, 1e9, [&](node::NodeId, bool) {
    return std::make_unique<Reloading>(&without, false);
  });
  std::filesystem::remove(file);
  INFO(reloaded.failure_reason);
  REQUIRE(reloaded.complete);
  CHECK(reloaded.oracle_ok);
  CHECK(reloaded.nodes[0].reexecutions == 1);
  CHECK(reloaded.nodes[0].inputs_missing_at_start == 0);
  CHECK(with.reloaded);
  CHECK(with.unknown_refused);
  CHECK(with.states_kept);
  CHECK_FALSE(stalled.complete);  // t1's input is gone without the reload
}
