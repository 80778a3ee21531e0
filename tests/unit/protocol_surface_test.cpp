// The protocol surface a protocol may use, exercised by a probe protocol on the queue backend:
// send verdicts (hold, send and log), header words and their bytes, protocol activities on a
// core, timer cancellation, receive verdicts. Each check fails if the hook does nothing.
#include <catch2/catch.hpp>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/node/protocol_context.hpp"
#include "sim/world/simulation.hpp"
#include "tests/support/queue_backend.hpp"

using namespace ftsim;

namespace {

struct Probe final : node::Protocol {
  enum class Mode { plain, headers, hold, log, activity, drop_duplicates } mode;
  explicit Probe(Mode m) : mode(m) {}
  std::uint64_t cancelled_timer_fired = 0, kept_timer_fired = 0, activities = 0, activities_done = 0;

  void on_start(node::ProtocolContext& ctx) override {
    if (ctx.is_coordinator()) return;
    const std::uint64_t cancelled = ctx.set_timer(1e-6, 1);
    ctx.set_timer(2e-6, 2);
    ctx.cancel_timer(cancelled);
  }
  void on_timer(node::ProtocolContext& ctx, std::uint64_t token) override {
    if (token == 1) ++cancelled_timer_fired;
    if (token == 2) ++kept_timer_fired;
    if (token == 3) ctx.release_held_sends();
  }
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& m) override {
    switch (mode) {
      case Mode::headers:
        m.header[0] = ctx.epoch();
        m.header[1] = m.section;
        m.header_words = 2;
        return node::SendVerdict::send;
      case Mode::hold:
        ctx.set_timer(1e-3, 3);  // released a millisecond later
        return node::SendVerdict::hold;
      case Mode::log: return node::SendVerdict::send_and_log;
      default: return node::SendVerdict::send;
    }
  }
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& m) override {
    if (mode == Mode::drop_duplicates && ctx.runtime().holds(m.handle, m.version)) {
      return node::ReceiveVerdict::drop_duplicate;
    }
    return node::ReceiveVerdict::accept;
  }
  void on_task_completed(node::ProtocolContext& ctx, node::TaskId, bool) override {
    if (mode == Mode::activity && ctx.node() == 0 && ctx.run_activity(1e-3, 7)) ++activities;
  }
  void on_activity_done(node::ProtocolContext&, std::uint64_t token) override {
    if (token == 7) ++activities_done;
  }
  bool finished(node::ProtocolContext& ctx) override {
    return ctx.is_coordinator() || (kept_timer_fired == 1 && activities_done == activities);
  }
};

struct Outcome {
  node::RunMetrics metrics;
  std::uint64_t cancelled_fired = 0, activities = 0, activities_done = 0;
  std::uint64_t graph_bytes_sent = 0;
};

Outcome run(Probe::Mode mode) {
  const config::Json document = {
      {"application", {{"type", "cholesky"}, {"tiles", 5}, {"tile_size", 64}}},
      {"platform", {{"nodes", 4}, {"cores_per_node", 2}, {"core_gflops", 2}}}};
  const config::Config cfg = protocols::load_config_json(document, "surface test");
  const graphs::TaskGraph graph = graphs::build_application(cfg);
  const graphs::CostModel cost(cfg, graph);
  testing::QueueBackend backend(graph.node_count(), 0);
  std::vector<Probe*> probes;
  node::ProtocolFactory factory = [&](node::NodeId, bool) {
    auto probe = std::make_unique<Probe>(mode);
    probes.push_back(probe.get());
    return probe;
  };
  world::Simulation simulation(cfg, graph, cost, factory, backend, {});
  backend.set_events(&simulation);
  simulation.start();
  backend.run();
  simulation.finish();
  Outcome outcome{simulation.metrics()};
  for (Probe* p : probes) {
    outcome.cancelled_fired += p->cancelled_timer_fired;
    outcome.activities += p->activities;
    outcome.activities_done += p->activities_done;
  }
  for (const auto& x : graph.transfers()) outcome.graph_bytes_sent += graph.bytes(x.handle);
  return outcome;
}

std::uint64_t application_bytes(const node::RunMetrics& m) {
  std::uint64_t bytes = 0;
  for (const auto& n : m.nodes) bytes += n.bytes_sent[static_cast<std::size_t>(node::Traffic::application)];
  return bytes;
}
std::uint64_t application_messages(const node::RunMetrics& m) {
  std::uint64_t count = 0;
  for (const auto& n : m.nodes) count += n.messages_sent[static_cast<std::size_t>(node::Traffic::application)];
  return count;
}

}  // namespace

TEST_CASE("protocol surface: every data message carries the envelope, header words cost 4 bytes each",
          "[core][surface]") {
  const Outcome plain = run(Probe::Mode::plain);
  REQUIRE(plain.metrics.complete);
  CHECK(plain.metrics.oracle_ok);
  CHECK(plain.cancelled_fired == 0);  // a cancelled timer never fires; finished() needs the other
  const std::uint64_t messages = application_messages(plain.metrics);
  CHECK(application_bytes(plain.metrics) == plain.graph_bytes_sent + 32 * messages);
  const Outcome headers = run(Probe::Mode::headers);
  REQUIRE(headers.metrics.complete);
  CHECK(application_bytes(headers.metrics) == plain.graph_bytes_sent + (32 + 8) * messages);
}

TEST_CASE("protocol surface: held sends leave when released; logged sends are kept in the log store",
          "[core][surface]") {
  const Outcome plain = run(Probe::Mode::plain);
  const Outcome held = run(Probe::Mode::hold);
  REQUIRE(held.metrics.complete);
  CHECK(held.metrics.oracle_ok);
  CHECK(held.metrics.makespan > plain.metrics.makespan + 1e-3);
  const Outcome logged = run(Probe::Mode::log);
  REQUIRE(logged.metrics.complete);
  CHECK(logged.metrics.log_bytes == plain.graph_bytes_sent);  // the data bytes of every message sent
  CHECK(logged.metrics.log_peak_bytes > 0);
  CHECK(plain.metrics.log_bytes == 0);
}

TEST_CASE("protocol surface: a protocol activity takes a core for its duration", "[core][surface]") {
  const Outcome plain = run(Probe::Mode::plain);
  const Outcome busy = run(Probe::Mode::activity);
  REQUIRE(busy.metrics.complete);
  CHECK(busy.metrics.oracle_ok);
  // Node 0 spent 1 ms of core time on each activity it could start (a core was free).
  REQUIRE(busy.activities > 0);
  CHECK(busy.activities_done == busy.activities);
  CHECK(busy.metrics.nodes[0].busy_seconds ==
        Approx(plain.metrics.nodes[0].busy_seconds + 1e-3 * double(busy.activities)));
  CHECK(busy.metrics.makespan > plain.metrics.makespan);
}
