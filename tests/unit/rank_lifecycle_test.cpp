// RankLifecycle (sim/world/rank_lifecycle.hpp): the one rule both backends follow for a message
// that reaches a rank, by the incarnation it names (the running one or any, a gone one, a later
// one), while the rank is up and while it is down, across fail-stops and replacements.
#include <catch2/catch.hpp>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/world/node_observer.hpp"
#include "sim/world/rank_lifecycle.hpp"

using namespace ftsim;

namespace {

// The world around one rank: nothing it asks for happens.
struct QuietEnvironment : node::HostEnvironment {
  node::NodeMetrics metrics;
  node::Recorder records;
  double now() const override { return 0; }
  void start_task(node::NodeId, node::TaskId, double) override {}
  void cancel_task(node::NodeId, node::TaskId) override {}
  void send(node::Message) override {}
  std::uint32_t storage_servers() const override { return 0; }
  void storage_write(node::NodeId, std::uint32_t, std::uint64_t, node::Bytes, std::uint64_t, std::uint64_t) override {}
  void storage_read(node::NodeId, std::uint32_t, std::uint64_t, std::uint64_t) override {}
  void storage_erase(node::NodeId, std::uint32_t, std::uint64_t) override {}
  std::uint64_t set_timer(node::NodeId, double, std::uint64_t) override { return 0; }
  void cancel_timer(std::uint64_t) override {}
  node::NodeMetrics& metrics_of(node::NodeId) override { return metrics; }
  bool observe_execution(node::TaskId) override { return false; }
  void record_failure_effect(const node::FailureNotice&, const node::FailureEffect&) override {}
  void record_recovered(const node::FailureNotice&) override {}
  void record_checkpoint(const node::CheckpointRecord&) override {}
  node::Recorder& recorder() override { return records; }
  void fail_run(const std::string&) override {}
  void check_completion() override {}
};

struct Bench {
  Bench()
      : cfg(protocols::load_config_json({{"application", {{"type", "cholesky"}, {"tiles", 4}, {"tile_size", 64}}},
                                         {"platform", {{"nodes", 2}, {"cores_per_node", 1}, {"core_gflops", 1}}},
                                         {"protocol", {{"type", "none"}}}},
                                        "rank lifecycle test")),
        graph(graphs::build_application(cfg)),
        cost(cfg, graph),
        index(graph),
        setup{cfg, graph, index, cost, 32},
        factory(protocols::make_protocol_factory(cfg, graph)),
        observer(1, index) {}
  const config::Config cfg;
  const graphs::TaskGraph graph;
  const graphs::CostModel cost;
  const node::RuntimeIndex index;
  const node::HostSetup setup;
  const node::ProtocolFactory factory;
  QuietEnvironment env;
  world::NodeObserver observer;
};

// A control message to rank 1 naming incarnation `incarnation`; `tag` tells them apart.
node::Message to_rank_1(std::uint32_t incarnation, std::uint32_t tag) {
  node::Message m;
  m.source = 0;
  m.destination = 1;
  m.is_data = false;
  m.control_type = tag;
  m.destination_incarnation = incarnation;
  return m;
}

std::vector<std::uint32_t> tags(const std::vector<node::Message>& messages) {
  std::vector<std::uint32_t> out;
  for (const auto& m : messages) out.push_back(m.control_type);
  return out;
}

}  // namespace

TEST_CASE("rank lifecycle: one rule for messages by the incarnation they name, up and down", "[world][lifecycle]") {
  Bench bench;
  world::RankLifecycle rank(1, false, bench.setup, bench.env, bench.factory);
  constexpr std::uint32_t any = node::kAnyIncarnation;
  rank.start();
  REQUIRE(rank.up());
  CHECK(rank.incarnation() == 0);

  // Up, incarnation 0: any and 0 are taken now; a later incarnation's waits; none is dropped yet.
  CHECK(rank.admit(to_rank_1(any, 1)));
  CHECK(rank.admit(to_rank_1(0, 2)));
  CHECK_FALSE(rank.admit(to_rank_1(1, 3)));
  CHECK_FALSE(rank.admit(to_rank_1(2, 4)));
  CHECK(tags(rank.postponed()) == std::vector<std::uint32_t>{3, 4});

  // Fail-stop: the host goes, the incarnation is bumped, what waits for 1 and 2 stays.
  CHECK(rank.fail_stop(bench.env.metrics, bench.observer, 0) == 0);
  CHECK_FALSE(rank.up());
  CHECK(rank.host() == nullptr);
  CHECK(rank.incarnation() == 1);
  CHECK(tags(rank.postponed()) == std::vector<std::uint32_t>{3, 4});

  // Down: any and the replacement's (1) wait for it, a later one (2) waits, the gone one (0) is dropped.
  CHECK_FALSE(rank.admit(to_rank_1(any, 5)));
  CHECK_FALSE(rank.admit(to_rank_1(0, 6)));
  CHECK_FALSE(rank.admit(to_rank_1(1, 7)));
  CHECK_FALSE(rank.admit(to_rank_1(2, 8)));
  CHECK(tags(rank.postponed()) == std::vector<std::uint32_t>{3, 4, 5, 7, 8});

  // The replacement (incarnation 1) takes, in order of arrival, what was kept for it; what is
  // for incarnation 2 goes through the rule again and waits on.
  rank.replace(1, 1, bench.env.metrics);
  REQUIRE(rank.up());
  CHECK(rank.incarnation() == 1);
  CHECK(bench.env.metrics.restarts == 1);
  std::vector<std::uint32_t> taken;
  rank.redeliver([&](node::Message&& m) {
    if (rank.admit(std::move(m))) taken.push_back(m.control_type);
    return true;
  });
  CHECK(taken == std::vector<std::uint32_t>{3, 5, 7});
  CHECK(tags(rank.postponed()) == std::vector<std::uint32_t>{4, 8});

  // Up again, incarnation 1: the gone incarnation's messages are dropped.
  CHECK_FALSE(rank.admit(to_rank_1(0, 9)));
  CHECK(tags(rank.postponed()) == std::vector<std::uint32_t>{4, 8});

  // A second fail-stop: the kept messages name 2, the replacement: they stay for it.
  CHECK(rank.fail_stop(bench.env.metrics, bench.observer, 1) == 1);
  CHECK(rank.incarnation() == 2);
  CHECK_FALSE(rank.admit(to_rank_1(1, 10)));  // the incarnation that just died: dropped
  CHECK(tags(rank.postponed()) == std::vector<std::uint32_t>{4, 8});
  rank.replace(2, 2, bench.env.metrics);
  taken.clear();
  rank.redeliver([&](node::Message&& m) {
    if (rank.admit(std::move(m))) taken.push_back(m.control_type);
    return true;
  });
  CHECK(taken == std::vector<std::uint32_t>{4, 8});
  CHECK(rank.postponed().empty());
}

TEST_CASE("rank lifecycle: a fail-stop drops what was kept for the incarnation that died", "[world][lifecycle]") {
  Bench bench;
  world::RankLifecycle rank(1, false, bench.setup, bench.env, bench.factory);
  rank.start();
  CHECK_FALSE(rank.admit(to_rank_1(1, 1)));  // for incarnation 1, while 0 runs
  CHECK(rank.fail_stop(bench.env.metrics, bench.observer, 0) == 0);
  rank.replace(1, 1, bench.env.metrics);
  // Incarnation 1 fails before its redelivery (the kept message names the incarnation that died).
  CHECK(rank.fail_stop(bench.env.metrics, bench.observer, 1) == 1);
  CHECK(rank.postponed().empty());
  // A redelivery stops when the travel says so, and leaves nothing kept behind.
  rank.replace(2, 2, bench.env.metrics);
  CHECK_FALSE(rank.admit(to_rank_1(3, 2)));
  CHECK_FALSE(rank.admit(to_rank_1(3, 3)));
  int travelled = 0;
  rank.redeliver([&](node::Message&&) { return ++travelled < 1; });
  CHECK(travelled == 1);
  CHECK(rank.postponed().empty());
}

// ----------------------------------------------------------------------------- in a whole run

#include "sim/node/protocol_context.hpp"
#include "tests/support/run_on_queue.hpp"

namespace {

constexpr std::uint32_t kProbe = 0x7e57;  // a control type no protocol uses

struct Probed {
  std::uint32_t incarnation;  // of the process that took it
  std::uint32_t named;        // the incarnation it named
};

// The config's protocol, and on node 0, once it hears node 1 failed: four probes to node 1
// naming the incarnation that died, its replacement, any, and the one after the replacement.
// Node 1 records which of its incarnations took which probe.
class Prober final : public node::Protocol {
public:
  Prober(std::unique_ptr<node::Protocol> inner, std::vector<Probed>& probed) : inner_(std::move(inner)), probed_(probed) {}
  void on_start(node::ProtocolContext& c) override { inner_->on_start(c); }
  bool may_start(node::ProtocolContext& c, node::TaskId t) override { return inner_->may_start(c, t); }
  void on_task_completed(node::ProtocolContext& c, node::TaskId t, bool first) override { inner_->on_task_completed(c, t, first); }
  node::SendVerdict on_send(node::ProtocolContext& c, node::Message& m) override { return inner_->on_send(c, m); }
  node::ReceiveVerdict on_receive(node::ProtocolContext& c, const node::Message& m) override { return inner_->on_receive(c, m); }
  void on_stored(node::ProtocolContext& c, const node::Message& m) override { inner_->on_stored(c, m); }
  void on_data_released(node::ProtocolContext& c, const node::Message& m) override { inner_->on_data_released(c, m); }
  void on_control(node::ProtocolContext& c, const node::Message& m) override {
    if (m.control_type != kProbe) return inner_->on_control(c, m);
    probed_.push_back({c.incarnation(), m.destination_incarnation});
  }
  void on_timer(node::ProtocolContext& c, std::uint64_t token) override { inner_->on_timer(c, token); }
  void on_storage_done(node::ProtocolContext& c, std::uint64_t token, const node::Bytes* content) override {
    inner_->on_storage_done(c, token, content);
  }
  void on_activity_done(node::ProtocolContext& c, std::uint64_t token) override { inner_->on_activity_done(c, token); }
  void on_failure_notice(node::ProtocolContext& c, const node::FailureNotice& notice) override {
    inner_->on_failure_notice(c, notice);
    if (c.node() != 0 || notice.node != 1) return;
    for (std::uint32_t named : {notice.incarnation, notice.incarnation + 1, node::kAnyIncarnation, notice.incarnation + 2}) {
      c.send_control(1, kProbe, node::Bytes{}, node::Traffic::control, 0, named);
    }
  }
  void on_restart(node::ProtocolContext& c, const node::RestartInfo& info) override { inner_->on_restart(c, info); }
  bool finished(node::ProtocolContext& c) override { return inner_->finished(c); }
  std::string phase(node::ProtocolContext& c) override { return inner_->phase(c); }

private:
  std::unique_ptr<node::Protocol> inner_;
  std::vector<Probed>& probed_;
};

}  // namespace

TEST_CASE("rank lifecycle: in a simulation, probes reach the incarnation they name, or none if it is gone",
          "[world][lifecycle]") {
  // Node 1 fails twice; each time node 0 hears of it while node 1 is down (detection before the
  // downtime ends) and probes it.
  const config::Json document = {
      {"application", {{"type", "cholesky"}, {"tiles", 6}, {"tile_size", 128}}},
      {"platform", {{"nodes", 4}, {"cores_per_node", 2}, {"core_gflops", 2}}},
      {"protocol", {{"type", "none"}}},
      {"failures",
       {{"model", "list"},
        {"events", {{{"time", 0.0005}, {"node", 1}}, {{"time", 0.004}, {"node", 1}}}},
        {"downtime", "1ms"},
        {"detection", "0.1ms"}}}};
  std::vector<Probed> probed;
  const node::RunMetrics metrics =
      testing::run_on_queue(document, "rank lifecycle test", 1e-6, 1e9, {}, [&](node::ProtocolFactory inner) {
        return node::ProtocolFactory([inner, &probed](node::NodeId node, bool coordinator) -> std::unique_ptr<node::Protocol> {
          return std::make_unique<Prober>(inner(node, coordinator), probed);
        });
      });
  REQUIRE(metrics.complete);
  REQUIRE(metrics.failures.size() == 2);
  // First failure (incarnation 0): the replacement (1) takes the probes naming 1 and any, kept
  // while it was down; the one naming 0 is dropped; the one naming 2 waits for incarnation 2.
  // Second failure (incarnation 1): incarnation 2 takes, after its restart, the probe kept for it
  // since the first failure, then those naming 2 and any; those naming 1 and 3 never arrive (3
  // never runs).
  const std::vector<std::pair<std::uint32_t, std::uint32_t>> expected = {
      {1, 1}, {1, node::kAnyIncarnation}, {2, 2}, {2, 2}, {2, node::kAnyIncarnation}};
  std::vector<std::pair<std::uint32_t, std::uint32_t>> got;
  for (const Probed& p : probed) got.emplace_back(p.incarnation, p.named);
  CHECK(got == expected);
}
