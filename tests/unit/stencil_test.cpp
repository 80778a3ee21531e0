// 2D Jacobi stencil (graphs/apps/stencil.cpp): per iteration a JACOBI task per tile reading the
// neighbours' halo strips, then a HALO task per tile writing its strips. Counts from the documented
// structure, one transfer per cross-node face direction per iteration, and Jacobi semantics.
#include <catch2/catch.hpp>

#include <array>
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

struct Setup {
  std::uint32_t nx, ny, iterations, p, q;
};

config::StencilConfig stencil_config(const Setup& s) {
  config::StencilConfig c;
  c.tiles_x = s.nx;
  c.tiles_y = s.ny;
  c.tile_size_x = 6;
  c.tile_size_y = 10;
  c.iterations = s.iterations;
  c.precision = config::Precision::double_precision;
  return c;
}

TaskGraph build_stencil(const Setup& s) {
  config::DistributionConfig d;
  d.type = config::DistributionType::block_cyclic;
  d.P = s.p;
  d.Q = s.q;
  const Distribution distribution(d, s.p * s.q);
  StfBuilder builder(s.p * s.q);
  submit_stencil(stencil_config(s), distribution, builder);
  return builder.finish();
}

// Classic 2D block-cyclic owner of tile (i, j), written out independently.
NodeId owner(const Setup& s, std::uint32_t i, std::uint32_t j) { return (i % s.p) * s.q + j % s.q; }

// (kernel, i, j, iteration) -> task
using Key = std::tuple<std::string, std::int32_t, std::int32_t, std::int32_t>;
std::map<Key, TaskId> index_tasks(const TaskGraph& g) {
  std::map<Key, TaskId> tasks;
  for (TaskId t = 0; t < g.task_count(); ++t) {
    const Label l = g.label(t);
    tasks[{g.kernel_name(g.kernel(t)), l.a, l.b, l.c}] = t;
  }
  return tasks;
}

std::set<TaskId> predecessors(const TaskGraph& g, TaskId t) {
  std::set<TaskId> result;
  for (TaskId p : g.predecessors(t)) result.insert(p);
  return result;
}

constexpr std::array<int, 4> kDi{-1, 1, 0, 0};
constexpr std::array<int, 4> kDj{0, 0, -1, 1};

}  // namespace

TEST_CASE("stencil: task, handle and byte counts from the tile grid", "[graphs][stencil]") {
  for (Setup s : {Setup{1, 1, 3, 1, 1}, Setup{1, 4, 2, 1, 2}, Setup{3, 3, 1, 1, 1}, Setup{4, 5, 3, 2, 2},
                  Setup{6, 2, 4, 2, 1}}) {
    CAPTURE(s.nx, s.ny, s.iterations);
    const TaskGraph g = build_stencil(s);
    const std::uint64_t tiles = std::uint64_t(s.nx) * s.ny;
    // Strips: one per tile and neighbour: 2 (nx-1) ny vertical faces, 2 nx (ny-1) horizontal.
    const std::uint64_t ns_strips = 2ull * (s.nx - 1) * s.ny, we_strips = 2ull * s.nx * (s.ny - 1);
    const std::uint64_t expected_tasks = tiles == 1 ? s.iterations : 2 * tiles * s.iterations;
    CHECK(g.task_count() == expected_tasks);
    CHECK(g.handle_count() == tiles + ns_strips + we_strips);
    // A block is 6 x 10 doubles; a north/south strip is a row of 10, a west/east one a column of 6.
    CHECK(g.total_data_bytes() == (tiles * 60 + ns_strips * 10 + we_strips * 6) * 8);
    CHECK(g.cut_count() == s.iterations);
    std::uint64_t jacobi = 0, halo = 0;
    for (TaskId t = 0; t < g.task_count(); ++t) {
      (g.kernel_name(g.kernel(t)) == "JACOBI" ? jacobi : halo) += 1;
    }
    CHECK(jacobi == tiles * s.iterations);
    CHECK(halo == (tiles == 1 ? 0 : tiles * s.iterations));
    // Each iteration ends with a cut.
    for (std::uint32_t c = 1; c <= s.iterations; ++c) CHECK(g.cut_position(c) == c * expected_tasks / s.iterations);
  }
}

TEST_CASE("stencil: a single tile is a chain of JACOBI tasks with no transfer", "[graphs][stencil]") {
  const TaskGraph g = build_stencil({1, 1, 4, 1, 1});
  REQUIRE(g.task_count() == 4u);
  CHECK(g.edge_count() == 3u);
  for (TaskId t = 1; t < 4; ++t) CHECK(predecessors(g, t) == std::set<TaskId>{t - 1});
  CHECK(g.final_version(0) == 4u);
  CHECK(g.transfers().size() == 0u);
}

TEST_CASE("stencil: one transfer per cross-node face direction and iteration", "[graphs][stencil][transfers]") {
  for (Setup s : {Setup{4, 4, 3, 2, 2}, Setup{4, 6, 2, 1, 3}, Setup{5, 3, 3, 2, 1}, Setup{3, 3, 2, 1, 1}}) {
    CAPTURE(s.nx, s.ny, s.p, s.q);
    const TaskGraph g = build_stencil(s);
    // Ordered pairs (tile, neighbour) on different nodes: the neighbour reads the tile's strip.
    std::uint64_t cross = 0;
    for (std::uint32_t i = 0; i < s.nx; ++i) {
      for (std::uint32_t j = 0; j < s.ny; ++j) {
        for (int d = 0; d < 4; ++d) {
          const std::int64_t ni = std::int64_t(i) + kDi[d], nj = std::int64_t(j) + kDj[d];
          if (ni < 0 || nj < 0 || ni >= s.nx || nj >= s.ny) continue;
          if (owner(s, i, j) != owner(s, std::uint32_t(ni), std::uint32_t(nj))) ++cross;
        }
      }
    }
    if (s.p * s.q == 1) CHECK(cross == 0u);
    CHECK(g.transfers().size() == cross * s.iterations);
    std::map<std::uint32_t, std::uint64_t> per_iteration;
    for (const Transfer& x : g.transfers()) {
      ++per_iteration[g.section(x.consumer)];
      CHECK(g.kernel_name(g.kernel(x.consumer)) == "JACOBI");   // only strips move
      CHECK(g.handle_family(x.handle) == "halo");
      CHECK(x.version == g.section(x.consumer));                 // iteration t reads version t
    }
    for (std::uint32_t t = 0; t < s.iterations; ++t) CHECK(per_iteration[t] == cross);
    CHECK(g.transfers().cache_hits() == 0u);  // each strip has a single reader
  }
}

TEST_CASE("stencil: JACOBI of iteration t reads the halos written in iteration t-1 (Jacobi, not Gauss-Seidel)",
          "[graphs][stencil]") {
  const Setup s{3, 4, 3, 2, 2};
  const TaskGraph g = build_stencil(s);
  const auto tasks = index_tasks(g);
  REQUIRE(tasks.size() == g.task_count());
  for (std::int32_t t = 0; t < std::int32_t(s.iterations); ++t) {
    for (std::int32_t i = 0; i < std::int32_t(s.nx); ++i) {
      for (std::int32_t j = 0; j < std::int32_t(s.ny); ++j) {
        CAPTURE(t, i, j);
        const TaskId jacobi = tasks.at({"JACOBI", i, j, t});
        const TaskId halo = tasks.at({"HALO", i, j, t});
        std::set<TaskId> neighbour_halos_before, neighbour_jacobis;
        std::size_t neighbours = 0;
        for (int d = 0; d < 4; ++d) {
          const std::int32_t ni = i + kDi[d], nj = j + kDj[d];
          if (ni < 0 || nj < 0 || ni >= std::int32_t(s.nx) || nj >= std::int32_t(s.ny)) continue;
          ++neighbours;
          neighbour_jacobis.insert(tasks.at({"JACOBI", ni, nj, t}));
          if (t > 0) neighbour_halos_before.insert(tasks.at({"HALO", ni, nj, t - 1}));
        }
        // JACOBI: its block (v t -> t+1) and one strip of each neighbour at version t.
        const auto accesses = g.accesses(jacobi);
        REQUIRE(accesses.size() == 1 + neighbours);
        CHECK(accesses[0].mode == AccessMode::RW);
        CHECK(accesses[0].version == std::uint32_t(t + 1));
        for (std::size_t a = 1; a < accesses.size(); ++a) {
          CHECK(accesses[a].mode == AccessMode::R);
          CHECK(accesses[a].version == std::uint32_t(t));
          CHECK(g.handle_family(accesses[a].handle) == "halo");
          if (t > 0) {
            const TaskId writer = g.writer(accesses[a].handle, std::uint32_t(t));
            CHECK(g.kernel_name(g.kernel(writer)) == "HALO");
            CHECK(g.label(writer).c == t - 1);
            CHECK(neighbour_halos_before.count(writer) == 1u);
          }
        }
        // Predecessors of JACOBI(t): its own JACOBI(t-1) (WAW) and HALO(t-1) (WAR on the block),
        // and the neighbours' HALO(t-1) (RAW on the strips).
        std::set<TaskId> expected_jacobi = neighbour_halos_before;
        if (t > 0) {
          expected_jacobi.insert(tasks.at({"JACOBI", i, j, t - 1}));
          expected_jacobi.insert(tasks.at({"HALO", i, j, t - 1}));
        }
        CHECK(predecessors(g, jacobi) == expected_jacobi);
        // Predecessors of HALO(t): its JACOBI(t) (RAW on the block), the neighbours' JACOBI(t)
        // that read its previous strips (WAR) and its own HALO(t-1) (WAW on the strips).
        std::set<TaskId> expected_halo = neighbour_jacobis;
        expected_halo.insert(jacobi);
        if (t > 0) expected_halo.insert(tasks.at({"HALO", i, j, t - 1}));
        CHECK(predecessors(g, halo) == expected_halo);
        // Strips written by HALO(t) are at version t + 1.
        for (const Access& a : g.accesses(halo)) {
          if (writes(a.mode)) CHECK(a.version == std::uint32_t(t + 1));
        }
      }
    }
  }
}

TEST_CASE("stencil: each cut saves every block and every strip of its iteration", "[graphs][stencil][cuts]") {
  const Setup s{3, 3, 3, 1, 1};
  const TaskGraph g = build_stencil(s);
  for (CutId c = 1; c <= s.iterations; ++c) {
    const auto entries = g.modified_before_cut(c);
    CHECK(entries.size() == g.handle_count());  // all blocks and strips are rewritten each iteration
    for (const auto& e : entries) CHECK(e.version == c);
  }
}
