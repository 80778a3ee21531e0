// 2D Jacobi stencil on a tile grid. Each tile keeps its block and, per neighbour, the strip of
// its border that the neighbour reads (a "halo" handle), so transfers carry only borders.
// Iteration t: JACOBI(i,j) updates block (i,j) from its old value and the neighbours' strips of
// iteration t-1; then HALO(i,j) extracts the new strips. The WAR edges from the neighbours'
// JACOBI to HALO are what makes it Jacobi (every tile sees the strips of the same iteration).
#include <array>
#include <vector>

#include "graphs/apps/applications.hpp"

namespace ftsim::graphs {

namespace {
// Directions to the neighbour tiles: north (i-1), south (i+1), west (j-1), east (j+1).
constexpr std::array<int, 4> kDi{-1, 1, 0, 0};
constexpr std::array<int, 4> kDj{0, 0, -1, 1};
constexpr std::array<int, 4> kOpposite{1, 0, 3, 2};
// 5-point update: 4 additions and 1 multiplication per element. The halo copy is counted as
// one operation per element copied.
double jacobi_flops(double sx, double sy) { return 5.0 * sx * sy; }
double halo_flops(double sx, double sy) { return 2.0 * (sx + sy); }

}  // namespace

GraphEstimate estimate_stencil(const config::StencilConfig& stencil) {
  const double nx = stencil.tiles_x, ny = stencil.tiles_y, iterations = stencil.iterations;
  const double sx = stencil.tile_size_x, sy = stencil.tile_size_y;
  const double element = config::bytes_per_element(stencil.precision);
  const double tiles = nx * ny;
  const double strips = 2 * ((nx - 1) * ny + nx * (ny - 1));  // one per tile and neighbour
  GraphEstimate e;
  e.tasks = iterations * (tiles > 1 ? 2 * tiles : 1);  // a single tile has no HALO task
  e.accesses = iterations * (tiles > 1 ? 2 : 1) * (tiles + strips);
  e.edges = 1.25 * e.accesses;
  e.handles = tiles + strips;
  e.transfers = iterations * strips;  // at most every strip crosses nodes
  e.cuts = iterations;
  e.largest_handle = sx * sy * element;
  e.data_bytes = tiles * e.largest_handle + (2 * (nx - 1) * ny * sy + 2 * nx * (ny - 1) * sx) * element;
  e.kernels = {{"JACOBI", jacobi_flops(sx, sy)}, {"HALO", halo_flops(sx, sy)}};
  return e;
}

void submit_stencil(const config::StencilConfig& stencil, const Distribution& distribution,
                    StfBuilder& builder) {
  const std::uint32_t nx = stencil.tiles_x, ny = stencil.tiles_y;
  const std::uint64_t element = config::bytes_per_element(stencil.precision);
  const double sx = stencil.tile_size_x, sy = stencil.tile_size_y;

  const KernelId jacobi = builder.kernel("JACOBI", jacobi_flops(sx, sy));
  const KernelId halo = builder.kernel("HALO", halo_flops(sx, sy));
  const std::uint64_t block_bytes =
      checked_product(checked_product(stencil.tile_size_x, stencil.tile_size_y), element);

  auto node_of = [&](std::uint32_t i, std::uint32_t j) { return distribution.owner(i, j, nx, ny); };
  auto index = [&](std::uint32_t i, std::uint32_t j) { return std::size_t(i) * ny + j; };
  auto has_neighbour = [&](std::uint32_t i, std::uint32_t j, int d) {
    std::int64_t ni = std::int64_t(i) + kDi[d], nj = std::int64_t(j) + kDj[d];
    return ni >= 0 && nj >= 0 && ni < nx && nj < ny;
  };

  std::vector<HandleId> block(std::size_t(nx) * ny);
  std::vector<std::array<HandleId, 4>> strip(std::size_t(nx) * ny, {kNone, kNone, kNone, kNone});
  for (std::uint32_t i = 0; i < nx; ++i) {
    for (std::uint32_t j = 0; j < ny; ++j) {
      const NodeId owner = node_of(i, j);
      const auto si = static_cast<std::int32_t>(i), sj = static_cast<std::int32_t>(j);
      block[index(i, j)] = builder.data(block_bytes, owner, "block", {si, sj});
      for (int d = 0; d < 4; ++d) {
        if (!has_neighbour(i, j, d)) continue;
        // North/south strips are a row of sy elements, west/east strips a column of sx.
        const std::uint64_t elements = d < 2 ? stencil.tile_size_y : stencil.tile_size_x;
        strip[index(i, j)][d] = builder.data(elements * element, owner, "halo", {si, sj, d});
      }
    }
  }

  std::vector<AccessSpec> accesses;
  for (std::uint32_t t = 0; t < stencil.iterations; ++t) {
    const auto st = static_cast<std::int32_t>(t);
    for (std::uint32_t i = 0; i < nx; ++i) {
      for (std::uint32_t j = 0; j < ny; ++j) {
        accesses.assign({RW(block[index(i, j)])});
        for (int d = 0; d < 4; ++d) {
          if (!has_neighbour(i, j, d)) continue;
          const std::uint32_t ni = i + kDi[d], nj = j + kDj[d];
          accesses.push_back(R(strip[index(ni, nj)][kOpposite[d]]));
        }
        builder.task(jacobi, accesses, node_of(i, j), 0,
                     {static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), st});
      }
    }
    for (std::uint32_t i = 0; i < nx; ++i) {
      for (std::uint32_t j = 0; j < ny; ++j) {
        accesses.assign({R(block[index(i, j)])});
        for (int d = 0; d < 4; ++d) {
          if (strip[index(i, j)][d] != kNone) accesses.push_back(W(strip[index(i, j)][d]));
        }
        if (accesses.size() == 1) continue;  // a single tile has no neighbour to feed
        // The strips feed other tiles' next update: run them first.
        builder.task(halo, accesses, node_of(i, j), 1,
                     {static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), st});
      }
    }
    builder.checkpoint();
  }
}

}  // namespace ftsim::graphs
