// CCK's checkpoint costs O(N·V) control messages, the standard flush with every node O(N²)
// (Besseron 2006 §3.6.1): on a stencil with one tile per node (each node's V is its 2 to 4 grid
// neighbours, V = 4 inside the grid) and one checkpoint, the counts equal exact formulas.
//   cck:          N INIT + Σ|V_i| PING + Σ|V_i| PONG + Σ|V_i| CONT + N ACK = 2N + 3·Σ|V_i|
//   flush "all":  2N + 3·N(N - 1)
// with Σ|V_i| = 2·(P(Q - 1) + Q(P - 1)) on a P × Q grid (each neighbour pair counted both ways).
// On the queue backend (no SimGrid): N = 1024 with the full flush is 3.1 million messages.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

config::Json stencil(std::uint32_t p, std::uint32_t q, const std::string& flush) {
  return {{"name", "cck-message-count"},
          {"application", {{"type", "stencil"}, {"tiles", {p, q}}, {"tile_size", 64}, {"iterations", 6}}},
          {"platform", {{"nodes", p * q}, {"cores_per_node", 1}, {"core_gflops", 1}, {"storage", {{"hosts", 4}}}}},
          {"checkpoints", {{"count", 1}}},
          {"protocol", {{"type", "cck"}, {"at", "cuts"}, {"flush", flush}}}};
}

std::uint64_t metric(const node::RunMetrics& m, const std::string& name) {
  for (const auto& named : m.protocol_metrics) {
    if (named.name == name) return named.value;
  }
  FAIL("no metric " << name);
  return 0;
}

}  // namespace

TEST_CASE("cck: control messages per checkpoint are 2N + 3·ΣV, the full flush 2N + 3N(N-1)", "[cck][messages]") {
  for (std::uint32_t side : {4u, 8u, 16u, 32u}) {
    const std::uint64_t n = std::uint64_t(side) * side;
    const std::uint64_t neighbour_pairs = 2 * (std::uint64_t(side) * (side - 1) + std::uint64_t(side) * (side - 1));
    for (const std::string flush : {"neighbours", "all"}) {
      INFO("N = " << n << ", flush " << flush);
      const node::RunMetrics m = testing::run_on_queue(stencil(side, side, flush), "cck message count");
      INFO(m.failure_reason);
      REQUIRE(m.complete);
      CHECK(m.oracle_ok);
      REQUIRE(metric(m, "checkpoints_validated") == 1);
      const std::uint64_t expected = flush == "all" ? 2 * n + 3 * n * (n - 1) : 2 * n + 3 * neighbour_pairs;
      CHECK(metric(m, "checkpoint_messages") == expected);
      // The coordinator's own count of the checkpoint (INITs + what each ACK reported) agrees.
      CHECK(metric(m, "checkpoint_messages_max") == expected);
      // Every control message of the run is the checkpoint's (no failure).
      CHECK(m.ft_service_msgs_count == expected);
      if (flush == "neighbours") CHECK(expected <= 2 * n + 3 * 4 * n);  // V ≤ 4: O(N·V)
    }
  }
}
