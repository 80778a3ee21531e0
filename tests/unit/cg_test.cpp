// Conjugate gradient (graphs/apps/cg.cpp) on the 5-point Poisson matrix of a grid x grid mesh in B
// block rows. Documented structure: prologue COPY x B, DOT x B, REDUCE; per iteration SPMV x B,
// DOT x B, REDUCE (alpha), AXPY x 2B, DOT x B, REDUCE (beta), XPAY x B, then a cut.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "graphs/apps/applications.hpp"
#include "graphs/distribution.hpp"
#include "graphs/stf_builder.hpp"

using namespace ftsim;
using namespace ftsim::graphs;

namespace {

TaskGraph build_cg(std::uint32_t grid, std::uint32_t blocks, std::uint32_t iterations, std::uint32_t nodes) {
  config::CgConfig c;
  c.grid = grid;
  c.blocks = blocks;
  c.iterations = iterations;
  c.precision = config::Precision::double_precision;
  config::DistributionConfig d;
  d.type = config::DistributionType::block;  // contiguous ranges of blocks
  const Distribution distribution(d, nodes);
  StfBuilder builder(nodes);
  submit_cg(c, distribution, builder);
  return builder.finish();
}

std::set<TaskId> predecessors(const TaskGraph& g, TaskId t) {
  std::set<TaskId> result;
  for (TaskId p : g.predecessors(t)) result.insert(p);
  return result;
}

// Task positions from the documented submission structure.
struct Layout {
  std::uint32_t b;
  TaskId iteration(std::uint32_t it) const { return 2 * b + 1 + it * (6 * b + 2); }
  TaskId spmv(std::uint32_t it, std::uint32_t i) const { return iteration(it) + i; }
  TaskId dot_pq(std::uint32_t it, std::uint32_t i) const { return iteration(it) + b + i; }
  TaskId reduce_alpha(std::uint32_t it) const { return iteration(it) + 2 * b; }
  TaskId axpy_x(std::uint32_t it, std::uint32_t i) const { return iteration(it) + 2 * b + 1 + i; }
  TaskId axpy_r(std::uint32_t it, std::uint32_t i) const { return iteration(it) + 3 * b + 1 + i; }
  TaskId dot_rr(std::uint32_t it, std::uint32_t i) const { return iteration(it) + 4 * b + 1 + i; }
  TaskId reduce_beta(std::uint32_t it) const { return iteration(it) + 5 * b + 1; }
  TaskId xpay(std::uint32_t it, std::uint32_t i) const { return iteration(it) + 5 * b + 2 + i; }
  TaskId prologue_reduce() const { return 2 * b; }
};

}  // namespace

TEST_CASE("CG: tasks per kernel, handles and cuts from the documented structure", "[graphs][cg]") {
  struct Case {
    std::uint32_t grid, blocks, iterations, nodes;
  };
  for (Case c : {Case{4, 1, 1, 1}, Case{8, 4, 3, 2}, Case{10, 3, 5, 3}, Case{16, 8, 2, 4}, Case{7, 7, 4, 1}}) {
    CAPTURE(c.grid, c.blocks, c.iterations);
    const TaskGraph g = build_cg(c.grid, c.blocks, c.iterations, c.nodes);
    const std::uint64_t b = c.blocks, it = c.iterations;
    CHECK(g.task_count() == it * (6 * b + 2) + 2 * b + 1);
    CHECK(g.handle_count() == 7 * b + 3);  // A x r p q pq_part rr_part per block; alpha beta rr
    CHECK(g.cut_count() == it);
    std::map<std::string, std::uint64_t> counts;
    for (TaskId t = 0; t < g.task_count(); ++t) ++counts[g.kernel_name(g.kernel(t))];
    CHECK(counts["COPY"] == b);
    CHECK(counts["SPMV"] == it * b);
    CHECK(counts["DOT"] == (2 * it + 1) * b);
    CHECK(counts["REDUCE"] == 2 * it + 1);
    CHECK(counts["AXPY"] == 2 * it * b);
    CHECK(counts["XPAY"] == it * b);

    const Layout layout{c.blocks};
    for (std::uint32_t i = 0; i < c.iterations; ++i) {
      CHECK(g.kernel_name(g.kernel(layout.spmv(i, 0))) == "SPMV");
      CHECK(g.kernel_name(g.kernel(layout.reduce_alpha(i))) == "REDUCE");
      CHECK(g.kernel_name(g.kernel(layout.reduce_beta(i))) == "REDUCE");
      CHECK(g.kernel_name(g.kernel(layout.xpay(i, c.blocks - 1))) == "XPAY");
      CHECK(g.cut_position(i + 1) == layout.iteration(i + 1));
    }

    // The 5-point Laplacian of an n x n mesh has 5n^2 - 4n nonzeros: SPMV does 2 flops each.
    const double n = c.grid;
    double spmv_flops = 0;
    for (std::uint32_t i = 0; i < c.blocks; ++i) spmv_flops += g.flops(layout.spmv(0, i));
    CHECK(spmv_flops == Approx(2 * (5 * n * n - 4 * n)));
    // Vectors hold n^2 doubles in total, split in whole mesh rows.
    std::uint64_t x_bytes = 0;
    for (HandleId h = 0; h < g.handle_count(); ++h) {
      if (g.handle_family(h) == "x") x_bytes += g.bytes(h);
    }
    CHECK(x_bytes == std::uint64_t(c.grid) * c.grid * 8);
  }
}

TEST_CASE("CG: transfers per iteration in the steady state", "[graphs][cg][transfers]") {
  // Block distribution, B a multiple of N with >= 2 blocks per node. Per iteration:
  //   SPMV halo: p[i+-1] across each of the N-1 node boundaries, both ways  2 (N-1)
  //   partial dots to the root (node 0) for the two reductions              2 (B - B/N)
  //   alpha and beta to every other node, once each (the cache serves the second AXPY)  2 (N-1)
  // plus, in the prologue, the first rr_part reduction: B - B/N.
  struct Case {
    std::uint32_t blocks, nodes, iterations;
  };
  for (Case c : {Case{4, 2, 3}, Case{6, 3, 2}, Case{8, 4, 4}, Case{6, 1, 2}}) {
    CAPTURE(c.blocks, c.nodes);
    const TaskGraph g = build_cg(16, c.blocks, c.iterations, c.nodes);
    const std::uint64_t b = c.blocks, n = c.nodes, off_root = b - b / n;
    const std::uint64_t per_iteration = 4 * (n - 1) + 2 * off_root;
    CHECK(g.transfers().size() == off_root + c.iterations * per_iteration);

    const Layout layout{c.blocks};
    std::map<std::uint32_t, std::uint64_t> per_section;
    std::uint64_t prologue = 0;
    for (const Transfer& x : g.transfers()) {
      if (x.consumer < layout.iteration(0)) {
        ++prologue;
      } else {
        ++per_section[g.section(x.consumer)];
      }
    }
    CHECK(prologue == off_root);
    for (std::uint32_t it = 0; it < c.iterations; ++it) CHECK(per_section[it] == per_iteration);
    // Cache hits per iteration, on each of the N-1 non-root nodes holding B/N blocks: alpha is
    // read by 2 B/N AXPYs and beta by B/N XPAYs, one transfer each, the other reads hit.
    CHECK(g.transfers().cache_hits() == c.iterations * (n - 1) * (3 * (b / n) - 2));
  }
}

TEST_CASE("CG: dependencies of the alpha reduction (RAW, WAR and WAW on scalars)", "[graphs][cg]") {
  const std::uint32_t blocks = 3, iterations = 3;
  const TaskGraph g = build_cg(9, blocks, iterations, 3);
  const Layout layout{blocks};
  for (std::uint32_t it = 0; it < iterations; ++it) {
    CAPTURE(it);
    std::set<TaskId> expected;
    for (std::uint32_t i = 0; i < blocks; ++i) expected.insert(layout.dot_pq(it, i));  // RAW pq_part
    // RAW on rr: its last writer is the previous beta reduction (or the prologue's).
    expected.insert(it == 0 ? layout.prologue_reduce() : layout.reduce_beta(it - 1));
    if (it > 0) {
      expected.insert(layout.reduce_alpha(it - 1));  // WAW on alpha
      for (std::uint32_t i = 0; i < blocks; ++i) {   // WAR: the AXPYs read the previous alpha
        expected.insert(layout.axpy_x(it - 1, i));
        expected.insert(layout.axpy_r(it - 1, i));
      }
    }
    CHECK(predecessors(g, layout.reduce_alpha(it)) == expected);

    // SPMV(i) reads p of its neighbour blocks at the version the previous XPAY wrote.
    for (std::uint32_t i = 0; i < blocks; ++i) {
      for (const Access& a : g.accesses(layout.spmv(it, i))) {
        if (g.handle_family(a.handle) != "p") continue;
        CHECK(a.mode == AccessMode::R);
        const std::uint32_t block = std::uint32_t(g.handle_label(a.handle).a);
        CHECK((block + 1 >= i && block <= i + 1));
        const TaskId writer = g.writer(a.handle, a.version);
        CHECK(writer == (it == 0 ? block : layout.xpay(it - 1, block)));  // COPY(block) in the prologue
      }
    }
  }
}

// /application/matrix {"type": "box", "radius": R}: the (2R+1)^2-point box matrix of the same mesh,
// stored as CSR handles like the 5-point one: a point's box truncated at the mesh's borders.
TEST_CASE("cg: the box matrix stores (2R+1)^2 nonzeros per interior point", "[graph][cg]") {
  config::CgConfig c;
  c.grid = 12;
  c.blocks = 3;
  c.iterations = 1;
  c.box_radius = 2;
  config::DistributionConfig d;
  d.type = config::DistributionType::block;
  const Distribution distribution(d, 3);
  StfBuilder builder(3);
  submit_cg(c, distribution, builder);
  const TaskGraph g = builder.finish();
  // Per mesh row r of a 12-wide mesh: (rows of the box in the mesh) x (sum over columns of the
  // columns of the box in the mesh) = span(r) x (3 + 4 + 5 x 8 + 4 + 3) = span(r) x 54.
  auto span = [](int r) { return std::min(r + 2, 11) - std::max(r - 2, 0) + 1; };
  std::uint64_t total = 0;
  for (HandleId h = 0; h < g.handle_count(); ++h) {
    if (g.handle_family(h) != "A") continue;
    const int i = g.handle_label(h).a;
    std::uint64_t nonzeros = 0;
    for (int r = 4 * i; r < 4 * i + 4; ++r) nonzeros += std::uint64_t(span(r)) * 54;
    CHECK(g.bytes(h) == nonzeros * 12 + (4 * 12 + 1) * 4);
    total += nonzeros;
  }
  std::uint64_t expected = 0;
  for (int r = 0; r < 12; ++r) expected += std::uint64_t(span(r)) * 54;
  CHECK(total == expected);
  // The estimate bounds it (25 nonzeros per unknown).
  const GraphEstimate e = estimate_cg(c, 3);
  CHECK(e.data_bytes >= double(total * 12));
}
