// StfBuilder: dependency inference (RAW / WAR / WAW), versions, the StarPU-MPI cache rule of the
// transfer plan, candidate cuts, the Boost CSR DAG and builder errors. Every expected value is
// worked out by hand from the STF rules in graphs/stf_builder.hpp, not read back from the code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <set>
#include <tuple>
#include <vector>

#include <boost/graph/topological_sort.hpp>

#include "graphs/stf_builder.hpp"

using namespace ftsim::graphs;

namespace {

std::set<TaskId> predecessors(const TaskGraph& g, TaskId t) {
  std::set<TaskId> result;
  for (TaskId p : g.predecessors(t)) result.insert(p);
  return result;
}

std::vector<TaskId> predecessor_list(const TaskGraph& g, TaskId t) {
  std::vector<TaskId> result;
  for (TaskId p : g.predecessors(t)) result.push_back(p);
  std::sort(result.begin(), result.end());
  return result;
}

std::vector<TaskId> successor_list(const TaskGraph& g, TaskId t) {
  auto s = g.successors(t);
  std::vector<TaskId> result(s.begin(), s.end());
  std::sort(result.begin(), result.end());
  return result;
}

using TransferTuple = std::tuple<HandleId, Version, NodeId, NodeId, TaskId>;
std::vector<TransferTuple> transfer_tuples(const TaskGraph& g) {
  std::vector<TransferTuple> result;
  for (const Transfer& x : g.transfers()) result.emplace_back(x.handle, x.version, x.source, x.destination, x.consumer);
  return result;
}

using EntryPair = std::pair<HandleId, Version>;
std::vector<EntryPair> cut_entries(const TaskGraph& g, CutId c) {
  std::vector<EntryPair> result;
  for (const auto& e : g.modified_before_cut(c)) result.emplace_back(e.handle, e.version);
  std::sort(result.begin(), result.end());
  return result;
}

}  // namespace

TEST_CASE("RAW: a reader depends on the last writer only, readers are not ordered", "[graphs][stf]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0);
  const TaskId w = b.task(k, {W(h)}, 0, 0);
  const TaskId r1 = b.task(k, {R(h)}, 0, 0);
  const TaskId r2 = b.task(k, {R(h)}, 0, 0);
  const TaskGraph g = b.finish();

  CHECK(predecessors(g, w).empty());
  CHECK(predecessors(g, r1) == std::set<TaskId>{w});
  CHECK(predecessors(g, r2) == std::set<TaskId>{w});  // no edge r1 -> r2
  CHECK(g.edge_count() == 2u);
}

TEST_CASE("WAR: a writer waits for every reader since the last write", "[graphs][stf]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0);
  const TaskId t0 = b.task(k, {W(h)}, 0, 0);
  const TaskId t1 = b.task(k, {R(h)}, 0, 0);
  const TaskId t2 = b.task(k, {R(h)}, 0, 0);
  const TaskId t3 = b.task(k, {W(h)}, 0, 0);   // WAW t0, WAR t1 t2
  const TaskId t4 = b.task(k, {R(h)}, 0, 0);   // RAW t3
  const TaskId t5 = b.task(k, {RW(h)}, 0, 0);  // RAW/WAW t3, WAR t4; t1 t2 are older readers
  const TaskGraph g = b.finish();

  CHECK(predecessors(g, t3) == std::set<TaskId>{t0, t1, t2});
  CHECK(predecessors(g, t4) == std::set<TaskId>{t3});
  CHECK(predecessors(g, t5) == std::set<TaskId>{t3, t4});
  // 1 + 1 + 3 + 1 + 2
  CHECK(g.edge_count() == 8u);
}

TEST_CASE("WAR: the reader list starts again after each write", "[graphs][stf]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0);
  const TaskId r0 = b.task(k, {R(h)}, 0, 0);   // reads the initial value
  const TaskId w1 = b.task(k, {W(h)}, 0, 0);   // WAR r0
  const TaskId r1 = b.task(k, {R(h)}, 0, 0);
  const TaskId w2 = b.task(k, {W(h)}, 0, 0);   // WAW w1, WAR r1 only
  const TaskGraph g = b.finish();
  CHECK(predecessors(g, r0).empty());
  CHECK(predecessors(g, w1) == std::set<TaskId>{r0});
  CHECK(predecessors(g, w2) == std::set<TaskId>{w1, r1});
}

TEST_CASE("WAR: reader lists freed by a write are reused by other handles without mixing", "[graphs][stf]") {
  // The builder pools reader entries and gives a handle's list back when the handle is written;
  // interleaved handles then build their lists from each other's freed entries.
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId a = b.data(8, 0), c = b.data(8, 0);
  const TaskId a1 = b.task(k, {R(a)}, 0, 0);
  const TaskId a2 = b.task(k, {R(a)}, 0, 0);
  const TaskId c1 = b.task(k, {R(c)}, 0, 0);
  const TaskId a3 = b.task(k, {R(a)}, 0, 0);
  const TaskId wa = b.task(k, {W(a)}, 0, 0);  // WAR a1 a2 a3: its three entries are freed
  const TaskId c2 = b.task(k, {R(c)}, 0, 0);  // reuses one
  const TaskId c3 = b.task(k, {R(c)}, 0, 0);  // and another
  const TaskId ra = b.task(k, {R(a)}, 0, 0);  // and the last
  const TaskId c4 = b.task(k, {R(c)}, 0, 0);  // a new entry
  const TaskId wc = b.task(k, {W(c)}, 0, 0);  // WAR c1 c2 c3 c4 only
  const TaskId wa2 = b.task(k, {W(a)}, 0, 0); // WAW wa, WAR ra only
  const TaskGraph g = b.finish();
  CHECK(predecessors(g, wa) == std::set<TaskId>{a1, a2, a3});
  CHECK(predecessors(g, wc) == std::set<TaskId>{c1, c2, c3, c4});
  CHECK(predecessors(g, wa2) == std::set<TaskId>{wa, ra});
}

TEST_CASE("Access: 8 bytes that keep the largest version and every mode", "[graphs][stf]") {
  for (AccessMode mode : {AccessMode::R, AccessMode::W, AccessMode::RW}) {
    const Access x = make_access(7, kMaxVersion, mode);
    CHECK(x.handle == 7u);
    CHECK(x.version == kMaxVersion);
    CHECK(x.mode == mode);
  }
  CHECK(sizeof(Access) == 8u);
}

TEST_CASE("WAW: consecutive writers form a chain", "[graphs][stf]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0);
  const TaskId t0 = b.task(k, {W(h)}, 0, 0);
  const TaskId t1 = b.task(k, {W(h)}, 0, 0);
  const TaskId t2 = b.task(k, {W(h)}, 0, 0);
  const TaskGraph g = b.finish();
  CHECK(predecessors(g, t1) == std::set<TaskId>{t0});
  CHECK(predecessors(g, t2) == std::set<TaskId>{t1});
  CHECK(g.edge_count() == 2u);
}

TEST_CASE("tasks on independent handles have no edges", "[graphs][stf]") {
  StfBuilder b(2);
  const KernelId k = b.kernel("k", 1);
  const HandleId x = b.data(8, 0), y = b.data(8, 1);
  b.task(k, {W(x)}, 0, 0);
  b.task(k, {W(y)}, 1, 0);
  b.task(k, {R(x)}, 0, 0);
  b.task(k, {RW(y)}, 1, 0);
  const TaskGraph g = b.finish();
  CHECK(predecessors(g, 0).empty());
  CHECK(predecessors(g, 1).empty());
  CHECK(predecessors(g, 2) == std::set<TaskId>{0});
  CHECK(predecessors(g, 3) == std::set<TaskId>{1});
  CHECK(g.edge_count() == 2u);
}

TEST_CASE("a dependency through several handles is a single edge", "[graphs][stf]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId x = b.data(8, 0), y = b.data(8, 0), z = b.data(8, 0);
  const TaskId t0 = b.task(k, {W(x), W(y), W(z)}, 0, 0);
  const TaskId t1 = b.task(k, {R(x), R(y), R(z)}, 0, 0);          // RAW t0 three times
  const TaskId t2 = b.task(k, {RW(x), RW(y), W(z)}, 0, 0);        // RAW+WAW t0, WAR t1, three handles
  const TaskGraph g = b.finish();
  CHECK(predecessor_list(g, t1) == std::vector<TaskId>{t0});
  CHECK(predecessor_list(g, t2) == std::vector<TaskId>{t0, t1});
  CHECK(successor_list(g, t0) == std::vector<TaskId>{t1, t2});
  CHECK(g.predecessor_count(t2) == 2u);
  CHECK(g.edge_count() == 3u);
}

TEST_CASE("versions: R reads v, W and RW write v + 1", "[graphs][stf]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0);
  const HandleId untouched = b.data(8, 0);
  const HandleId read_only = b.data(8, 0);
  const TaskId t0 = b.task(k, {R(h), R(read_only)}, 0, 0);
  const TaskId t1 = b.task(k, {W(h)}, 0, 0);
  const TaskId t2 = b.task(k, {R(h)}, 0, 0);
  const TaskId t3 = b.task(k, {RW(h)}, 0, 0);
  const TaskId t4 = b.task(k, {R(h), R(read_only)}, 0, 0);
  const TaskId t5 = b.task(k, {W(h)}, 0, 0);
  const TaskGraph g = b.finish();

  auto single = [&](TaskId t) {
    REQUIRE(g.accesses(t).size() >= 1u);
    return g.accesses(t)[0];
  };
  CHECK(single(t0).version == 0u);
  CHECK(single(t0).mode == AccessMode::R);
  CHECK(single(t1).version == 1u);
  CHECK(single(t1).mode == AccessMode::W);
  CHECK(single(t2).version == 1u);
  CHECK(single(t3).version == 2u);
  CHECK(single(t3).mode == AccessMode::RW);
  CHECK(single(t4).version == 2u);
  CHECK(single(t5).version == 3u);
  CHECK(g.accesses(t4)[1].handle == read_only);
  CHECK(g.accesses(t4)[1].version == 0u);

  CHECK(g.final_version(h) == 3u);
  CHECK(g.final_version(untouched) == 0u);
  CHECK(g.final_version(read_only) == 0u);
  CHECK(g.writer(h, 1) == t1);
  CHECK(g.writer(h, 2) == t3);
  CHECK(g.writer(h, 3) == t5);
  CHECK(g.version_node(h, 0) == 0u);
}

TEST_CASE("a handle listed twice in one task is merged into one access", "[graphs][stf]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0), g2 = b.data(8, 0);
  const TaskId t0 = b.task(k, {W(h)}, 0, 0);
  const TaskId t1 = b.task(k, {R(h), W(h)}, 0, 0);          // R + W = RW: reads v1, writes v2
  const TaskId t2 = b.task(k, {R(h), R(h)}, 0, 0);          // R + R = R at v2
  const TaskId t3 = b.task(k, {W(h), R(g2), R(h)}, 0, 0);   // W + R = RW at the first position
  const TaskId t4 = b.task(k, {W(h), W(h)}, 0, 0);          // W + W = one write: v4, not v5
  const TaskGraph g = b.finish();

  REQUIRE(g.accesses(t1).size() == 1u);
  CHECK(g.accesses(t1)[0].mode == AccessMode::RW);
  CHECK(g.accesses(t1)[0].version == 2u);
  REQUIRE(g.accesses(t2).size() == 1u);
  CHECK(g.accesses(t2)[0].mode == AccessMode::R);
  CHECK(g.accesses(t2)[0].version == 2u);
  REQUIRE(g.accesses(t3).size() == 2u);
  CHECK(g.accesses(t3)[0].handle == h);
  CHECK(g.accesses(t3)[0].mode == AccessMode::RW);
  CHECK(g.accesses(t3)[0].version == 3u);
  CHECK(g.accesses(t3)[1].handle == g2);
  CHECK(g.accesses(t3)[1].mode == AccessMode::R);
  REQUIRE(g.accesses(t4).size() == 1u);
  CHECK(g.accesses(t4)[0].mode == AccessMode::W);
  CHECK(g.accesses(t4)[0].version == 4u);
  CHECK(g.final_version(h) == 4u);

  CHECK(predecessors(g, t1) == std::set<TaskId>{t0});
  CHECK(predecessors(g, t2) == std::set<TaskId>{t1});
  CHECK(predecessors(g, t3) == std::set<TaskId>{t1, t2});  // WAW t1 and WAR t2, no self edge
  CHECK(predecessors(g, t4) == std::set<TaskId>{t3});
}

TEST_CASE("transfer plan: the StarPU-MPI cache rule", "[graphs][stf][transfers]") {
  StfBuilder b(3);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0);      // initial value on node 0
  const HandleId other = b.data(8, 2);  // initial value on node 2
  const TaskId t0 = b.task(k, {R(h)}, 1, 0);    // v0 from owner 0 to 1
  const TaskId t1 = b.task(k, {R(h)}, 1, 0);    // cached on 1: hit
  const TaskId t2 = b.task(k, {R(h)}, 0, 0);    // local on the owner: nothing
  const TaskId t3 = b.task(k, {RW(h)}, 0, 0);   // local read; v1 on 0 invalidates node 1's copy
  const TaskId t4 = b.task(k, {R(h)}, 1, 0);    // v1 from 0 to 1 again
  const TaskId t5 = b.task(k, {RW(h)}, 1, 0);   // reads v1 from the cache (hit); v2 lives on node 1
  const TaskId t6 = b.task(k, {R(h)}, 0, 0);    // v2 from 1 (not the owner) to 0
  const TaskId t7 = b.task(k, {R(h)}, 2, 0);    // v2 from 1 to 2
  const TaskId t8 = b.task(k, {R(h), R(other)}, 2, 0);  // h hit; other is local on its owner 2
  const TaskId t9 = b.task(k, {R(other)}, 0, 0);        // v0 of other from owner 2 to 0
  const TaskId t10 = b.task(k, {W(h)}, 2, 0);  // W does not read: no transfer; v3 on node 2
  const TaskId t11 = b.task(k, {R(h)}, 1, 0);  // v3 from 2 to 1 (node 1 held v1 only)
  const TaskGraph g = b.finish();
  (void)t1; (void)t2; (void)t3; (void)t5; (void)t8; (void)t10;

  const std::vector<TransferTuple> expected{
      {h, 0, 0, 1, t0}, {h, 1, 0, 1, t4}, {h, 2, 1, 0, t6}, {h, 2, 1, 2, t7},
      {other, 0, 2, 0, t9}, {h, 3, 2, 1, t11}};
  CHECK(transfer_tuples(g) == expected);
  CHECK(g.transfers().size() == 6u);
  CHECK(g.transfers().cache_hits() == 3u);  // t1, t5, t8
  CHECK(g.transfers().for_consumer(t0).size() == 1u);
  CHECK(g.transfers().for_consumer(t1).empty());
  CHECK(g.transfers().for_consumer(t10).empty());
  REQUIRE(g.transfers().for_consumer(t6).size() == 1u);
  CHECK(g.transfers().for_consumer(t6)[0].source == 1u);
  CHECK(g.version_node(h, 0) == 0u);
  CHECK(g.version_node(h, 1) == 0u);
  CHECK(g.version_node(h, 2) == 1u);
  CHECK(g.version_node(h, 3) == 2u);
}

TEST_CASE("transfer plan: the cache rule on more than 64 nodes", "[graphs][stf][transfers]") {
  // The builder keeps nodes 0..63 holding a copy as bits and larger ids in a list: both sides.
  StfBuilder b(100);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 0);
  const TaskId t0 = b.task(k, {R(h)}, 63, 0);   // v0 from 0 to 63
  const TaskId t1 = b.task(k, {R(h)}, 64, 0);   // v0 from 0 to 64
  const TaskId t2 = b.task(k, {R(h)}, 99, 0);   // v0 from 0 to 99
  b.task(k, {R(h)}, 63, 0);                     // hit
  b.task(k, {R(h)}, 64, 0);                     // hit
  b.task(k, {R(h)}, 99, 0);                     // hit
  b.task(k, {RW(h)}, 70, 0);                    // reads v0 on 70: a transfer; v1 on 70 invalidates
  const TaskId t7 = b.task(k, {R(h)}, 64, 0);   // v1 from 70 to 64 again
  const TaskId t8 = b.task(k, {R(h)}, 63, 0);   // v1 from 70 to 63 again
  b.task(k, {R(h)}, 70, 0);                     // local
  b.task(k, {R(h)}, 64, 0);                     // hit
  const TaskGraph g = b.finish();
  const std::vector<TransferTuple> expected{{h, 0, 0, 63, t0}, {h, 0, 0, 64, t1}, {h, 0, 0, 99, t2},
                                            {h, 0, 0, 70, 6},  {h, 1, 70, 64, t7}, {h, 1, 70, 63, t8}};
  CHECK(transfer_tuples(g) == expected);
  CHECK(g.transfers().cache_hits() == 4u);
}

TEST_CASE("transfer plan: one consumer task can receive several handles", "[graphs][stf][transfers]") {
  StfBuilder b(2);
  const KernelId k = b.kernel("k", 1);
  const HandleId x = b.data(8, 0), y = b.data(16, 0), z = b.data(4, 1);
  const TaskId t0 = b.task(k, {R(x), R(y), RW(z)}, 1, 0);
  const TaskId t1 = b.task(k, {R(x), R(z)}, 0, 0);
  const TaskGraph g = b.finish();
  const std::vector<TransferTuple> expected{{x, 0, 0, 1, t0}, {y, 0, 0, 1, t0}, {z, 1, 1, 0, t1}};
  CHECK(transfer_tuples(g) == expected);
  CHECK(g.transfers().for_consumer(t0).size() == 2u);
  CHECK(g.transfers().for_consumer(t1).size() == 1u);
  CHECK(g.transfers().cache_hits() == 0u);
}

TEST_CASE("candidate cuts: positions, modified handles with their versions, sections",
          "[graphs][stf][cuts]") {
  StfBuilder b(1);
  const KernelId k = b.kernel("k", 1);
  const HandleId a = b.data(8, 0), bb = b.data(8, 0), c = b.data(8, 0);
  const TaskId t0 = b.task(k, {W(bb)}, 0, 0);   // written before a, listed in handle order
  const TaskId t1 = b.task(k, {W(a)}, 0, 0);
  b.checkpoint();                                // cut 1 at 2: a v1, b v1
  const TaskId t2 = b.task(k, {RW(a)}, 0, 0);
  const TaskId t3 = b.task(k, {R(bb)}, 0, 0);    // read only: b is not modified
  const TaskId t4 = b.task(k, {W(a)}, 0, 0);
  b.checkpoint();                                // cut 2 at 5: a v3 (once)
  b.checkpoint();                                // cut 3 at 5: nothing
  const TaskId t5 = b.task(k, {W(c), RW(a)}, 0, 0);  // after the last cut: in no cut
  const TaskGraph g = b.finish();

  REQUIRE(g.cut_count() == 3u);
  CHECK(g.cut_position(1) == 2u);
  CHECK(g.cut_position(2) == 5u);
  CHECK(g.cut_position(3) == 5u);
  CHECK(cut_entries(g, 1) == std::vector<EntryPair>{{a, 1}, {bb, 1}});
  CHECK(cut_entries(g, 2) == std::vector<EntryPair>{{a, 3}});
  CHECK(cut_entries(g, 3).empty());
  CHECK(g.writer(a, 3) == t4);  // the last writer before cut 2

  CHECK(g.section(t0) == 0u);
  CHECK(g.section(t1) == 0u);
  CHECK(g.section(t2) == 1u);
  CHECK(g.section(t3) == 1u);
  CHECK(g.section(t4) == 1u);
  CHECK(g.section(t5) == 3u);
  CHECK(g.final_version(a) == 4u);
  CHECK(g.final_version(c) == 1u);
}

TEST_CASE("candidate cuts: a cut before any task and a graph with no cut", "[graphs][stf][cuts]") {
  {
    StfBuilder b(1);
    const KernelId k = b.kernel("k", 1);
    const HandleId a = b.data(8, 0);
    b.checkpoint();
    b.task(k, {W(a)}, 0, 0);
    b.checkpoint();
    const TaskGraph g = b.finish();
    REQUIRE(g.cut_count() == 2u);
    CHECK(g.cut_position(1) == 0u);
    CHECK(g.cut_position(2) == 1u);
    CHECK(g.section(0) == 1u);
    CHECK(cut_entries(g, 1).empty());
    CHECK(cut_entries(g, 2) == std::vector<EntryPair>{{a, 1}});
  }
  {
    StfBuilder b(1);
    const KernelId k = b.kernel("k", 1);
    const HandleId a = b.data(8, 0);
    b.task(k, {W(a)}, 0, 0);
    const TaskGraph g = b.finish();
    CHECK(g.cut_count() == 0u);
    CHECK(g.section(0) == 0u);
  }
}

TEST_CASE("the Boost CSR dag() works with topological_sort and matches successors() and predecessors()",
          "[graphs][stf][boost]") {
  // Two chains that meet, on two nodes.
  StfBuilder b(2);
  const KernelId k = b.kernel("k", 1);
  const HandleId x = b.data(8, 0), y = b.data(8, 1), z = b.data(8, 0);
  b.task(k, {W(x)}, 0, 0);                // 0
  b.task(k, {W(y)}, 1, 0);                // 1
  b.task(k, {RW(x)}, 0, 0);               // 2: 0
  b.task(k, {R(x), RW(y)}, 1, 0);         // 3: 2, 1
  b.task(k, {R(y), W(z)}, 0, 0);          // 4: 3
  b.task(k, {RW(x), R(z)}, 0, 0);         // 5: 2 (RAW/WAW), 3 (WAR), 4 (RAW z)
  const TaskGraph g = b.finish();
  const TaskGraph::Dag& dag = g.dag();

  REQUIRE(boost::num_vertices(dag) == 6u);
  CHECK(boost::num_edges(dag) == 7u);
  CHECK(predecessors(g, 5) == std::set<TaskId>{2, 3, 4});

  std::vector<TaskId> reverse_order;
  boost::topological_sort(dag, std::back_inserter(reverse_order));
  REQUIRE(reverse_order.size() == 6u);
  std::vector<std::size_t> rank(6);
  for (std::size_t i = 0; i < reverse_order.size(); ++i) rank[reverse_order[i]] = reverse_order.size() - 1 - i;

  std::size_t out_total = 0, in_total = 0;
  for (TaskId t = 0; t < 6; ++t) {
    std::vector<TaskId> out_targets;
    for (auto [it, end] = boost::out_edges(t, dag); it != end; ++it) {
      CHECK(boost::source(*it, dag) == t);
      const TaskId target = boost::target(*it, dag);
      out_targets.push_back(target);
      CHECK(rank[t] < rank[target]);  // a topological order
      CHECK(t < target);              // submission order is one too
      // The same edge appears among the target's predecessors.
      const auto preds = g.predecessors(target);
      CHECK(std::count(preds.begin(), preds.end(), t) == 1);
    }
    std::sort(out_targets.begin(), out_targets.end());
    CHECK(out_targets == successor_list(g, t));
    out_total += boost::out_degree(t, dag);
    in_total += g.predecessor_count(t);
    CHECK(g.predecessors(t).size() == g.predecessor_count(t));
    CHECK(std::is_sorted(g.predecessors(t).begin(), g.predecessors(t).end()));
  }
  CHECK(out_total == g.edge_count());
  CHECK(in_total == g.edge_count());
  CHECK(successor_list(g, 2) == std::vector<TaskId>{3, 5});
  CHECK(successor_list(g, 3) == std::vector<TaskId>{4, 5});
}

TEST_CASE("tasks, kernels and handles keep what was declared", "[graphs][stf]") {
  StfBuilder b(2);
  const KernelId f = b.kernel("f", 10);
  const KernelId g2 = b.kernel("g", 20);
  CHECK(b.kernel("f", 10) == f);  // same name, same id
  const HandleId a = b.data(100, 1, "A", {3, 4});
  const HandleId anon = b.data(7, 0);
  const TaskId t0 = b.task(f, {W(a)}, 1, 5, {3, 4});
  const TaskId t1 = b.task(g2, {R(a), W(anon)}, 0, -2, {}, 2.5);
  const TaskGraph g = b.finish();
  CHECK(g.node_count() == 2u);
  CHECK(g.kernel_count() == 2u);
  CHECK(g.kernel_name(g.kernel(t1)) == "g");
  CHECK(g.kernel_flops(f) == 10.0);
  CHECK(g.flops(t0) == 10.0);
  CHECK(g.flops(t1) == 2.5);
  CHECK(g.node(t0) == 1u);
  CHECK(g.priority(t0) == 5);
  CHECK(g.priority(t1) == -2);
  CHECK(g.task_name(t0) == "f(3,4)");
  CHECK(g.task_name(t1) == "g#1");
  CHECK(g.handle_name(a) == "A[3][4]");
  CHECK(g.handle_name(anon) == "data#1");
  CHECK(g.handle_family(a) == "A");
  CHECK(g.bytes(a) == 100u);
  CHECK(g.owner(a) == 1u);
  CHECK(g.total_data_bytes() == 107u);
}

TEST_CASE("flops and labels read back after a late override and a label too large for 16 bits",
          "[graphs][stf]") {
  // The graph stores per-task flops only once a task overrides its kernel's, and labels on 16 bits
  // until one does not fit: the switches must keep what the earlier tasks had.
  StfBuilder b(1);
  b.reserve(8, 8, 8, 0);
  const KernelId f = b.kernel("f", 10), h = b.kernel("h", 4);
  const HandleId x = b.data(8, 0);
  const TaskId t0 = b.task(f, {RW(x)}, 0, 0, {1, 2, 3});
  const TaskId t1 = b.task(h, {RW(x)}, 0, 0, {-1, -1, -1}, 4.0);  // the kernel's own flops
  const TaskId t2 = b.task(f, {RW(x)}, 0, 0, {32767, -32768, 0}, 7.5);
  const TaskId t3 = b.task(h, {RW(x)}, 0, 0, {40000, 5, -40000});
  const TaskId t4 = b.task(f, {RW(x)}, 0, 0, {6, 7});
  const TaskGraph g = b.finish();
  CHECK(g.flops(t0) == 10.0);
  CHECK(g.flops(t1) == 4.0);
  CHECK(g.flops(t2) == 7.5);
  CHECK(g.flops(t3) == 4.0);
  CHECK(g.flops(t4) == 10.0);
  const auto same = [](Label l, std::int32_t a, std::int32_t b2, std::int32_t c) { return l.a == a && l.b == b2 && l.c == c; };
  CHECK(same(g.label(t0), 1, 2, 3));
  CHECK(same(g.label(t1), -1, -1, -1));
  CHECK(same(g.label(t2), 32767, -32768, 0));
  CHECK(same(g.label(t3), 40000, 5, -40000));
  CHECK(same(g.label(t4), 6, 7, -1));
  CHECK(g.task_name(t3) == "h(40000,5)");  // a negative index ends a name

  // Without any override or large label, the same values come from the compact storage.
  StfBuilder c(1);
  const KernelId k = c.kernel("k", 3);
  const HandleId y = c.data(8, 0);
  for (int i = 0; i < 4; ++i) c.task(k, {RW(y)}, 0, 0, {i, 32767 - i});
  const TaskGraph small = c.finish();
  for (TaskId t = 0; t < 4; ++t) {
    CHECK(small.flops(t) == 3.0);
    CHECK(same(small.label(t), static_cast<std::int32_t>(t), 32767 - static_cast<std::int32_t>(t), -1));
  }
}

TEST_CASE("builder errors are GraphError", "[graphs][stf][errors]") {
  CHECK_THROWS_AS(StfBuilder(0), GraphError);

  StfBuilder b(2);
  const KernelId k = b.kernel("k", 1);
  const HandleId h = b.data(8, 1);
  CHECK_THROWS_AS(b.data(8, 2), GraphError);                    // owner is not a node
  CHECK_THROWS_AS(b.task(k, {R(h)}, 2, 0), GraphError);         // node out of range
  CHECK_THROWS_AS(b.task(k, {R(h), W(h + 1)}, 0, 0), GraphError);  // unknown handle
  CHECK_THROWS_AS(b.task(k, {W(99)}, 0, 0), GraphError);
  CHECK_THROWS_AS(b.task(static_cast<KernelId>(k + 1), {R(h)}, 0, 0), GraphError);  // unknown kernel
  CHECK_THROWS_AS(b.kernel("k", 2), GraphError);                // same name, other flops
  CHECK_THROWS_AS(b.kernel("neg", -1), GraphError);
  CHECK_THROWS_AS(b.task(k, {R(h)}, 0, 0, {}, -3.0), GraphError);  // negative task flops
  // The rejected calls left no trace.
  CHECK(b.task_count() == 0u);
  CHECK(b.handle_count() == 1u);
  b.task(k, {RW(h)}, 0, 0);
  const TaskGraph g = b.finish();
  CHECK(g.task_count() == 1u);
  CHECK(g.final_version(h) == 1u);
  CHECK(g.transfers().size() == 1u);  // v0 from its owner 1 to node 0
}
