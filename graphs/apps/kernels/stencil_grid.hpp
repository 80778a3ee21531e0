#pragma once
// The stencil's global grid: tiles_x x tiles_y tiles of tile_size_x x tile_size_y points. x runs
// along the tile index i (north i-1, south i+1), y along j (west j-1, east j+1). A block is
// row-major [x][y]; its north/south strips are rows of tile_size_y points (x = 0, x = sx - 1),
// its west/east strips columns of tile_size_x points (y = 0, y = sy - 1), as stencil.cpp sizes them.
#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

struct StencilGrid {
  std::uint64_t seed;
  std::uint64_t tiles_x, tiles_y, sx, sy;

  explicit StencilGrid(const config::Config& config)
      : seed(mix(config.seed, kStencilSalt)),
        tiles_x(config.application.stencil.tiles_x),
        tiles_y(config.application.stencil.tiles_y),
        sx(config.application.stencil.tile_size_x),
        sy(config.application.stencil.tile_size_y) {}

  std::uint64_t width_x() const { return tiles_x * sx; }
  std::uint64_t width_y() const { return tiles_y * sy; }
  // Initial value of global point (gx, gy), in [0, 1).
  double initial(std::uint64_t gx, std::uint64_t gy) const { return unit_value(mix(mix(seed, gx), gy)); }
};

enum Direction : int { kNorth = 0, kSouth = 1, kWest = 2, kEast = 3 };
inline constexpr int kOpposite[4] = {kSouth, kNorth, kEast, kWest};

}  // namespace ftsim::graphs::kernels::detail
