#pragma once
// The CG problem: the 5-point Poisson matrix (4 on the diagonal, -1 for the north, west, east and
// south mesh neighbours), or the (2R+1)^2-point box matrix (/application/matrix), of a grid x grid mesh, unknown g = row * grid + column, split as cg.cpp
// splits it: block i holds mesh rows [i grid / blocks, (i + 1) grid / blocks). The right-hand
// side b (the initial r, since x0 = 0) comes from the seed.
#include <algorithm>

#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

struct CgProblem {
  std::uint64_t seed;
  std::uint64_t grid, blocks;
  std::uint64_t radius;  // 0: the 5-point Poisson matrix; R: the (2R+1)^2-point box matrix

  explicit CgProblem(const config::Config& config)
      : seed(mix(config.seed, kCgSalt)),
        grid(config.application.cg.grid),
        blocks(config.application.cg.blocks),
        radius(config.application.cg.box_radius) {
    // cg.cpp couples block i only to blocks i - 1 and i + 1: every block needs a mesh row.
    if (blocks == 0 || blocks > grid) {
      throw KernelError("/application/blocks: expected at most as many blocks as grid rows (" +
                        std::to_string(grid) + "), got " + std::to_string(blocks));
    }
  }

  std::uint64_t unknowns() const { return grid * grid; }
  // First unknown of block i (i == blocks gives the end).
  std::uint64_t start(std::uint64_t i) const { return (i * grid / blocks) * grid; }
  std::uint64_t rows(std::uint64_t i) const { return start(i + 1) - start(i); }
  double rhs(std::uint64_t g) const { return unit_value(mix(seed, g)); }

  // Row g of the matrix, in increasing column order: visit(column, value). The 5-point Laplacian
  // (4 on the diagonal, -1 north, west, east, south) or the box matrix ((2R+1)^2 on the diagonal,
  // -1 for every mesh point within R rows and R columns): symmetric, strictly diagonally
  // dominant, positive diagonal, so SPD.
  template <class Visit> void row(std::uint64_t g, Visit&& visit) const {
    const std::uint64_t n = grid, r = g / n, c = g % n;
    if (radius == 0) {
      if (r > 0) visit(g - n, -1.0);
      if (c > 0) visit(g - 1, -1.0);
      visit(g, 4.0);
      if (c + 1 < n) visit(g + 1, -1.0);
      if (r + 1 < n) visit(g + n, -1.0);
      return;
    }
    const double diagonal = double((2 * radius + 1) * (2 * radius + 1));
    const std::uint64_t r0 = r >= radius ? r - radius : 0, r1 = std::min(r + radius, n - 1);
    const std::uint64_t c0 = c >= radius ? c - radius : 0, c1 = std::min(c + radius, n - 1);
    for (std::uint64_t i = r0; i <= r1; ++i) {
      for (std::uint64_t j = c0; j <= c1; ++j) {
        const std::uint64_t column = i * n + j;
        visit(column, column == g ? diagonal : -1.0);
      }
    }
  }
};

// A(i) as bytes, sized exactly as cg.cpp sizes it: nonzeros doubles (values), nonzeros uint32
// (global column indices), rows + 1 uint32 (row pointers). Doubles first keeps them aligned.
struct CsrView {
  std::span<const double> values;
  std::span<const std::uint32_t> columns;
  std::span<const std::uint32_t> row_pointers;
};

}  // namespace ftsim::graphs::kernels::detail
