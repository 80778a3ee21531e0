// CCK against the standard protocol on the same failures (Besseron 2006 §3.6.2): with the same
// checkpoint period and the same failure scenarios (the failure campaign's kind: one to three
// failures, some simultaneous, random downtime and detection), CCK restarts the failed node only
// and its survivors re-execute T_a_re-executer, where `global` rolls every node back to the last
// checkpoint. Everything must recover with the failure-free digests; on 16 nodes CCK must
// re-execute fewer tasks in all, and with §3.7.1 no more than without. Prints the totals per
// application. (On the campaign's 4 nodes every node neighbours the failed one and plain CCK
// re-executes about as much as global: bench/cck_vs_global.py prints both.) Queue backend.
#include <catch2/catch.hpp>

#include <random>

#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

config::Json application(const std::string& name) {
  if (name == "cholesky") return {{"type", "cholesky"}, {"tiles", 10}, {"tile_size", 128}};
  if (name == "stencil") return {{"type", "stencil"}, {"tiles", {8, 8}}, {"tile_size", 256}, {"iterations", 12}};
  return {{"type", "cg"}, {"grid", 256}, {"blocks", 8}, {"iterations", 8}};
}

config::Json base(const std::string& app) {
  return {{"name", "cck-vs-global-" + app},
          {"application", application(app)},
          {"platform", {{"nodes", 16}, {"cores_per_node", 2}, {"core_gflops", 2}, {"storage", {{"hosts", 1}}}}}};
}

std::uint64_t reexecutions(const node::RunMetrics& m) {
  std::uint64_t total = 0;
  for (const auto& n : m.nodes) total += n.reexecutions;
  return total;
}

}  // namespace

TEST_CASE("cck: fewer re-executions than global on the same failures", "[cck][campaign-lite]") {
  for (const std::string app : {"cholesky", "stencil", "cg"}) {
    const node::RunMetrics reference = testing::run_on_queue(base(app), "reference");
    REQUIRE(reference.complete);
    const double makespan = reference.makespan;
    std::uint64_t cck_total = 0, kept_total = 0, global_total = 0, failures = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      std::mt19937_64 random(seed * 104729 + app.size());
      std::uniform_real_distribution<double> unit(0.0, 1.0);
      config::Json events = config::Json::array();
      const int count = 1 + int(random() % 3);
      for (int i = 0; i < count; ++i) {
        const bool simultaneous = i > 0 && random() % 3 == 0;
        const double time = simultaneous ? events[0]["time"].get<double>() : unit(random) * makespan;
        events.push_back({{"time", time}, {"node", int(random() % 16)}});
      }
      const config::Json failures_block = {{"model", "list"}, {"events", events},
                                           {"downtime", unit(random) * 0.1 * makespan},
                                           {"detection", unit(random) * 0.02 * makespan}};
      const double period = (0.1 + 0.2 * unit(random)) * makespan;
      config::Json with_cck = base(app), with_kept = base(app), with_global = base(app);
      with_cck["failures"] = with_kept["failures"] = with_global["failures"] = failures_block;
      with_cck["protocol"] = {{"type", "cck"}, {"period", period}};
      with_kept["protocol"] = {{"type", "cck"}, {"period", period}, {"reexecution", {{"keep_in_memory", true}}}};
      with_global["protocol"] = {{"type", "global"}, {"period", period}, {"storage", "stable"}};
      const node::RunMetrics cck = testing::run_on_queue(with_cck, "cck");
      const node::RunMetrics kept = testing::run_on_queue(with_kept, "cck, keep in memory");
      const node::RunMetrics global = testing::run_on_queue(with_global, "global");
      INFO(app << " seed " << seed << ": " << with_cck.dump());
      INFO("cck: " << cck.failure_reason << "; kept: " << kept.failure_reason << "; global: " << global.failure_reason);
      REQUIRE(cck.complete);
      REQUIRE(kept.complete);
      REQUIRE(global.complete);
      CHECK(cck.oracle_ok);
      CHECK(kept.oracle_ok);
      CHECK(global.oracle_ok);
      cck_total += reexecutions(cck);
      kept_total += reexecutions(kept);
      global_total += reexecutions(global);
      failures += cck.failures.size();
    }
    WARN(app << " on 16 nodes: 20 scenarios, " << failures << " failures: re-executed tasks: cck " << cck_total
             << ", cck with §3.7.1 " << kept_total << ", global " << global_total);
    CHECK(cck_total < global_total);
    CHECK(kept_total <= cck_total);
  }
}
