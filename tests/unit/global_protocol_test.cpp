// The global protocol's node parts, one host driven by hand: the transitions a replacement takes
// before its failure is detected, the restart cost, a transition the state machines do not list
// (protocols/global/global_checkpointer.hpp, global_recovery.hpp), and a storage write from before a
// rollback (global_copies.hpp).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <utility>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/node/node_host.hpp"
#include "sim/node/wire.hpp"

using namespace ftsim;

namespace {

// The control types of protocols/global/global_messages.hpp, as they travel.
enum : std::uint32_t { kRequest = 1, kReady, kSave, kSaved, kCommit, kRecover, kRestored, kResume, kRestoreRequest = 11 };
constexpr node::NodeId kCoordinator = 4;

// Plays the world around a single host: records what it sends, starts, writes and the timers it sets.
struct FakeEnvironment : node::HostEnvironment {
  std::vector<node::Message> sent;
  std::vector<node::TaskId> started;
  std::vector<std::uint64_t> timers;  // tokens
  std::vector<std::uint64_t> writes;  // storage write tokens
  std::vector<node::NodeMetrics> metrics = std::vector<node::NodeMetrics>(5);
  std::string failure;
  node::Recorder records;
  double now() const override { return 0; }
  void start_task(node::NodeId, node::TaskId task, double) override { started.push_back(task); }
  void cancel_task(node::NodeId, node::TaskId) override {}
  void send(node::Message message) override { sent.push_back(std::move(message)); }
  std::uint32_t storage_servers() const override { return 1; }
  void storage_write(node::NodeId, std::uint32_t, std::uint64_t, node::Bytes, std::uint64_t, std::uint64_t token) override {
    writes.push_back(token);
  }
  void storage_read(node::NodeId, std::uint32_t, std::uint64_t, std::uint64_t) override {}
  void storage_erase(node::NodeId, std::uint32_t, std::uint64_t) override {}
  std::uint64_t set_timer(node::NodeId, double, std::uint64_t token) override {
    timers.push_back(token);
    return timers.size();
  }
  void cancel_timer(std::uint64_t) override {}
  node::NodeMetrics& metrics_of(node::NodeId node) override { return metrics[node]; }
  bool observe_execution(node::TaskId) override { return false; }
  void record_failure_effect(const node::FailureNotice&, const node::FailureEffect&) override {}
  void record_recovered(const node::FailureNotice&) override {}
  void record_checkpoint(const node::CheckpointRecord&) override {}
  node::Recorder& recorder() override { return records; }
  void fail_run(const std::string& reason) override { failure = reason; }
  void check_completion() override {}
};

config::Json cholesky_config(const config::Json& protocol) {
  return {{"application", {{"type", "cholesky"}, {"tiles", 6}, {"tile_size", 128}}},
          {"platform", {{"nodes", 4}, {"cores_per_node", 2}, {"core_gflops", 2}, {"storage", {{"hosts", 1}}}}},
          {"protocol", protocol},
          {"checkpoints", {{"count", 2}, {"buddy", "next"}}}};
}

struct HostBench {
  explicit HostBench(const config::Json& protocol)
      : cfg(protocols::load_config_json(cholesky_config(protocol), "global test")),
        graph(graphs::build_application(cfg)),
        cost(cfg, graph),
        index(graph),
        setup{cfg, graph, index, cost, 32},
        factory(protocols::make_protocol_factory(cfg, graph)) {}
  // Node `node`'s first process, its share of the input loaded, its protocol started.
  std::unique_ptr<node::NodeHost> original(node::NodeId node) {
    auto host = std::make_unique<node::NodeHost>(node, 0, setup, env, factory(node, false));
    host->load_initial_state();
    host->start_protocol();
    return host;
  }
  // Node `node`'s replacement (incarnation 1), started when the last notice issued was `sequence`.
  std::unique_ptr<node::NodeHost> replacement(node::NodeId node, std::uint32_t sequence) {
    auto host = std::make_unique<node::NodeHost>(node, 1, setup, env, factory(node, false));
    host->restart(node::RestartInfo{1, sequence});
    return host;
  }
  const config::Config cfg;
  const graphs::TaskGraph graph;
  const graphs::CostModel cost;
  const node::RuntimeIndex index;
  const node::HostSetup setup;
  const node::ProtocolFactory factory;
  FakeEnvironment env;
};

// A control message of the coordinator to `to`: checkpoint, epoch, then the type's own fields.
node::Message control(node::NodeId to, std::uint32_t type, std::uint32_t checkpoint, std::uint32_t epoch) {
  node::Message m;
  m.source = kCoordinator;
  m.destination = to;
  m.is_data = false;
  m.control_type = type;
  node::WireWriter out(m.body);
  out.u32(checkpoint);
  out.u32(epoch);
  if (type == kSave) out.u64(0);            // messages to have received
  if (type == kRecover) {
    out.u32(to);                            // cause: this node's failure, incarnation 0,
    out.u32(0);
    out.u32(epoch);                         // detected as notice `epoch`
  }
  return m;
}

std::size_t count(const std::vector<node::Message>& sent, std::uint32_t type) {
  std::size_t n = 0;
  for (const node::Message& m : sent) n += m.control_type == type;
  return n;
}

}  // namespace

TEST_CASE("global: a replacement whose failure is not detected yet saves nothing, yet obeys COMMIT and RESUME",
          "[global][host]") {
  HostBench bench(config::Json{{"type", "global"}, {"period", "1ms"}, {"storage", "buddy"}});
  FakeEnvironment& env = bench.env;
  // Up before its failure is detected: the coordinator still runs epoch 0's checkpoints.
  auto host = bench.replacement(1, 0);
  host->deliver(control(1, kRequest, 1, 0));
  host->deliver(control(1, kSave, 1, 0));
  CHECK(count(env.sent, kReady) == 0);  // it has no state to save: no checkpoint may commit
  CHECK(count(env.sent, kSaved) == 0);
  // The COMMIT and RESUME its predecessor earned reach it: taken, not a protocol bug.
  CHECK_NOTHROW(host->deliver(control(1, kCommit, 1, 0)));
  CHECK_NOTHROW(host->deliver(control(1, kResume, 1, 0)));
  // Its failure detected (notice 1), RECOVER to the initial state: restored, it says so.
  host->on_failure_notice(node::FailureNotice{1, 0, 1});
  host->deliver(control(1, kRecover, 0, 1));
  REQUIRE(count(env.sent, kRestored) == 1);
  CHECK(env.sent.back().destination == kCoordinator);
}

TEST_CASE("global: a replacement pays its restart cost before it obeys RECOVER", "[global][host]") {
  HostBench bench(config::Json{{"type", "global"}, {"period", "1ms"}, {"storage", "buddy"}, {"restart_cost", "2ms"}});
  FakeEnvironment& env = bench.env;
  auto host = bench.replacement(1, 1);
  REQUIRE(env.timers.size() == 1);
  CHECK(host->protocol_phase() == "restarting (paying the restart cost)");
  host->deliver(control(1, kRecover, 2, 1));
  CHECK(env.sent.empty());  // RECOVER waits
  host->on_timer(env.timers[0]);
  // Then it asks its buddy (node 2) for checkpoint 2, the copy it lost.
  REQUIRE(env.sent.size() == 1);
  CHECK(env.sent[0].control_type == kRestoreRequest);
  CHECK(env.sent[0].destination == 2);
  CHECK(host->protocol_phase() == "restoring checkpoint 2");
}

TEST_CASE("global: a transition the state machines do not list is a protocol bug, not a silent one", "[global][host]") {
  // At cuts a node owes READY at the first cut from the start; a SAVE before it sent READY cannot
  // come from the coordinator.
  HostBench bench(config::Json{{"type", "global"}, {"at", "cuts"}, {"storage", "buddy"}});
  auto host = bench.original(1);
  REQUIRE(count(bench.env.sent, kReady) == 0);
  CHECK(host->protocol_phase() == "checkpoint 1: paused, waiting for SAVE");
  CHECK_THROWS_AS(host->deliver(control(1, kSave, 1, 0)), std::logic_error);
}

TEST_CASE("global: a storage write from before a rollback does not complete the new save of the same checkpoint",
          "[global][host]") {
  // Checkpoint 1 is being written when a failure rolls every node back to the start; checkpoint 1
  // is taken again and written again, under the same key, while storage may still be writing the
  // first: its completion must not send SAVED for the second.
  HostBench bench(config::Json{{"type", "global"}, {"period", "1ms"}, {"storage", "stable"}});
  FakeEnvironment& env = bench.env;
  auto host = bench.original(1);
  std::size_t released = 0;
  const auto quiesce = [&] {  // what runs finishes (paused: nothing new starts), what it sent leaves
    while (!env.started.empty() || released < env.sent.size()) {
      for (node::TaskId task : std::exchange(env.started, {})) host->on_task_finished(task);
      for (; released < env.sent.size(); ++released) {
        if (env.sent[released].is_data) host->released(env.sent[released]);
      }
    }
  };
  host->deliver(control(1, kRequest, 1, 0));
  REQUIRE(count(env.sent, kReady) == 1);
  host->deliver(control(1, kSave, 1, 0));
  REQUIRE(env.writes.size() == 1);
  // A failure elsewhere (notice 1): every node restarts from the initial state, then resumes.
  host->on_failure_notice(node::FailureNotice{3, 0, 1});
  host->deliver(control(1, kRecover, 0, 1));
  host->deliver(control(1, kResume, 0, 1));
  // Checkpoint 1 again, in epoch 1.
  host->deliver(control(1, kRequest, 1, 1));
  quiesce();
  REQUIRE(count(env.sent, kReady) == 2);
  host->deliver(control(1, kSave, 1, 1));
  REQUIRE(env.writes.size() == 2);
  host->on_storage_done(env.writes[0], nullptr);  // the first write is done
  CHECK(count(env.sent, kSaved) == 0);
  host->on_storage_done(env.writes[1], nullptr);  // the second
  CHECK(count(env.sent, kSaved) == 1);
}
