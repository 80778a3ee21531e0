// Tiled Cholesky in both submission orders (Lion & Thibault 2020 Algorithms 1 and 2; Lion 2022
// thesis §2.3, digest notes/lion-2022-thesis.md §4): task counts per kernel against closed forms,
// per-iteration counts, the cuts' modified tiles, equality of the two graphs up to renumbering,
// transfers of a 2D block-cyclic distribution against an independent count, and priorities.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "graphs/apps/applications.hpp"
#include "graphs/distribution.hpp"
#include "graphs/stf_builder.hpp"

using namespace ftsim;
using namespace ftsim::graphs;

namespace {

config::DistributionConfig block_cyclic(std::uint32_t p, std::uint32_t q) {
  config::DistributionConfig d;
  d.type = config::DistributionType::block_cyclic;
  d.P = p;
  d.Q = q;
  return d;
}

TaskGraph build_cholesky(std::uint32_t nt, config::CholeskyOrder order, std::uint32_t p = 1,
                         std::uint32_t q = 1, bool priorities = true) {
  config::CholeskyConfig c;
  c.tiles = nt;
  c.tile_size = 4;
  c.precision = config::Precision::double_precision;
  c.order = order;
  c.priorities = priorities;
  const Distribution distribution(block_cyclic(p, q), p * q);
  StfBuilder builder(p * q);
  submit_cholesky(c, distribution, builder);
  return builder.finish();
}

// Owner of tile (m, n) in the classic 2D block-cyclic layout, written out independently.
NodeId cyclic_owner(std::uint32_t m, std::uint32_t n, std::uint32_t p, std::uint32_t q) {
  return (m % p) * q + n % q;
}

std::map<std::string, std::uint64_t> kernel_counts(const TaskGraph& g, TaskId first, TaskId last) {
  std::map<std::string, std::uint64_t> counts{{"POTRF", 0}, {"TRSM", 0}, {"SYRK", 0}, {"GEMM", 0}};
  for (TaskId t = first; t < last; ++t) ++counts[g.kernel_name(g.kernel(t))];
  return counts;
}

// A task's identity independent of the submission order: kernel and tile indices.
using TaskKey = std::tuple<std::string, std::int32_t, std::int32_t, std::int32_t>;
TaskKey key(const TaskGraph& g, TaskId t) {
  const Label l = g.label(t);
  return {g.kernel_name(g.kernel(t)), l.a, l.b, l.c};
}

const std::vector<std::uint32_t> kSizes{1, 2, 3, 5, 8, 13};

}  // namespace

TEST_CASE("Cholesky: tasks per kernel match the closed forms in both orders", "[graphs][cholesky]") {
  for (auto order : {config::CholeskyOrder::column, config::CholeskyOrder::triangle}) {
    for (std::uint64_t nt : kSizes) {
      CAPTURE(nt, config::to_string(order));
      const TaskGraph g = build_cholesky(static_cast<std::uint32_t>(nt), order);
      const auto counts = kernel_counts(g, 0, static_cast<TaskId>(g.task_count()));
      CHECK(counts.at("POTRF") == nt);
      CHECK(counts.at("TRSM") == nt * (nt - 1) / 2);
      CHECK(counts.at("SYRK") == nt * (nt - 1) / 2);
      CHECK(counts.at("GEMM") == nt * (nt - 1) * (nt - 2) / 6);
      CHECK(g.task_count() == nt + nt * (nt - 1) + nt * (nt - 1) * (nt - 2) / 6);
      CHECK(g.handle_count() == nt * (nt + 1) / 2);            // the lower triangle
      CHECK(g.total_data_bytes() == nt * (nt + 1) / 2 * 4 * 4 * 8);  // 4x4 doubles per tile
      CHECK(g.cut_count() == nt);                              // one cut per outer iteration
      // Every tile A[m][n] is written min(m, n) + 1 = n + 1 times (n updates and its factor).
      for (HandleId h = 0; h < g.handle_count(); ++h) {
        CHECK(g.final_version(h) == std::uint32_t(g.handle_label(h).b + 1));
      }
      // The kernels' flops add up to the dense Cholesky's N^3 / 3 with N = NT b.
      double flops = 0;
      for (TaskId t = 0; t < g.task_count(); ++t) flops += g.flops(t);
      const double n = double(nt) * 4;
      CHECK(flops == Approx(n * n * n / 3));
    }
  }
}

TEST_CASE("Cholesky Algorithm 2 (column order): tasks per iteration as in thesis §2.3 (digest §4)",
          "[graphs][cholesky]") {
  for (std::uint32_t nt : kSizes) {
    CAPTURE(nt);
    const TaskGraph g = build_cholesky(nt, config::CholeskyOrder::column);
    REQUIRE(g.cut_count() == nt);
    CHECK(g.cut_position(nt) == g.task_count());
    for (std::uint64_t i = 1; i <= nt; ++i) {  // iteration i = n + 1
      CAPTURE(i);
      const TaskId first = i == 1 ? 0 : g.cut_position(static_cast<CutId>(i - 1));
      const TaskId last = g.cut_position(static_cast<CutId>(i));
      const auto counts = kernel_counts(g, first, last);
      CHECK(counts.at("POTRF") == 1u);
      CHECK(counts.at("TRSM") == nt - i);
      CHECK(counts.at("SYRK") == i - 1);
      CHECK(counts.at("TRSM") + counts.at("SYRK") == nt - 1u);  // constant
      CHECK(counts.at("GEMM") == (nt - i) * (i - 1));

      // The iteration finishes column n: tiles A[m][n], m >= n, each at its final version n + 1.
      const auto n = static_cast<std::int32_t>(i - 1);
      std::set<std::pair<std::int32_t, std::int32_t>> tiles;
      for (const auto& entry : g.modified_before_cut(static_cast<CutId>(i))) {
        const Label l = g.handle_label(entry.handle);
        tiles.insert({l.a, l.b});
        CHECK(entry.version == std::uint32_t(n + 1));
        CHECK(entry.version == g.final_version(entry.handle));
      }
      std::set<std::pair<std::int32_t, std::int32_t>> expected;
      for (std::int32_t m = n; m < std::int32_t(nt); ++m) expected.insert({m, n});
      CHECK(tiles == expected);
    }
  }
}

TEST_CASE("Cholesky Algorithm 1 (triangle order): tasks per iteration, corrected GEMM count",
          "[graphs][cholesky]") {
  // Digest §8.3: the thesis prints NT(NT-1) - i(i+2NT-1) GEMMs; the right count is (NT-i)(NT-i-1)/2.
  for (std::uint32_t nt : kSizes) {
    CAPTURE(nt);
    const TaskGraph g = build_cholesky(nt, config::CholeskyOrder::triangle);
    REQUIRE(g.cut_count() == nt);
    for (std::uint64_t i = 1; i <= nt; ++i) {  // iteration i = k + 1
      CAPTURE(i);
      const TaskId first = i == 1 ? 0 : g.cut_position(static_cast<CutId>(i - 1));
      const TaskId last = g.cut_position(static_cast<CutId>(i));
      const auto counts = kernel_counts(g, first, last);
      CHECK(counts.at("POTRF") == 1u);
      CHECK(counts.at("TRSM") == nt - i);
      CHECK(counts.at("SYRK") == nt - i);
      CHECK(counts.at("GEMM") == (nt - i) * (nt - i - 1) / 2);

      // Step k touches the whole trailing triangle m >= n >= k, each tile at version k + 1.
      const auto k = static_cast<std::int32_t>(i - 1);
      std::set<std::pair<std::int32_t, std::int32_t>> tiles;
      for (const auto& entry : g.modified_before_cut(static_cast<CutId>(i))) {
        const Label l = g.handle_label(entry.handle);
        tiles.insert({l.a, l.b});
        CHECK(entry.version == std::uint32_t(k + 1));
      }
      CHECK(tiles.size() == (nt - i + 1) * (nt - i + 2) / 2);
      for (const auto& [m, n] : tiles) {
        CHECK(n >= k);
        CHECK(m >= n);
      }
    }
  }
}

TEST_CASE("Cholesky: both orders give the same graph up to task renumbering", "[graphs][cholesky]") {
  for (std::uint32_t nt : {2u, 3u, 5u, 8u}) {
    CAPTURE(nt);
    const TaskGraph column = build_cholesky(nt, config::CholeskyOrder::column, 2, 2);
    const TaskGraph triangle = build_cholesky(nt, config::CholeskyOrder::triangle, 2, 2);
    REQUIRE(column.task_count() == triangle.task_count());
    CHECK(column.edge_count() == triangle.edge_count());

    auto describe = [](const TaskGraph& g) {
      std::map<TaskKey, std::tuple<NodeId, std::int32_t, double, std::vector<std::tuple<HandleId, Version, int>>>> tasks;
      std::set<std::pair<TaskKey, TaskKey>> edges;
      for (TaskId t = 0; t < g.task_count(); ++t) {
        std::vector<std::tuple<HandleId, Version, int>> accesses;
        for (const Access& a : g.accesses(t)) accesses.emplace_back(a.handle, a.version, int(a.mode));
        auto [it, fresh] = tasks.emplace(key(g, t), std::make_tuple(g.node(t), g.priority(t), g.flops(t), accesses));
        CHECK(fresh);  // labels identify tasks
        for (TaskId s : g.successors(t)) edges.insert({key(g, t), key(g, s)});
      }
      return std::make_pair(tasks, edges);
    };
    const auto [column_tasks, column_edges] = describe(column);
    const auto [triangle_tasks, triangle_edges] = describe(triangle);
    CHECK(column_tasks == triangle_tasks);  // same node, priority, flops, handles and versions
    CHECK(column_edges == triangle_edges);
    CHECK(column_edges.size() == column.edge_count());

    // The same versions move between the same nodes; only the first consumer's id differs.
    auto moves = [](const TaskGraph& g) {
      std::set<std::tuple<HandleId, Version, NodeId, NodeId>> result;
      for (const Transfer& x : g.transfers()) result.insert({x.handle, x.version, x.source, x.destination});
      return result;
    };
    CHECK(moves(column) == moves(triangle));
    CHECK(column.transfers().size() == triangle.transfers().size());
  }
}

TEST_CASE("Cholesky: transfers of a 2D block-cyclic distribution, counted independently",
          "[graphs][cholesky][transfers]") {
  // Only final tiles leave their node: A[k][k] after POTRF is read by TRSM(m,k) on owner(m,k);
  // A[m][k] (m > k) after TRSM by SYRK(m,k) on owner(m,m), GEMM(m,n,k) on owner(m,n) for
  // k < n < m and GEMM(i,m,k) on owner(i,m) for i > m. Intermediate versions are read only by
  // the next update on the tile's own node. Each reading node other than the owner gets one copy.
  struct Grid {
    std::uint32_t p, q;
  };
  for (Grid grid : {Grid{1, 1}, Grid{2, 2}, Grid{2, 3}, Grid{3, 2}}) {
    for (std::uint32_t nt : kSizes) {
      for (auto order : {config::CholeskyOrder::column, config::CholeskyOrder::triangle}) {
        CAPTURE(grid.p, grid.q, nt, config::to_string(order));
        const TaskGraph g = build_cholesky(nt, order, grid.p, grid.q);
        auto owner = [&](std::uint32_t m, std::uint32_t n) { return cyclic_owner(m, n, grid.p, grid.q); };

        std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<NodeId>> receivers;
        std::uint64_t expected = 0;
        for (std::uint32_t k = 0; k < nt; ++k) {
          for (std::uint32_t m = k; m < nt; ++m) {
            std::set<NodeId> readers;
            if (m == k) {
              for (std::uint32_t i = k + 1; i < nt; ++i) readers.insert(owner(i, k));
            } else {
              readers.insert(owner(m, m));
              for (std::uint32_t n = k + 1; n < m; ++n) readers.insert(owner(m, n));
              for (std::uint32_t i = m + 1; i < nt; ++i) readers.insert(owner(i, m));
            }
            readers.erase(owner(m, k));
            expected += readers.size();
            receivers[{m, k}] = readers;
          }
        }
        CHECK(g.transfers().size() == expected);

        std::map<std::pair<std::uint32_t, std::uint32_t>, std::set<NodeId>> actual;
        for (const Transfer& x : g.transfers()) {
          const Label l = g.handle_label(x.handle);
          const auto m = std::uint32_t(l.a), n = std::uint32_t(l.b);
          CHECK(x.version == n + 1);               // the final version
          CHECK(x.source == owner(m, n));          // owner computes
          CHECK(g.node(x.consumer) == x.destination);
          actual[{m, n}].insert(x.destination);
        }
        for (auto& [tile, nodes] : receivers) {
          if (nodes.empty()) continue;
          CHECK(actual[tile] == nodes);
        }
        if (grid.p * grid.q == 1) CHECK(g.transfers().size() == 0u);
      }
    }
  }
}

TEST_CASE("Cholesky: tasks run on the owner of the tile they write", "[graphs][cholesky]") {
  const TaskGraph g = build_cholesky(6, config::CholeskyOrder::column, 2, 3);
  for (TaskId t = 0; t < g.task_count(); ++t) {
    for (const Access& a : g.accesses(t)) {
      if (!writes(a.mode)) continue;
      const Label l = g.handle_label(a.handle);
      CHECK(g.node(t) == cyclic_owner(std::uint32_t(l.a), std::uint32_t(l.b), 2, 3));
      CHECK(g.owner(a.handle) == g.node(t));
    }
  }
}

TEST_CASE("Cholesky priorities: POTRF before the TRSMs of its step", "[graphs][cholesky]") {
  for (auto order : {config::CholeskyOrder::column, config::CholeskyOrder::triangle}) {
    const TaskGraph g = build_cholesky(8, order);
    std::map<std::int32_t, std::int32_t> potrf;             // step -> priority
    std::multimap<std::int32_t, std::int32_t> trsm;         // step -> priorities
    for (TaskId t = 0; t < g.task_count(); ++t) {
      const std::string& name = g.kernel_name(g.kernel(t));
      if (name == "POTRF") potrf[g.label(t).a] = g.priority(t);
      if (name == "TRSM") trsm.insert({g.label(t).b, g.priority(t)});
    }
    REQUIRE(potrf.size() == 8u);
    REQUIRE(trsm.size() == 28u);
    for (const auto& [step, priority] : trsm) CHECK(potrf.at(step) > priority);
    // The critical path goes first: an earlier POTRF has a higher priority.
    for (std::int32_t k = 1; k < 8; ++k) CHECK(potrf.at(k - 1) > potrf.at(k));
  }
  const TaskGraph flat = build_cholesky(5, config::CholeskyOrder::column, 1, 1, false);
  for (TaskId t = 0; t < flat.task_count(); ++t) CHECK(flat.priority(t) == 0);
}
