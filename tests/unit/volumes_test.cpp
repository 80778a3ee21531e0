// analysis::compute_volumes on small hand-checked graphs (blind, differential, cached, cached_any,
// peak_held, several buddies) and graphs::CutSelection (every, count, the cut at the end).
#include <catch2/catch.hpp>

#include <vector>

#include "analysis/volumes.hpp"
#include "graphs/apps/applications.hpp"
#include "graphs/buddy_mapping.hpp"
#include "graphs/cut_selection.hpp"
#include "graphs/distribution.hpp"
#include "graphs/stf_builder.hpp"

using namespace ftsim;
using namespace ftsim::graphs;
using analysis::compute_volumes;
using Bytes = std::vector<double>;

namespace {

BuddyMapping next_buddies(NodeId nodes) {
  config::BuddyConfig buddy;
  buddy.kind = config::BuddyKind::next;
  config::DistributionConfig distribution;
  distribution.P = 1;
  distribution.Q = nodes;
  return BuddyMapping(buddy, distribution, nodes);
}

BuddyMapping explicit_buddies(std::vector<std::vector<std::uint32_t>> lists) {
  config::BuddyConfig buddy;
  buddy.kind = config::BuddyKind::explicit_list;
  const auto nodes = static_cast<NodeId>(lists.size());
  buddy.explicit_buddies = std::move(lists);
  config::DistributionConfig distribution;
  distribution.P = 1;
  distribution.Q = nodes;
  return BuddyMapping(buddy, distribution, nodes);
}

// K iterations of one task each, a cut after each: cut j at position j, the last one at the end.
TaskGraph iterations_graph(std::uint32_t k) {
  StfBuilder b(1);
  const KernelId f = b.kernel("f", 1);
  const HandleId h = b.data(8, 0);
  for (std::uint32_t i = 0; i < k; ++i) {
    b.task(f, {RW(h)}, 0, 0);
    b.checkpoint();
  }
  return b.finish();
}

config::CheckpointConfig placement_every(std::uint32_t every) {
  config::CheckpointConfig c;
  c.placement = config::CutPlacement::every;
  c.every = every;
  c.pointer = "/checkpoints/0";
  return c;
}

config::CheckpointConfig placement_count(std::uint32_t count) {
  config::CheckpointConfig c;
  c.placement = config::CutPlacement::count;
  c.count = count;
  c.pointer = "/checkpoints/1";
  return c;
}

}  // namespace

TEST_CASE("volumes: blind counts every datum, initial values included; differential only written data",
          "[analysis][volumes]") {
  // a (10 B) and c (40 B) on node 0, b (20 B) on node 1; buddies 0 <-> 1.
  StfBuilder builder(2);
  const KernelId f = builder.kernel("f", 1);
  const HandleId a = builder.data(10, 0), b = builder.data(20, 1), c = builder.data(40, 0);
  (void)b;
  builder.task(f, {W(a)}, 0, 0);   // a v1 on node 0
  builder.checkpoint();            // cut 1
  builder.task(f, {W(c)}, 1, 0);   // c v1 written on node 1, not its owner
  builder.checkpoint();            // cut 2
  builder.task(f, {R(a)}, 0, 0);   // local read
  builder.checkpoint();            // cut 3: at the end, dropped
  const TaskGraph g = builder.finish();

  const CutSelection cuts({1, 2, 3}, g);
  REQUIRE(cuts.checkpoint_count() == 2u);
  const auto v = compute_volumes(g, cuts, next_buddies(2));
  CHECK(v.cuts == std::vector<CutId>{1, 2});
  // Checkpoint 1: node 0 holds a and c (50), node 1 holds b (20). Checkpoint 2: c now lives on
  // node 1: node 0 holds a (10), node 1 b and c (60).
  CHECK(v.blind.bytes == Bytes{50 + 10, 20 + 60});
  CHECK(v.blind.total() == 140.0);
  CHECK(v.blind.max() == 80.0);
  CHECK(v.blind.min() == 60.0);
  CHECK(v.blind.average() == 70.0);
  // Differential: a at checkpoint 1 from node 0; c at checkpoint 2 from node 1. b never.
  CHECK(v.differential.bytes == Bytes{10, 40});
  // No application transfer at all: nothing is spared.
  CHECK(v.cached.bytes == Bytes{10, 40});
  CHECK(v.cached_any.bytes == Bytes{10, 40});
  CHECK(v.saves == 2u);
  CHECK(v.cached_saves == 0u);
  // Node 1 stores a (10); node 0 stores c (40).
  CHECK(v.peak_held.bytes == Bytes{40, 10});
  CHECK(analysis::application_bytes_sent(g).bytes == Bytes{0, 0});
}

TEST_CASE("volumes: cached spares transfers submitted before the cut, cached_any any transfer to the buddy",
          "[analysis][volumes]") {
  // Three nodes, buddies next: 0 -> 1 -> 2 -> 0.
  StfBuilder builder(3);
  const KernelId f = builder.kernel("f", 1);
  const HandleId a = builder.data(10, 0), b = builder.data(20, 0), c = builder.data(40, 0);
  builder.task(f, {W(a), W(b), W(c)}, 0, 0);  // 0: all on node 0
  builder.task(f, {R(a)}, 1, 0);              // 1: a v1 -> node 1 (the buddy), before the cut
  builder.task(f, {R(c)}, 2, 0);              // 2: c v1 -> node 2 (not the buddy)
  builder.checkpoint();                       // cut 1 at 3
  builder.task(f, {R(b)}, 1, 0);              // 3: b v1 -> node 1, after the cut
  const TaskGraph g = builder.finish();

  const auto v = compute_volumes(g, CutSelection({1}, g), next_buddies(3));
  CHECK(v.differential.bytes == Bytes{70, 0, 0});
  CHECK(v.cached.bytes == Bytes{20 + 40, 0, 0});  // a spared
  CHECK(v.cached_any.bytes == Bytes{40, 0, 0});   // a and b spared; c's copy is on node 2
  CHECK(v.saves == 3u);
  CHECK(v.cached_saves == 1u);
  CHECK(v.blind.bytes == Bytes{70, 0, 0});
  CHECK(v.peak_held.bytes == Bytes{0, 70, 0});
  CHECK(analysis::application_bytes_sent(g).bytes == Bytes{70, 0, 0});
}

TEST_CASE("volumes: several buddies get one save each", "[analysis][volumes]") {
  // Node 0 is protected by nodes 1 and 2; nodes 1 and 2 by node 0.
  StfBuilder builder(3);
  const KernelId f = builder.kernel("f", 1);
  const HandleId a = builder.data(10, 0), b = builder.data(5, 2);
  builder.task(f, {W(a)}, 0, 0);
  builder.task(f, {R(a)}, 1, 0);   // a v1 -> node 1 before the cut
  builder.task(f, {RW(b)}, 2, 0);  // b v1 on node 2
  builder.checkpoint();
  builder.task(f, {R(a)}, 2, 0);   // a v1 -> node 2 after the cut
  const TaskGraph g = builder.finish();

  const auto v = compute_volumes(g, CutSelection({1}, g), explicit_buddies({{1, 2}, {0}, {0}}));
  CHECK(v.blind.bytes == Bytes{2 * 10, 0, 5});
  CHECK(v.differential.bytes == Bytes{2 * 10, 0, 5});
  CHECK(v.saves == 3u);
  CHECK(v.cached.bytes == Bytes{10, 0, 5});      // the copy to node 1 is spared
  CHECK(v.cached_any.bytes == Bytes{0, 0, 5});   // both copies are spared
  CHECK(v.cached_saves == 1u);
  CHECK(v.peak_held.bytes == Bytes{5, 10, 10});
}

TEST_CASE("volumes: a buddy keeps the previous checkpoint until the next completes (peak_held)",
          "[analysis][volumes]") {
  StfBuilder builder(2);
  const KernelId f = builder.kernel("f", 1);
  const HandleId a = builder.data(10, 0);
  builder.task(f, {W(a)}, 0, 0);   // a v1 on node 0
  builder.checkpoint();            // cut 1: node 1 stores a v1
  builder.task(f, {W(a)}, 1, 0);   // a v2 on node 1
  builder.checkpoint();            // cut 2: node 0 stores a v2, node 1 drops a v1
  builder.task(f, {RW(a)}, 1, 0);  // a v3 on node 1
  builder.checkpoint();            // cut 3: node 0 receives a v3 while it keeps v2
  builder.task(f, {R(a)}, 0, 0);   // a v3 -> node 0 after cut 3
  const TaskGraph g = builder.finish();

  const auto v = compute_volumes(g, CutSelection({1, 2, 3}, g), next_buddies(2));
  REQUIRE(v.checkpoints == 3u);
  CHECK(v.differential.bytes == Bytes{10, 20});
  CHECK(v.peak_held.bytes == Bytes{20, 10});
  CHECK(v.cached.bytes == Bytes{10, 20});       // the transfer of v3 is submitted after cut 3
  CHECK(v.cached_any.bytes == Bytes{10, 10});   // ... but node 0 receives v3 anyway
  // Blind: a on node 0, then on node 1 twice.
  CHECK(v.blind.bytes == Bytes{10, 20});
}

TEST_CASE("volumes: unselected candidate cuts are folded into the next checkpoint", "[analysis][volumes]") {
  StfBuilder builder(2);
  const KernelId f = builder.kernel("f", 1);
  const HandleId a = builder.data(10, 0), b = builder.data(20, 0);
  builder.task(f, {W(a)}, 0, 0);
  builder.checkpoint();            // cut 1, not selected
  builder.task(f, {W(b)}, 0, 0);
  builder.task(f, {RW(a)}, 0, 0);
  builder.checkpoint();            // cut 2, selected: a (v2) and b, each once
  builder.task(f, {R(a)}, 0, 0);
  const TaskGraph g = builder.finish();
  const auto v = compute_volumes(g, CutSelection({2}, g), next_buddies(2));
  CHECK(v.checkpoints == 1u);
  CHECK(v.saves == 2u);
  CHECK(v.differential.bytes == Bytes{30, 0});
}

TEST_CASE("CutSelection: every K takes cuts K, 2K, ... and drops a cut at the end", "[graphs][cuts]") {
  const TaskGraph g = iterations_graph(7);  // cuts 1..7 at positions 1..7 = task_count
  REQUIRE(g.cut_count() == 7u);
  auto every = [&](std::uint32_t k) { return CutSelection(placement_every(k), g, "test.json").cuts(); };
  CHECK(every(1) == std::vector<CutId>{1, 2, 3, 4, 5, 6});  // cut 7 has no task after it
  CHECK(every(2) == std::vector<CutId>{2, 4, 6});
  CHECK(every(3) == std::vector<CutId>{3, 6});
  CHECK(every(7).empty());
  CHECK(every(8).empty());
}

TEST_CASE("CutSelection: count C takes the cut after 0-based iteration floor(i NT / (C + 1))", "[graphs][cuts]") {
  const TaskGraph g = iterations_graph(7);
  auto count = [&](std::uint32_t c) { return CutSelection(placement_count(c), g, "test.json").cuts(); };
  CHECK(count(1) == std::vector<CutId>{4});           // floor(7/2) = 3
  CHECK(count(2) == std::vector<CutId>{3, 5});        // 2, 4
  CHECK(count(3) == std::vector<CutId>{2, 4, 6});     // 1, 3, 5
  CHECK(count(5) == std::vector<CutId>{2, 3, 4, 5, 6});  // 1..5: the most 7 iterations can hold
  for (std::uint32_t too_many : {6u, 7u}) {
    // 6 would put its last checkpoint after the final iteration (silently one fewer): rejected.
    try {
      CutSelection(placement_count(too_many), g, "test.json");
      FAIL(too_many << " checkpoints on 7 cuts must be rejected");
    } catch (const config::ConfigError& error) {
      CHECK(error.file() == "test.json");
      CHECK(error.pointer() == "/checkpoints/1/count");
      CHECK(error.message().find("expected at most 5 checkpoints for 7 outer iterations") != std::string::npos);
    }
  }

  // On Cholesky (Algorithm 2, NT = 8), count 3 cuts after columns 2, 4 and 6.
  config::CholeskyConfig cholesky;
  cholesky.tiles = 8;
  cholesky.tile_size = 2;
  config::DistributionConfig d;
  d.P = d.Q = 1;
  StfBuilder builder(1);
  submit_cholesky(cholesky, Distribution(d, 1), builder);
  const TaskGraph chol = builder.finish();
  const CutSelection selection(placement_count(3), chol, "c.json");
  CHECK(selection.cuts() == std::vector<CutId>{3, 5, 7});
  // Column n of Algorithm 2 submits n SYRK, a POTRF, and per row below n GEMMs and a TRSM:
  // (n + 1)(NT - n) tasks; columns 0..2 give 8 + 14 + 18.
  CHECK(chol.cut_position(3) == 40u);
}

TEST_CASE("CutSelection: explicit cuts, sections and checkpoint ids", "[graphs][cuts]") {
  const TaskGraph g = iterations_graph(7);
  const CutSelection s({0, 2, 2, 5, 3, 7, 99}, g);  // 0, repeats, descending, the end and unknown ids dropped
  REQUIRE(s.checkpoint_count() == 2u);
  CHECK(s.cuts() == std::vector<CutId>{2, 5});
  CHECK(s.cut_of(1) == 2u);
  CHECK(s.cut_of(2) == 5u);
  CHECK(s.section(0) == 0u);
  CHECK(s.section(1) == 0u);
  CHECK(s.section(2) == 1u);  // cut 2 is at position 2: task 2 comes after it
  CHECK(s.section(4) == 1u);
  CHECK(s.section(5) == 2u);
  CHECK(s.section(6) == 2u);
}
