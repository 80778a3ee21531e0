// The world driver's no-progress backstop (issue 19): a protocol that exchanges messages forever
// without any task completing or recovery advancing must end the run in seconds of wall time,
// with exit status "failed", naming the protocol and its phase. A protocol that never lets the run
// end while its node waits for nothing must end the same way, and so must one that validates
// checkpoints for ever while no task completes (issue 39).
#include <catch2/catch.hpp>

#include <chrono>

#include "sim/node/protocol_context.hpp"
#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

// Test-only: node 0 and node 1 ping-pong a control message for ever once node 0's tasks are done,
// and never let the run finish.
class PingPongForever final : public node::Protocol {
public:
  void on_task_completed(node::ProtocolContext& ctx, node::TaskId, bool) override {
    if (ctx.node() == 0 && !started_ && ctx.runtime().remaining_tasks() == 0) {
      started_ = true;
      ctx.send_control(1, 1, node::Bytes{});
    }
  }
  void on_control(node::ProtocolContext& ctx, const node::Message& m) override {
    ++exchanged_;
    ctx.send_control(m.source, 1, node::Bytes{});
  }
  bool finished(node::ProtocolContext&) override { return false; }
  std::string phase(node::ProtocolContext& ctx) override {
    return ctx.is_coordinator() || exchanged_ == 0 ? std::string() : "ping-pong for ever";
  }

private:
  bool started_ = false;
  std::uint64_t exchanged_ = 0;
};

// Test-only: nothing moves and nothing waits, but the protocol never lets the run end (a timer
// every simulated second keeps the event queue alive).
class TickForever final : public node::Protocol {
public:
  void on_start(node::ProtocolContext& ctx) override { ctx.set_timer(1.0, 0); }
  void on_timer(node::ProtocolContext& ctx, std::uint64_t) override { ctx.set_timer(1.0, 0); }
  bool finished(node::ProtocolContext&) override { return false; }
  std::string phase(node::ProtocolContext& ctx) override {
    return ctx.is_coordinator() ? std::string() : "waiting for a tick";
  }
};

// Test-only: no task may ever start, and node 0 validates a checkpoint every 5 ms of simulated
// time, well within the span bound of the tiny job (issue 39: a restarted node waiting for ever under a periodic schedule). Checkpoints do not
// advance the job: the run must end all the same.
class CheckpointForever final : public node::Protocol {
public:
  void on_start(node::ProtocolContext& ctx) override {
    if (ctx.node() == 0) ctx.set_timer(kInterval, 0);
  }
  bool may_start(node::ProtocolContext&, node::TaskId) override { return false; }
  void on_timer(node::ProtocolContext& ctx, std::uint64_t) override {
    node::CheckpointRecord record;
    record.id = ++taken_;
    record.started = record.saved = record.committed = ctx.now();
    ctx.record_checkpoint(record);
    ctx.set_timer(kInterval, 0);
  }
  std::string phase(node::ProtocolContext& ctx) override {
    return ctx.node() == 0 && !ctx.is_coordinator() ? "checkpointing, no task may start" : std::string();
  }

private:
  static constexpr double kInterval = 0.005;
  std::uint32_t taken_ = 0;
};

config::Json small_cholesky() {
  return {{"application", {{"type", "cholesky"}, {"tiles", 4}, {"tile_size", 64}}},
          {"platform", {{"nodes", 2}, {"cores_per_node", 2}, {"core_gflops", 2}}},
          {"protocol", {{"type", "none"}}}};
}

template <class P>
node::RunMetrics run_with(double& wall, double latency = 1e-6) {
  const auto start = std::chrono::steady_clock::now();
  config::Json document = small_cholesky();
  document["run"] = {{"time_limit", 1000}};  // simulated seconds: what ends a run the backstop misses
  const node::RunMetrics m = testing::run_on_queue(document, "no-progress test", latency, 1e9,
                                                   [](node::NodeId, bool) { return std::make_unique<P>(); });
  wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return m;
}

}  // namespace

TEST_CASE("no progress: a protocol that ping-pongs for ever ends in seconds, naming its phase", "[core][progress]") {
  double wall = 0;
  // On a fast network the messages outrun the simulated span: the events bound acts.
  const double latency = GENERATE(1e-6, 1e-9);
  const node::RunMetrics m = run_with<PingPongForever>(wall, latency);
  INFO(m.failure_reason);
  CHECK_FALSE(m.complete);
  CHECK(m.failure_reason.rfind("no progress: ", 0) == 0);
  if (latency < 1e-6) CHECK(m.failure_reason.find("events since") != std::string::npos);
  CHECK(m.failure_reason.find("protocol none stuck in nodes 0, 1: ping-pong for ever") != std::string::npos);
  CHECK(wall < 5.0);
  // Every task ran: the protocol, not the application, is stuck.
  std::uint64_t executions = 0;
  for (const auto& node : m.nodes) executions += node.executions;
  CHECK(executions == 20);
}

TEST_CASE("no progress: a protocol that waits for ever on a timer ends after the derived span", "[core][progress]") {
  double wall = 0;
  const node::RunMetrics m = run_with<TickForever>(wall);
  INFO(m.failure_reason);
  CHECK_FALSE(m.complete);
  CHECK(m.failure_reason.rfind("no progress: from ", 0) == 0);  // the simulated span acted
  CHECK(m.failure_reason.find("waiting for a tick") != std::string::npos);
  // The span is a few seconds for this tiny job: far from the default time limit (an hour).
  CHECK(m.makespan < 100.0);
  CHECK(wall < 5.0);
}

TEST_CASE("no progress: checkpoints validated for ever while no task completes end the run", "[core][progress]") {
  double wall = 0;
  const node::RunMetrics m = run_with<CheckpointForever>(wall);
  INFO(m.failure_reason);
  CHECK_FALSE(m.complete);
  CHECK(m.failure_reason.rfind("no progress: from ", 0) == 0);  // not the time limit
  CHECK(m.failure_reason.find("protocol none stuck in node 0: checkpointing, no task may start") != std::string::npos);
  CHECK(m.checkpoints.size() >= 2);  // checkpoints were validated meanwhile
  CHECK(m.makespan < 100.0);
  CHECK(wall < 5.0);
}
