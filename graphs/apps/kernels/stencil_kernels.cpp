// 2D Jacobi on real blocks: JACOBI(i,j) replaces block (i,j) by the 5-point average of its old
// values, with the neighbours' facing strips (or the Dirichlet boundary at the global edges) as
// ghost points; HALO(i,j) copies the new block's border rows/columns into the strips it writes.
#include <algorithm>
#include <array>

#include "graphs/apps/kernels/kernel_support.hpp"
#include "graphs/apps/kernels/stencil_grid.hpp"

namespace ftsim::graphs::kernels::detail {

namespace {

enum class StencilOp : std::uint8_t { jacobi, halo };

class StencilKernels final : public KernelSet {
public:
  StencilKernels(const config::Config& config, const graphs::TaskGraph& graph) : graph_(graph), grid_(config) {
    for (graphs::KernelId k = 0; k < graph.kernel_count(); ++k) {
      const std::string& name = graph.kernel_name(k);
      if (name == "JACOBI") ops_.push_back(StencilOp::jacobi);
      else if (name == "HALO") ops_.push_back(StencilOp::halo);
      else throw KernelError("stencil: no real kernel for \"" + name + "\"");
    }
  }

  void initial(graphs::HandleId h, std::span<std::uint8_t> out) const override {
    const graphs::Label l = graph_.handle_label(h);
    const std::uint64_t x0 = std::uint64_t(l.a) * grid_.sx, y0 = std::uint64_t(l.b) * grid_.sy;
    if (graph_.handle_family(h) == "block") {
      const auto block = view<double>(out, grid_.sx * grid_.sy, "block");
      for (std::uint64_t x = 0; x < grid_.sx; ++x) {
        for (std::uint64_t y = 0; y < grid_.sy; ++y) block[x * grid_.sy + y] = grid_.initial(x0 + x, y0 + y);
      }
      return;
    }
    // A strip starts as the border of its initial block, so the first JACOBI reads consistent data.
    const auto strip = view_all<double>(out, "halo");
    for (std::uint64_t k = 0; k < strip.size(); ++k) {
      switch (l.c) {
        case kNorth: strip[k] = grid_.initial(x0, y0 + k); break;
        case kSouth: strip[k] = grid_.initial(x0 + grid_.sx - 1, y0 + k); break;
        case kWest: strip[k] = grid_.initial(x0 + k, y0); break;
        case kEast: strip[k] = grid_.initial(x0 + k, y0 + grid_.sy - 1); break;
        default: throw KernelError("stencil: strip " + graph_.handle_name(h) + " has no direction");
      }
    }
  }

  void execute(graphs::TaskId t, std::span<const std::span<std::uint8_t>> data, double) const override {
    const auto accesses = graph_.accesses(t);
    if (data.size() != accesses.size()) throw KernelError(graph_.task_name(t) + ": wrong number of buffers");
    const std::uint64_t sx = grid_.sx, sy = grid_.sy;
    const auto block = view<double>(data[0], sx * sy, "block");
    if (ops_[graph_.kernel(t)] == StencilOp::halo) {
      // {R(block), W(own strip d)...}: the strip's label says which border it is.
      for (std::size_t a = 1; a < accesses.size(); ++a) {
        const int d = graph_.handle_label(accesses[a].handle).c;
        const auto strip = view<double>(data[a], d < 2 ? sy : sx, "halo");
        for (std::uint64_t k = 0; k < strip.size(); ++k) {
          strip[k] = d == kNorth ? block[k] : d == kSouth ? block[(sx - 1) * sy + k]
                   : d == kWest  ? block[k * sy] : block[k * sy + sy - 1];
        }
      }
      return;
    }
    // {RW(block), R(neighbour's strip facing us)...}: a strip labelled d (its owner's side d)
    // is our ghost on the opposite side.
    std::array<const double*, 4> ghost{nullptr, nullptr, nullptr, nullptr};
    for (std::size_t a = 1; a < accesses.size(); ++a) {
      const int d = graph_.handle_label(accesses[a].handle).c;
      ghost[kOpposite[d]] = view<double>(data[a], d < 2 ? sy : sx, "halo").data();
    }
    // The old block, read while the new one is written (one allocation per task).
    const std::vector<double> old(block.begin(), block.end());
    auto ghost_or_boundary = [&](int side, std::uint64_t k) { return ghost[side] ? ghost[side][k] : kStencilBoundary; };
    for (std::uint64_t x = 0; x < sx; ++x) {
      for (std::uint64_t y = 0; y < sy; ++y) {
        const double north = x > 0 ? old[(x - 1) * sy + y] : ghost_or_boundary(kNorth, y);
        const double south = x + 1 < sx ? old[(x + 1) * sy + y] : ghost_or_boundary(kSouth, y);
        const double west = y > 0 ? old[x * sy + y - 1] : ghost_or_boundary(kWest, x);
        const double east = y + 1 < sy ? old[x * sy + y + 1] : ghost_or_boundary(kEast, x);
        // Summed north, south, west, east: the check sums in the same order, so results agree bit for bit.
        block[x * sy + y] = 0.25 * (((north + south) + west) + east);
      }
    }
  }

private:
  const graphs::TaskGraph& graph_;
  StencilGrid grid_;
  std::vector<StencilOp> ops_;  // by kernel id
};

}  // namespace

std::unique_ptr<KernelSet> make_stencil_kernels(const config::Config& config, const graphs::TaskGraph& graph) {
  require_double(config.application.stencil.precision);
  return std::make_unique<StencilKernels>(config, graph);
}

}  // namespace ftsim::graphs::kernels::detail
