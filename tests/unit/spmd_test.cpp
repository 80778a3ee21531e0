// SPMD iterations (graphs/apps/spmd.cpp): one rank per node; per iteration COMPUTE on every rank
// (reads the messages of the previous iteration), then PACK on every rank that sends. Message
// counts of each pattern derived by hand; message m(s -> d) of iteration t feeds COMPUTE(d, t+1).
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <tuple>

#include "graphs/apps/applications.hpp"
#include "graphs/distribution.hpp"
#include "graphs/stf_builder.hpp"

using namespace ftsim;
using namespace ftsim::graphs;

namespace {

TaskGraph build_spmd(config::SpmdPattern pattern, std::uint32_t ranks, std::uint32_t iterations) {
  config::SpmdConfig c;
  c.pattern = pattern;
  c.iterations = iterations;
  c.message_bytes = 64;
  c.state_bytes = 1000;
  c.flops = 1e6;
  config::DistributionConfig d;
  d.type = config::DistributionType::block;  // rank r on node r
  const Distribution distribution(d, ranks);
  StfBuilder builder(ranks);
  submit_spmd(c, distribution, builder);
  return builder.finish();
}

// Messages per iteration of each pattern, counted by hand.
std::uint64_t messages(config::SpmdPattern pattern, std::uint64_t ranks) {
  if (ranks < 2) return 0;
  switch (pattern) {
    case config::SpmdPattern::ring: return ranks;                 // r -> r+1 mod R
    case config::SpmdPattern::alltoall: return ranks * (ranks - 1);
    case config::SpmdPattern::tree: return 2 * (ranks - 1);       // each tree edge both ways
    case config::SpmdPattern::halo2d: {
      // Most square p x q grid with p <= q: 2 (p-1) q vertical + 2 p (q-1) horizontal messages.
      const std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> grids{
          {2, {1, 2}}, {4, {2, 2}}, {6, {2, 3}}, {7, {1, 7}}, {9, {3, 3}}, {12, {3, 4}}};
      const auto [p, q] = grids.at(ranks);
      return 2 * (p - 1) * q + 2 * p * (q - 1);
    }
    // The NAS patterns (graphs/spmd.cpp) at 64 ranks only.
    case config::SpmdPattern::nas_mg: return ranks == 64 ? 64 * 6 : 0;   // 4x4x4 periodic: 6 distinct faces
    case config::SpmdPattern::nas_lu: return ranks == 64 ? 224 : 0;      // halo2d on 8x8: 2*7*8 + 2*8*7
    case config::SpmdPattern::nas_ft: return ranks * (ranks - 1);        // all-to-all transposes
    case config::SpmdPattern::nas_bt: return ranks == 64 ? 64 * 6 : 0;   // 8x8 periodic: E, W, S, N, 2 diagonals
    // 8x8: partners r^1, r^2, r^4 along the row, three messages each (NPB CG's three reductions
    // per iteration); the transpose partner, except on the diagonal.
    case config::SpmdPattern::nas_cg: return ranks == 64 ? 64 * 3 * 3 + 56 : 0;
  }
  return 0;
}

const char* name(config::SpmdPattern pattern) { return config::to_string(pattern); }

}  // namespace

static void check_counts(config::SpmdPattern pattern, std::uint32_t ranks) {
  const std::uint32_t iterations = 3;
  CAPTURE(name(pattern), ranks);
  const TaskGraph g = build_spmd(pattern, ranks, iterations);
  const std::uint64_t m = messages(pattern, ranks);
  CHECK(g.handle_count() == ranks + m);              // a state per rank and the messages
  CHECK(g.task_count() == 2ull * ranks * iterations);  // every rank sends in these patterns
  CHECK(g.cut_count() == iterations);
  CHECK(g.total_data_bytes() == ranks * 1000 + m * 64);
  // Each message crosses nodes once per iteration (the first one carries its initial value).
  CHECK(g.transfers().size() == m * iterations);
  std::map<std::uint32_t, std::uint64_t> per_iteration;
  for (const Transfer& x : g.transfers()) {
    ++per_iteration[g.section(x.consumer)];
    CHECK(x.version == g.section(x.consumer));
    CHECK(g.kernel_name(g.kernel(x.consumer)) == "COMPUTE");
  }
  for (std::uint32_t t = 0; t < iterations; ++t) CHECK(per_iteration[t] == m);
  CHECK(g.transfers().cache_hits() == 0u);
}

TEST_CASE("SPMD: task, handle and transfer counts per pattern", "[graphs][spmd]") {
  for (auto pattern : {config::SpmdPattern::ring, config::SpmdPattern::halo2d, config::SpmdPattern::alltoall,
                       config::SpmdPattern::tree}) {
    for (std::uint32_t ranks : {2u, 4u, 6u, 7u, 9u, 12u}) check_counts(pattern, ranks);
  }
}

TEST_CASE("SPMD: the NAS patterns' messages at 64 ranks, counted by hand", "[graphs][spmd]") {
  for (auto pattern : {config::SpmdPattern::nas_mg, config::SpmdPattern::nas_lu, config::SpmdPattern::nas_ft,
                       config::SpmdPattern::nas_cg, config::SpmdPattern::nas_bt}) {
    check_counts(pattern, 64);
  }
}

TEST_CASE("SPMD: a single rank only computes", "[graphs][spmd]") {
  const TaskGraph g = build_spmd(config::SpmdPattern::ring, 1, 4);
  CHECK(g.task_count() == 4u);
  CHECK(g.handle_count() == 1u);
  CHECK(g.transfers().size() == 0u);
  CHECK(g.edge_count() == 3u);
}

TEST_CASE("SPMD: COMPUTE of iteration t reads the messages packed in iteration t-1", "[graphs][spmd]") {
  const std::uint32_t ranks = 4, iterations = 3;
  const TaskGraph g = build_spmd(config::SpmdPattern::ring, ranks, iterations);
  std::map<std::tuple<std::string, std::int32_t, std::int32_t>, TaskId> tasks;
  for (TaskId t = 0; t < g.task_count(); ++t) {
    tasks[{g.kernel_name(g.kernel(t)), g.label(t).a, g.label(t).b}] = t;
  }
  for (std::int32_t t = 0; t < std::int32_t(iterations); ++t) {
    for (std::int32_t r = 0; r < std::int32_t(ranks); ++r) {
      CAPTURE(t, r);
      const TaskId compute = tasks.at({"COMPUTE", r, t});
      const TaskId pack = tasks.at({"PACK", r, t});
      const std::int32_t left = (r + std::int32_t(ranks) - 1) % std::int32_t(ranks);
      const auto accesses = g.accesses(compute);
      REQUIRE(accesses.size() == 2u);  // RW state, R the message from the left neighbour
      CHECK(accesses[0].version == std::uint32_t(t + 1));
      CHECK(g.handle_label(accesses[1].handle).a == left);
      CHECK(g.handle_label(accesses[1].handle).b == r);
      CHECK(accesses[1].version == std::uint32_t(t));
      std::set<TaskId> expected;
      if (t > 0) {
        CHECK(g.writer(accesses[1].handle, std::uint32_t(t)) == tasks.at({"PACK", left, t - 1}));
        expected = {tasks.at({"COMPUTE", r, t - 1}), tasks.at({"PACK", r, t - 1}),  // WAW, WAR on state
                    tasks.at({"PACK", left, t - 1})};                                // RAW message
      }
      std::set<TaskId> actual;
      for (TaskId p : g.predecessors(compute)) actual.insert(p);
      CHECK(actual == expected);
      // PACK(r, t): RAW on the state, WAR from the right neighbour's COMPUTE(t) that read the
      // previous message, WAW from PACK(r, t-1).
      const std::int32_t right = (r + 1) % std::int32_t(ranks);
      std::set<TaskId> expected_pack{compute, tasks.at({"COMPUTE", right, t})};
      if (t > 0) expected_pack.insert(tasks.at({"PACK", r, t - 1}));
      std::set<TaskId> actual_pack;
      for (TaskId p : g.predecessors(pack)) actual_pack.insert(p);
      CHECK(actual_pack == expected_pack);
    }
  }
}
