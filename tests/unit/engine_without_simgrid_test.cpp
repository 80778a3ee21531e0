// The whole engine (world driver, node hosts, protocols) on the in-process queue backend: no
// SimGrid. Protocols recover from fail-stop failures learning only from messages, the digest
// oracle holds, and a replacement host starts from nothing.
#include <catch2/catch.hpp>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/none/none_protocol.hpp"
#include "protocols/registry.hpp"
#include "sim/node/node_host.hpp"
#include "sim/world/run_metrics_json.hpp"
#include "sim/world/simulation.hpp"
#include "tests/support/queue_backend.hpp"
#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

config::Json cholesky_config(const config::Json& protocol, const config::Json& failures) {
  config::Json document = {
      {"application", {{"type", "cholesky"}, {"tiles", 6}, {"tile_size", 128}}},
      {"platform", {{"nodes", 4}, {"cores_per_node", 2}, {"core_gflops", 2}, {"storage", {{"hosts", 1}}}}},
      {"protocol", protocol},
      {"checkpoints", {{"count", 2}, {"buddy", "next"}}}};
  if (!failures.is_null()) document["failures"] = failures;
  return document;
}

node::RunMetrics run(const config::Json& document, node::ProtocolFactory factory = {}) {
  return testing::run_on_queue(document, "engine test", 1e-6, 1e9, std::move(factory));
}

config::Json one_failure(double time, int node) {
  return {{"model", "list"}, {"events", {{{"time", time}, {"node", node}}}}, {"downtime", "0.1ms"}, {"detection", "0.05ms"}};
}

}  // namespace

TEST_CASE("engine without SimGrid: every protocol recovers a failure and the final digests are the failure-free ones",
          "[core][engine]") {
  const node::RunMetrics reference = run(cholesky_config({{"type", "none"}}, nullptr));
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  const double t = 0.5 * reference.makespan;
  for (const config::Json& protocol :
       {config::Json{{"type", "none"}}, config::Json{{"type", "lineage"}},
        config::Json{{"type", "global"}, {"period", reference.makespan / 5}, {"storage", "stable"}},
        config::Json{{"type", "global"}, {"period", reference.makespan / 5}, {"storage", "buddy"}},
        config::Json{{"type", "global"}, {"at", "cuts"}, {"storage", "buddy"}}, config::Json{{"type", "buddy"}}}) {
    INFO(protocol.dump());
    const node::RunMetrics m = run(cholesky_config(protocol, one_failure(t, 1)));
    for (const auto& line : m.stall_report) INFO("stall: " << line);
    INFO("failure reason: " << m.failure_reason);
    REQUIRE(m.complete);
    CHECK(m.oracle_ok);
    CHECK(m.oracle_wrong.empty());
    REQUIRE(m.failures.size() == 1);
    CHECK(m.failures[0].recovered_at >= m.failures[0].detected_at);
    CHECK(m.makespan > reference.makespan);
    std::uint64_t missing_inputs = 0;
    for (const auto& n : m.nodes) missing_inputs += n.inputs_missing_at_start;
    CHECK(missing_inputs == 0);
  }
}

TEST_CASE("engine without SimGrid: a replacement gets its checkpoint back from its buddy, by message",
          "[core][engine]") {
  const node::RunMetrics reference = run(cholesky_config({{"type", "none"}}, nullptr));
  const config::Json global = {{"type", "global"}, {"period", reference.makespan / 5}, {"storage", "buddy"}};
  const node::RunMetrics m = run(cholesky_config(global, one_failure(0.7 * reference.makespan, 2)));
  REQUIRE(m.complete);
  CHECK(m.oracle_ok);
  REQUIRE(m.failures.size() == 1);
  CHECK(m.failures[0].restart_point.rfind("checkpoint ", 0) == 0);
  // Only the failed node read a checkpoint back, from its buddy's memory: restore traffic.
  CHECK(m.nodes[3].bytes_sent[static_cast<std::size_t>(node::Traffic::restore)] > 0);
  CHECK(m.nodes[0].bytes_sent[static_cast<std::size_t>(node::Traffic::restore)] == 0);
  CHECK(m.in_mem_cp_data_total > 0);
}

TEST_CASE("engine without SimGrid: a node and its buddy failing together is unrecoverable with buddy storage",
          "[core][engine]") {
  const node::RunMetrics reference = run(cholesky_config({{"type", "none"}}, nullptr));
  const config::Json global = {{"type", "global"}, {"period", reference.makespan / 5}, {"storage", "buddy"}};
  const double t = 0.7 * reference.makespan;
  const config::Json failures = {{"model", "list"},
                                 {"events", {{{"time", t}, {"node", 1}}, {{"time", t}, {"node", 2}}}},
                                 {"downtime", "0.1ms"},
                                 {"detection", "0.05ms"}};
  const node::RunMetrics m = run(cholesky_config(global, failures));
  CHECK_FALSE(m.complete);
  CHECK(m.failure_reason.find("unrecoverable") != std::string::npos);
}

TEST_CASE("engine without SimGrid: the example protocol of the guide recovers single and simultaneous failures",
          "[core][engine]") {
  const node::ProtocolFactory example = [](node::NodeId, bool coordinator) {
    return std::make_unique<protocols::none::NoneProtocol>(coordinator);
  };
  const node::RunMetrics reference = run(cholesky_config({{"type", "none"}}, nullptr), example);
  REQUIRE(reference.complete);
  const double t = 0.6 * reference.makespan;
  const config::Json failures = {{"model", "list"},
                                 {"events", {{{"time", t}, {"node", 1}}, {{"time", t}, {"node", 3}},
                                             {{"time", 1.5 * t}, {"node", 0}}}},
                                 {"downtime", "0.1ms"},
                                 {"detection", "0.05ms"}};
  const node::RunMetrics m = run(cholesky_config({{"type", "none"}}, failures), example);
  INFO(m.failure_reason);
  REQUIRE(m.complete);
  CHECK(m.oracle_ok);
  CHECK(m.failures.size() == 3);
  CHECK(m.makespan > reference.makespan + t);
  for (const auto& f : m.failures) CHECK(f.restart_point == "from scratch");
}

TEST_CASE("engine without SimGrid: same config, same run", "[core][engine]") {
  const config::Json document = cholesky_config({{"type", "lineage"}}, one_failure(0.01, 3));
  CHECK(world::to_json(run(document)) == world::to_json(run(document)));
}

// ----------------------------------------------------------------------------- one node host

namespace {

// Plays the world around a single host: records what it sends, delivers what the test says.
struct FakeEnvironment : node::HostEnvironment {
  double time = 0;
  std::vector<node::Message> sent;
  std::vector<node::TaskId> started;
  std::vector<node::NodeMetrics> metrics = std::vector<node::NodeMetrics>(5);
  std::string failure;
  double now() const override { return time; }
  void start_task(node::NodeId, node::TaskId task, double) override { started.push_back(task); }
  void cancel_task(node::NodeId, node::TaskId) override {}
  void send(node::Message message) override { sent.push_back(std::move(message)); }
  std::uint32_t storage_servers() const override { return 0; }
  void storage_write(node::NodeId, std::uint32_t, std::uint64_t, node::Bytes, std::uint64_t, std::uint64_t) override {}
  void storage_read(node::NodeId, std::uint32_t, std::uint64_t, std::uint64_t) override {}
  void storage_erase(node::NodeId, std::uint32_t, std::uint64_t) override {}
  std::uint64_t set_timer(node::NodeId, double, std::uint64_t) override { return 0; }
  void cancel_timer(std::uint64_t) override {}
  node::NodeMetrics& metrics_of(node::NodeId node) override { return metrics[node]; }
  bool observe_execution(node::TaskId) override { return false; }
  void record_failure_effect(const node::FailureNotice&, const node::FailureEffect&) override {}
  void record_recovered(const node::FailureNotice&) override {}
  void record_checkpoint(const node::CheckpointRecord&) override {}
  node::Recorder records;
  node::Recorder& recorder() override { return records; }
  void fail_run(const std::string& reason) override { failure = reason; }
  void check_completion() override {}
};

// One node host at a time on the 4-node Cholesky under `protocol`, driven by hand.
struct HostBench {
  explicit HostBench(const config::Json& protocol)
      : cfg(protocols::load_config_json(cholesky_config(protocol, nullptr), "host test")),
        graph(graphs::build_application(cfg)),
        cost(cfg, graph),
        index(graph),
        setup{cfg, graph, index, cost, 32},
        factory(protocols::make_protocol_factory(cfg, graph)) {}
  // Node `node`'s first incarnation, started as a run starts it.
  std::unique_ptr<node::NodeHost> start(node::NodeId node) {
    auto host = std::make_unique<node::NodeHost>(node, 0, setup, env, factory(node, false));
    host->load_initial_state();
    host->start_protocol();
    host->send_initial_values();
    host->schedule();
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

}  // namespace

TEST_CASE("node host: a replacement knows nothing and learns what to restore from messages", "[core][host]") {
  HostBench bench(config::Json{{"type", "global"}, {"period", "1ms"}, {"storage", "buddy"}});
  const node::HostSetup& setup = bench.setup;
  FakeEnvironment& env = bench.env;

  // Node 1 starts, runs, and fails: its host is destroyed with everything in it.
  auto host = bench.start(1);
  CHECK(host->node_runtime().store().size() > 0);  // its share of the input
  host.reset();

  // Its replacement: nothing held, nothing running, nothing sent until told.
  env.sent.clear();
  env.started.clear();
  auto replacement = std::make_unique<node::NodeHost>(1, 1, setup, env, bench.factory(1, false));
  replacement->restart(node::RestartInfo{1, 1});
  CHECK(replacement->node_runtime().store().size() == 0);
  CHECK(env.sent.empty());
  CHECK(env.started.empty());

  // The coordinator's RECOVER (type 6) says checkpoint 3: the replacement asks its buddy (node 2)
  // for it (RESTORE_REQUEST, type 11), the only way it can get it back.
  node::Message recover;
  recover.source = 4;
  recover.destination = 1;
  recover.is_data = false;
  recover.control_type = 6;
  node::WireWriter out(recover.body);
  out.u32(3);  // checkpoint
  out.u32(1);  // epoch
  out.u32(1);  // cause: node 1, incarnation 0, sequence 1
  out.u32(0);
  out.u32(1);
  replacement->deliver(recover);
  REQUIRE(env.sent.size() == 1);
  CHECK(env.sent[0].destination == 2);
  CHECK(env.sent[0].control_type == 11);
  CHECK(env.sent[0].source_incarnation == 1);
  CHECK(env.sent[0].bytes == env.sent[0].body.size() + 32);

  // The buddy lost it too (NOT_HELD, type 13): the job cannot recover, and says why.
  node::Message not_held;
  not_held.source = 2;
  not_held.destination = 1;
  not_held.is_data = false;
  not_held.control_type = 13;
  node::WireWriter(not_held.body).u32(3);
  node::WireWriter(not_held.body).u32(1);
  replacement->deliver(not_held);
  CHECK(env.failure.find("unrecoverable") != std::string::npos);
}

TEST_CASE("wire: control messages that do not decode are errors, not garbage", "[core][wire]") {
  node::Bytes bytes;
  node::WireWriter out(bytes);
  out.u32(7);
  out.u64(1000000);  // a count far beyond what follows
  node::WireReader in(bytes);
  CHECK(in.u32() == 7);
  CHECK_THROWS_AS(in.count(4), node::WireError);
  node::WireReader short_read(bytes.data(), 2);
  CHECK_THROWS_AS(short_read.u32(), node::WireError);
}

TEST_CASE("engine without SimGrid: buddy restarts only the failed node, from a checkpoint its buddy sends back",
          "[core][engine][buddy]") {
  const node::RunMetrics reference = run(cholesky_config({{"type", "none"}}, nullptr));
  const node::RunMetrics m = run(cholesky_config({{"type", "buddy"}}, one_failure(0.8 * reference.makespan, 2)));
  INFO("failure reason: " << m.failure_reason);
  REQUIRE(m.complete);
  CHECK(m.oracle_ok);
  REQUIRE(m.failures.size() == 1);
  const node::FailureRecord& f = m.failures[0];
  CHECK(f.restart_point.rfind("checkpoint ", 0) == 0);
  CHECK(f.processes_rolled_back == 1);
  CHECK(f.messages_replayed > 0);
  for (std::size_t n = 0; n < m.nodes.size(); ++n) {
    if (n != 2) CHECK(m.nodes[n].reexecutions == 0);  // survivors re-execute nothing
  }
  CHECK(m.nodes[2].restarts == 1);
  CHECK(m.nodes[3].messages_sent[static_cast<std::size_t>(node::Traffic::restore)] == 1);  // the buddy of node 2
}

TEST_CASE("node host: lineage sends data for a node heard failed to its replacement", "[core][host][lineage]") {
  // On MPI the victim runs on until its fail order arrives: a transfer sent after its notice to
  // whichever incarnation holds the rank could reach it and die with it, while the recovery plan
  // counts on it reaching the replacement (a stall).
  HostBench bench(config::Json{{"type", "lineage"}});
  FakeEnvironment& env = bench.env;
  const graphs::TaskGraph& graph = bench.graph;

  // Node 0 hears that node 2's incarnation 0 failed, then POTRF(0) runs for the first time: its
  // transfer of A[0][0] to node 2 is for incarnation 1.
  auto survivor = bench.start(0);
  REQUIRE(!env.started.empty());
  const node::TaskId potrf = env.started.front();
  REQUIRE(graph.task_name(potrf) == "POTRF(0)");
  survivor->on_failure_notice(node::FailureNotice{2, 0, 1});
  env.sent.clear();
  survivor->on_task_finished(potrf);
  std::size_t to_node_2 = 0;
  for (const node::Message& m : env.sent) {
    if (!m.is_data || m.destination != 2) continue;
    ++to_node_2;
    CHECK(m.destination_incarnation == 1);
  }
  CHECK(to_node_2 > 0);
}
