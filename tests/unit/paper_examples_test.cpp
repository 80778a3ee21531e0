// The small STF programs of the papers, encoded from their listings:
//   Lion & Thibault 2020, Figs. 1-4 (papers/lion-thibault-2020-async-checkpointing-task-graphs.txt)
//   Lion 2022 thesis, Figs. 1.13, 1.14, 2.2, 2.3, 2.4, 2.6 (papers/lion-2022-thesis-...txt)
// Placement: the paper gives the node of each task; the thesis uses owner computes (a task runs on
// the owner of its first written datum), with A owned by node 0, B by node 1 and C by node 1.
// Sizes are chosen distinct (A 100 B, B 20 B, C 3 B) so that each byte count names its data.
// Task numbers in the papers start at 1; TaskId = task number - 1.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <tuple>
#include <vector>

#include "analysis/volumes.hpp"
#include "graphs/buddy_mapping.hpp"
#include "graphs/checkpoint_saves.hpp"
#include "graphs/cut_selection.hpp"
#include "graphs/stf_builder.hpp"

using namespace ftsim;
using namespace ftsim::graphs;

namespace {

constexpr std::uint64_t kA = 100, kB = 20, kC = 3;

struct Program {
  TaskGraph graph;
  HandleId A = kNone, B = kNone, C = kNone;
};

using TransferTuple = std::tuple<HandleId, Version, NodeId, NodeId, TaskId>;
std::vector<TransferTuple> transfer_tuples(const TaskGraph& g) {
  std::vector<TransferTuple> result;
  for (const Transfer& x : g.transfers()) result.emplace_back(x.handle, x.version, x.source, x.destination, x.consumer);
  return result;
}

// (handle, version, writer task) saved at a cut.
using Saved = std::tuple<HandleId, Version, TaskId>;
std::vector<Saved> saved_at(const TaskGraph& g, CutId c) {
  std::vector<Saved> result;
  for (const auto& e : g.modified_before_cut(c)) result.emplace_back(e.handle, e.version, g.writer(e.handle, e.version));
  std::sort(result.begin(), result.end());
  return result;
}

std::set<TaskId> predecessors(const TaskGraph& g, TaskId t) {
  std::set<TaskId> result;
  for (TaskId p : g.predecessors(t)) result.insert(p);
  return result;
}

// Buddies 0 <-> 1 ("next" on two nodes).
BuddyMapping pair_buddies() {
  config::BuddyConfig buddy;
  buddy.kind = config::BuddyKind::next;
  config::DistributionConfig distribution;
  distribution.P = 1;
  distribution.Q = 2;
  return BuddyMapping(buddy, distribution, 2);
}

// Saves (handle, version) that no application transfer brings to the buddy at any time: the
// extra transfers the checkpoints cost (Lion 2020 Fig. 4), computed from the transfer plan.
std::vector<std::pair<HandleId, Version>> extra_transfers(const TaskGraph& g, CutId c, const BuddyMapping& buddies) {
  std::vector<std::pair<HandleId, Version>> extra;
  for (const auto& e : g.modified_before_cut(c)) {
    const NodeId from = g.version_node(e.handle, e.version);
    for (NodeId buddy : buddies.buddies(from)) {
      const bool carried = std::any_of(g.transfers().begin(), g.transfers().end(), [&](const Transfer& x) {
        return x.handle == e.handle && x.version == e.version && x.destination == buddy;
      });
      if (!carried) extra.emplace_back(e.handle, e.version);
    }
  }
  std::sort(extra.begin(), extra.end());
  return extra;
}

// Lion & Thibault 2020 Fig. 2 (tasks on explicit nodes):
//   f1 0 W A; f2 1 W B; checkpoint; f3 1 RW B R A W C; f4 1 RW B R A; f5 0 RW A R B; checkpoint;
//   f6 1 RW B R A R C; f7 0 RW A R B
Program lion2020_fig2() {
  StfBuilder b(2);
  Program p;
  p.A = b.data(kA, 0);
  p.B = b.data(kB, 1);
  p.C = b.data(kC, 1);
  const KernelId f = b.kernel("f", 1);
  b.task(f, {W(p.A)}, 0, 0);
  b.task(f, {W(p.B)}, 1, 0);
  b.checkpoint();
  b.task(f, {RW(p.B), R(p.A), W(p.C)}, 1, 0);
  b.task(f, {RW(p.B), R(p.A)}, 1, 0);
  b.task(f, {RW(p.A), R(p.B)}, 0, 0);
  b.checkpoint();
  b.task(f, {RW(p.B), R(p.A), R(p.C)}, 1, 0);
  b.task(f, {RW(p.A), R(p.B)}, 0, 0);
  p.graph = b.finish();
  return p;
}

// Thesis code 2.3a = 2.6a (owner computes): f1 A W; f2 B W; checkpoint; f3 B RW A R C W; f4 B RW;
// f5 A RW B R; checkpoint; f6 B RW A R C R; f7 A RW B R.
Program thesis_fig23() {
  StfBuilder b(2);
  Program p;
  p.A = b.data(kA, 0);
  p.B = b.data(kB, 1);
  p.C = b.data(kC, 1);
  const KernelId f = b.kernel("f", 1);
  b.task(f, {W(p.A)}, 0, 0);
  b.task(f, {W(p.B)}, 1, 0);
  b.checkpoint();
  b.task(f, {RW(p.B), R(p.A), W(p.C)}, 1, 0);
  b.task(f, {RW(p.B)}, 1, 0);
  b.task(f, {RW(p.A), R(p.B)}, 0, 0);
  b.checkpoint();
  b.task(f, {RW(p.B), R(p.A), R(p.C)}, 1, 0);
  b.task(f, {RW(p.A), R(p.B)}, 0, 0);
  p.graph = b.finish();
  return p;
}

}  // namespace

TEST_CASE("Lion 2020 Fig. 1: f3 on node 1 needs A from node 0", "[graphs][papers]") {
  StfBuilder b(2);
  const HandleId A = b.data(kA, 0), B = b.data(kB, 1), C = b.data(kC, 1);
  const KernelId f = b.kernel("f", 1);
  b.task(f, {W(A)}, 0, 0);
  b.task(f, {W(B)}, 1, 0);
  b.task(f, {RW(B), R(A), W(C)}, 1, 0);
  const TaskGraph g = b.finish();
  CHECK(predecessors(g, 2) == std::set<TaskId>{0, 1});
  CHECK(g.edge_count() == 2u);
  CHECK(transfer_tuples(g) == std::vector<TransferTuple>{{A, 1, 0, 1, 2}});
}

TEST_CASE("Lion 2020 Figs. 2-3: what each checkpoint cut saves, and which task produces it", "[graphs][papers]") {
  const Program p = lion2020_fig2();
  const TaskGraph& g = p.graph;
  REQUIRE(g.cut_count() == 2u);
  CHECK(g.cut_position(1) == 2u);
  CHECK(g.cut_position(2) == 5u);
  // Cut 1: A from task 1, B from task 2; C has no value yet and is not saved.
  CHECK(saved_at(g, 1) == std::vector<Saved>{{p.A, 1, 0}, {p.B, 1, 1}});
  // Cut 2: A from task 5, B from task 4, C from task 3 (Fig. 3: C can go as soon as task 3 ends).
  CHECK(saved_at(g, 2) == std::vector<Saved>{{p.A, 2, 4}, {p.B, 3, 3}, {p.C, 1, 2}});
  // Node 0 saves A, node 1 saves B and C.
  CHECK(g.version_node(p.A, 2) == 0u);
  CHECK(g.version_node(p.B, 3) == 1u);
  CHECK(g.version_node(p.C, 1) == 1u);
  // No transfer straddles a cut: each one belongs to its consumer's section.
  CHECK(g.section(2) == 1u);
  CHECK(g.section(5) == 2u);
}

TEST_CASE("Lion 2020 Fig. 4: with buddies 0 <-> 1 only B (task 2) and C (task 3) need extra transfers",
          "[graphs][papers][volumes]") {
  const Program p = lion2020_fig2();
  const TaskGraph& g = p.graph;
  // Application transfers (cache rule: task 4 reuses task 3's copy of A on node 1).
  CHECK(transfer_tuples(g) == std::vector<TransferTuple>{
                                  {p.A, 1, 0, 1, 2}, {p.B, 3, 1, 0, 4}, {p.A, 2, 0, 1, 5}, {p.B, 4, 1, 0, 6}});
  CHECK(g.transfers().cache_hits() == 1u);

  const BuddyMapping buddies = pair_buddies();
  using Extra = std::vector<std::pair<HandleId, Version>>;
  CHECK(extra_transfers(g, 1, buddies) == Extra{{p.B, 1}});
  CHECK(extra_transfers(g, 2, buddies) == Extra{{p.C, 1}});

  const CutSelection cuts({1, 2}, g);
  REQUIRE(cuts.checkpoint_count() == 2u);
  const analysis::CheckpointVolumes v = analysis::compute_volumes(g, cuts, buddies);
  CHECK(v.checkpoints == 2u);
  // Blind: node 0 holds A, node 1 holds B and C (C's initial value included) at both checkpoints.
  CHECK(v.blind.bytes == std::vector<double>{2 * kA, 2 * (kB + kC)});
  // Differential: A twice from node 0; B twice and C once from node 1.
  CHECK(v.differential.bytes == std::vector<double>{2 * kA, 2 * kB + kC});
  // Net extra traffic (cached_any): only B at checkpoint 1 and C at checkpoint 2.
  CHECK(v.cached_any.bytes == std::vector<double>{0, kB + kC});
  // Cache as StarPU-MPI sees it at the checkpoint's submission: A's transfers (for tasks 3 and 6)
  // are submitted after the cuts, so node 0 sends A itself; B v3 left for task 5 before cut 2.
  CHECK(v.cached.bytes == std::vector<double>{2 * kA, kB + kC});
  CHECK(v.saves == 5u);
  CHECK(v.cached_saves == 1u);
  // Node 1 keeps A (100, then A v2 arrives while v1 is kept); node 0 keeps B, then B v3 and C arrive.
  CHECK(v.peak_held.bytes == std::vector<double>{kB + kB + kC, 2 * kA});
  // Application bytes: A twice from node 0, B twice from node 1.
  CHECK(analysis::application_bytes_sent(g).bytes == std::vector<double>{2 * kA, 2 * kB});
}

TEST_CASE("thesis Fig. 1.13: A moves from node 0 to node 1 for task 3", "[graphs][papers]") {
  StfBuilder b(2);
  const HandleId A = b.data(kA, 0), B = b.data(kB, 1);
  const KernelId c11 = b.kernel("c11", 1), c12 = b.kernel("c12", 1), c13 = b.kernel("c13", 1);
  b.task(c11, {W(A)}, 0, 0);
  b.task(c12, {W(B)}, 1, 0);
  b.task(c13, {R(A), RW(B)}, 1, 0);
  const TaskGraph g = b.finish();
  CHECK(predecessors(g, 2) == std::set<TaskId>{0, 1});
  CHECK(predecessors(g, 1).empty());
  CHECK(transfer_tuples(g) == std::vector<TransferTuple>{{A, 1, 0, 1, 2}});
}

TEST_CASE("thesis Fig. 1.14: the cache spares A's re-send for task 3; A is re-sent after task 4 writes it",
          "[graphs][papers]") {
  StfBuilder b(2);
  const HandleId A = b.data(kA, 0), B = b.data(kB, 1);
  const KernelId c11 = b.kernel("c11", 1), c12 = b.kernel("c12", 1), c13 = b.kernel("c13", 1),
                 c14 = b.kernel("c14", 1), c15 = b.kernel("c15", 1);
  b.task(c11, {W(A)}, 0, 0);
  b.task(c12, {R(A), W(B)}, 1, 0);
  b.task(c13, {R(A), RW(B)}, 1, 0);
  b.task(c14, {RW(A)}, 0, 0);
  b.task(c15, {R(A), RW(B)}, 1, 0);
  const TaskGraph g = b.finish();
  CHECK(transfer_tuples(g) == std::vector<TransferTuple>{{A, 1, 0, 1, 1}, {A, 2, 0, 1, 4}});
  CHECK(g.transfers().cache_hits() == 1u);  // task 3
  CHECK(g.transfers().for_consumer(2).size() == 0u);
  // Task 4 writes A after tasks 2 and 3 read it (WAR across nodes).
  CHECK(predecessors(g, 3) == std::set<TaskId>{0, 1, 2});
  CHECK(predecessors(g, 4) == std::set<TaskId>{2, 3});
}

TEST_CASE("thesis Fig. 2.2: the checkpoint holds A from task 1 and B's initial value", "[graphs][papers][volumes]") {
  StfBuilder b(2);
  const HandleId A = b.data(kA, 0), B = b.data(kB, 1);
  const KernelId task1 = b.kernel("task1", 1), task2 = b.kernel("task2", 1);
  b.task(task1, {RW(A)}, 0, 0);
  b.checkpoint();
  b.task(task2, {RW(B), R(A)}, 1, 0);
  const TaskGraph g = b.finish();
  REQUIRE(g.cut_count() == 1u);
  CHECK(saved_at(g, 1) == std::vector<Saved>{{A, 1, 0}});  // B not written: still 0
  // The message A_2 is triggered by task 2, after the checkpoint on both nodes: no orphan, no
  // in-transit message.
  CHECK(transfer_tuples(g) == std::vector<TransferTuple>{{A, 1, 0, 1, 1}});
  CHECK(g.section(1) == 1u);

  const BuddyMapping buddies = pair_buddies();
  const analysis::CheckpointVolumes v = analysis::compute_volumes(g, CutSelection({1}, g), buddies);
  CHECK(v.blind.bytes == std::vector<double>{kA, kB});
  CHECK(v.differential.bytes == std::vector<double>{kA, 0});
  CHECK(v.cached.bytes == std::vector<double>{kA, 0});    // task 2's transfer comes after the cut
  CHECK(v.cached_any.bytes == std::vector<double>{0, 0});  // ... but node 1 receives A v1 anyway
}

TEST_CASE("thesis Fig. 2.3: incremental checkpoint, C saved after task 3, B after task 4", "[graphs][papers]") {
  const Program p = thesis_fig23();
  const TaskGraph& g = p.graph;
  REQUIRE(g.cut_count() == 2u);
  CHECK(saved_at(g, 1) == std::vector<Saved>{{p.A, 1, 0}, {p.B, 1, 1}});
  CHECK(saved_at(g, 2) == std::vector<Saved>{{p.A, 2, 4}, {p.B, 3, 3}, {p.C, 1, 2}});
  // C's save waits for task 3 only; task 4 (B's last writer) comes after task 3.
  CHECK(predecessors(g, 3) == std::set<TaskId>{2});
  // Task 5 overwrites A only after task 3 read A v1.
  CHECK(predecessors(g, 4) == std::set<TaskId>{0, 2, 3});
}

TEST_CASE("thesis Fig. 2.4 (code listing, see digest §8.3 erratum): data only read are not saved again",
          "[graphs][papers][volumes]") {
  // Code 2.4a: f2 writes B and C (the caption's "B not modified by task 2" contradicts the code).
  StfBuilder b(2);
  const HandleId A = b.data(kA, 0), B = b.data(kB, 1), C = b.data(kC, 1);
  const KernelId f = b.kernel("f", 1);
  b.task(f, {W(A)}, 0, 0);
  b.task(f, {W(B), W(C)}, 1, 0);
  b.checkpoint();
  b.task(f, {RW(B), R(A), R(C)}, 1, 0);
  b.task(f, {RW(B)}, 1, 0);
  b.task(f, {RW(A), R(B)}, 0, 0);
  b.checkpoint();
  b.task(f, {RW(B), R(A), R(C)}, 1, 0);
  b.task(f, {RW(A), R(B)}, 0, 0);
  const TaskGraph g = b.finish();

  CHECK(saved_at(g, 1) == std::vector<Saved>{{A, 1, 0}, {B, 1, 1}, {C, 1, 1}});
  CHECK(saved_at(g, 2) == std::vector<Saved>{{A, 2, 4}, {B, 3, 3}});  // C only read by task 3
  CHECK(transfer_tuples(g) == std::vector<TransferTuple>{{A, 1, 0, 1, 2}, {B, 3, 1, 0, 4}, {A, 2, 0, 1, 5},
                                                          {B, 4, 1, 0, 6}});

  const analysis::CheckpointVolumes v = analysis::compute_volumes(g, CutSelection({1, 2}, g), pair_buddies());
  CHECK(v.differential.bytes == std::vector<double>{2 * kA, kB + kC + kB});  // C once
  CHECK(v.saves == 5u);
  CHECK(v.blind.bytes == std::vector<double>{2 * kA, 2 * (kB + kC)});        // blind re-saves C
  CHECK(v.cached_any.bytes == std::vector<double>{0, kB + kC});
  // Node 0 holds B and C from checkpoint 1; only B v3 arrives for checkpoint 2 (C is not stored twice).
  CHECK(v.peak_held.bytes == std::vector<double>{kB + kC + kB, 2 * kA});
}

TEST_CASE("thesis Fig. 2.6: buddies 0 <-> 1; only B is sent for checkpoint 1, A and B ride on application "
          "transfers for checkpoint 2",
          "[graphs][papers][volumes]") {
  // Same program as Fig. 2.3. Caption: for checkpoint 1 node 0 already sends A to node 1 for task 3,
  // node 1 must send B; for checkpoint 2 A and B are already sent for the computation. C (written
  // by task 3 on node 1, never read on node 0) is not mentioned by the caption but is modified
  // before checkpoint 2, so it must still be sent, as in the paper's Fig. 4 for the same program.
  const Program p = thesis_fig23();
  const TaskGraph& g = p.graph;
  CHECK(transfer_tuples(g) == std::vector<TransferTuple>{
                                  {p.A, 1, 0, 1, 2}, {p.B, 3, 1, 0, 4}, {p.A, 2, 0, 1, 5}, {p.B, 4, 1, 0, 6}});
  CHECK(g.transfers().cache_hits() == 0u);  // unlike Lion 2020 Fig. 2, f4 does not read A

  const BuddyMapping buddies = pair_buddies();
  using Extra = std::vector<std::pair<HandleId, Version>>;
  CHECK(extra_transfers(g, 1, buddies) == Extra{{p.B, 1}});
  CHECK(extra_transfers(g, 2, buddies) == Extra{{p.C, 1}});  // A v2 goes for task 6, B v3 for task 5

  const analysis::CheckpointVolumes v = analysis::compute_volumes(g, CutSelection({1, 2}, g), buddies);
  CHECK(v.cached_any.bytes == std::vector<double>{0, kB + kC});
  CHECK(v.cached.bytes == std::vector<double>{2 * kA, kB + kC});
  CHECK(v.cached_saves == 1u);  // B v3: its transfer for task 5 is submitted before checkpoint 2
}

TEST_CASE("Lion 2020 Fig. 4 from the buddy protocol's save plan: B (task 2) and C (task 3) are sent, A and B v3 "
          "ride on application transfers",
          "[graphs][papers][buddy]") {
  const Program p = lion2020_fig2();
  const TaskGraph& g = p.graph;
  const CheckpointSaves saves(g, CutSelection({1, 2}, g), pair_buddies());
  REQUIRE(saves.checkpoints() == 2u);
  using Save = std::tuple<HandleId, Version, NodeId, NodeId, bool>;  // handle, version, from, buddy, free
  auto plan = [&](std::size_t c) {
    std::vector<Save> result;
    for (const CheckpointSave& s : saves.of(c)) result.emplace_back(s.handle, s.version, s.from, s.buddy, s.transferred);
    std::sort(result.begin(), result.end());
    return result;
  };
  // The buddy protocol sends exactly the saves that are not free: Fig. 4's two extra transfers.
  CHECK(plan(1) == std::vector<Save>{{p.A, 1, 0, 1, true}, {p.B, 1, 1, 0, false}});
  CHECK(plan(2) == std::vector<Save>{{p.A, 2, 0, 1, true}, {p.B, 3, 1, 0, true}, {p.C, 1, 1, 0, false}});
  CHECK(saves.position(1) == 2u);
  CHECK(saves.position(2) == 5u);
}
