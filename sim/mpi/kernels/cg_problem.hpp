#pragma once
// The CG problem: the 5-point Poisson matrix (4 on the diagonal, -1 for the north, west, east and
// south mesh neighbours) of a grid x grid mesh, unknown g = row * grid + column, split as cg.cpp
// splits it: block i holds mesh rows [i grid / blocks, (i + 1) grid / blocks). The right-hand
// side b (the initial r, since x0 = 0) comes from the seed.
#include "sim/mpi/kernels/kernel_support.hpp"

namespace ftsim::kernels::detail {

struct CgProblem {
  std::uint64_t seed;
  std::uint64_t grid, blocks;

  explicit CgProblem(const config::Config& config)
      : seed(mix(config.seed, kCgSalt)), grid(config.application.cg.grid), blocks(config.application.cg.blocks) {
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
};

// A(i) as bytes, sized exactly as cg.cpp sizes it: nonzeros doubles (values), nonzeros uint32
// (global column indices), rows + 1 uint32 (row pointers). Doubles first keeps them aligned.
struct CsrView {
  std::span<const double> values;
  std::span<const std::uint32_t> columns;
  std::span<const std::uint32_t> row_pointers;
};

}  // namespace ftsim::kernels::detail
