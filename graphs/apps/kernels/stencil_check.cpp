// The stencil's final blocks against a sequential Jacobi on the whole grid from the same initial
// values, for the same number of iterations, with the same Dirichlet boundary.
#include <algorithm>
#include <cmath>

#include "graphs/apps/kernels/kernel_support.hpp"
#include "graphs/apps/kernels/stencil_grid.hpp"

namespace ftsim::graphs::kernels::detail {

std::vector<NumericCheck> check_stencil(const config::Config& config, const graphs::TaskGraph& graph,
                                        std::span<const Buffer> finals) {
  require_double(config.application.stencil.precision);
  const StencilGrid grid(config);
  const std::uint64_t wx = grid.width_x(), wy = grid.width_y();
  std::vector<double> current(wx * wy), next(wx * wy);
  for (std::uint64_t x = 0; x < wx; ++x) {
    for (std::uint64_t y = 0; y < wy; ++y) current[x * wy + y] = grid.initial(x, y);
  }
  auto at = [&](std::int64_t x, std::int64_t y) {
    const bool outside = x < 0 || y < 0 || std::uint64_t(x) >= wx || std::uint64_t(y) >= wy;
    return outside ? kStencilBoundary : current[std::uint64_t(x) * wy + std::uint64_t(y)];
  };
  for (std::uint32_t it = 0; it < config.application.stencil.iterations; ++it) {
    for (std::int64_t x = 0; x < std::int64_t(wx); ++x) {
      for (std::int64_t y = 0; y < std::int64_t(wy); ++y) {
        next[std::uint64_t(x) * wy + std::uint64_t(y)] = 0.25 * (((at(x - 1, y) + at(x + 1, y)) + at(x, y - 1)) + at(x, y + 1));
      }
    }
    current.swap(next);
  }

  const auto blocks = handles_of(graph, "block");
  double max_difference = 0, max_value = 0;
  for (std::uint64_t i = 0; i < grid.tiles_x; ++i) {
    for (std::uint64_t j = 0; j < grid.tiles_y; ++j) {
      const graphs::HandleId h = handle_at(blocks, {std::int32_t(i), std::int32_t(j), -1}, "block");
      const auto block = view<const double>(std::span<const std::uint8_t>(finals[h]), grid.sx * grid.sy, "block");
      for (std::uint64_t x = 0; x < grid.sx; ++x) {
        for (std::uint64_t y = 0; y < grid.sy; ++y) {
          const double expected = current[(i * grid.sx + x) * wy + j * grid.sy + y];
          // NaN-safe: a NaN difference makes the check fail below.
          const double difference = std::fabs(block[x * grid.sy + y] - expected);
          max_difference = std::isnan(difference) ? difference : std::max(max_difference, difference);
          max_value = std::max(max_value, std::fabs(expected));
          if (std::isnan(max_difference)) break;
        }
      }
    }
  }
  NumericCheck check;
  check.name = "stencil max |u - u_sequential| / max |u_sequential|";
  check.value = max_value > 0 ? max_difference / max_value : max_difference;
  // Same operations in the same order per point: expected exactly 0.
  check.tolerance = 1e-12;
  check.ok = check.value <= check.tolerance;
  check.detail = std::to_string(wx) + " x " + std::to_string(wy) + " points, " +
                 std::to_string(config.application.stencil.iterations) + " iterations";
  return {check};
}

}  // namespace ftsim::graphs::kernels::detail
