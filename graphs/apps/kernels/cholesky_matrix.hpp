#pragma once
// The generated SPD matrix that the Cholesky kernels factor and its check rebuilds: symmetric
// entries from a hash of (seed, global row, global column) in [0, 1), plus N on the diagonal
// (strictly diagonally dominant, hence SPD). Tiles are column-major b x b.
#include <algorithm>
#include <span>

#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

struct CholeskyMatrix {
  std::uint64_t seed;
  std::uint64_t tiles, b, n;

  explicit CholeskyMatrix(const config::Config& config)
      : seed(mix(config.seed, kCholeskySalt)),
        tiles(config.application.cholesky.tiles),
        b(config.application.cholesky.tile_size),
        n(tiles * b) {}

  double entry(std::uint64_t i, std::uint64_t j) const {
    const double value = unit_value(mix(mix(seed, std::min(i, j)), std::max(i, j)));
    return i == j ? value + double(n) : value;
  }
  // Tile (m, n) of the whole symmetric matrix, column-major.
  void tile(std::int64_t m, std::int64_t n_tile, std::span<double> out) const {
    if (m < 0 || n_tile < 0 || std::uint64_t(m) >= tiles || out.size() != b * b) {
      throw KernelError("cholesky: not a tile of the matrix");
    }
    for (std::uint64_t c = 0; c < b; ++c) {
      for (std::uint64_t r = 0; r < b; ++r) out[c * b + r] = entry(std::uint64_t(m) * b + r, std::uint64_t(n_tile) * b + c);
    }
  }
};

}  // namespace ftsim::graphs::kernels::detail
