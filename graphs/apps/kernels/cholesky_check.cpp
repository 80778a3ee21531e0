// The Cholesky factor against the generated matrix: ||A - L L^T||_F / ||A||_F over the whole
// symmetric matrix, computed tile by tile (no dense N x N copy, so large runs can be checked).
#include <cblas.h>

#include <cmath>
#include <limits>

#include "graphs/apps/kernels/cholesky_matrix.hpp"
#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

std::vector<NumericCheck> check_cholesky(const config::Config& config, const graphs::TaskGraph& graph,
                                         std::span<const Buffer> finals) {
  require_double(config.application.cholesky.precision);
  single_threaded_blas();
  const CholeskyMatrix matrix(config);
  const std::uint64_t nt = matrix.tiles, b = matrix.b, elements = b * b;
  const int bi = static_cast<int>(b);
  const auto tiles = handles_of(graph, "A");
  auto final_tile = [&](std::uint64_t m, std::uint64_t n) {
    const graphs::HandleId h = handle_at(tiles, {std::int32_t(m), std::int32_t(n), -1}, "A");
    return view<const double>(std::span<const std::uint8_t>(finals[h]), elements, "A").data();
  };

  // dpotrf leaves the old values in the strict upper triangle of the diagonal tiles: mask them.
  std::vector<double> diagonal(nt * elements, 0.0);
  for (std::uint64_t k = 0; k < nt; ++k) {
    const double* source = final_tile(k, k);
    for (std::uint64_t c = 0; c < b; ++c) {
      for (std::uint64_t r = c; r < b; ++r) diagonal[k * elements + c * b + r] = source[c * b + r];
    }
  }
  auto L = [&](std::uint64_t m, std::uint64_t k) { return m == k ? diagonal.data() + k * elements : final_tile(m, k); };

  std::vector<double> product(elements), original(elements);
  double error2 = 0, norm2 = 0;
  for (std::uint64_t n = 0; n < nt; ++n) {
    for (std::uint64_t m = n; m < nt; ++m) {
      // (L L^T)(m, n) = sum over k <= n of L(m, k) L(n, k)^T
      std::fill(product.begin(), product.end(), 0.0);
      for (std::uint64_t k = 0; k <= n; ++k) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, bi, bi, bi, 1.0, L(m, k), bi, L(n, k), bi, 1.0,
                    product.data(), bi);
      }
      matrix.tile(std::int64_t(m), std::int64_t(n), original);
      // An off-diagonal tile stands for itself and its transpose in the full matrix.
      const double weight = m == n ? 1.0 : 2.0;
      for (std::uint64_t e = 0; e < elements; ++e) {
        const double d = original[e] - product[e];
        error2 += weight * d * d;
        norm2 += weight * original[e] * original[e];
      }
    }
  }
  NumericCheck check;
  check.name = "cholesky ||A - L L^T||_F / ||A||_F";
  check.value = std::sqrt(error2 / norm2);
  // Backward error of Cholesky is O(N eps); a wrong tile gives orders of magnitude more.
  check.tolerance = std::max(1e-10, 10.0 * double(matrix.n) * std::numeric_limits<double>::epsilon());
  check.ok = check.value <= check.tolerance;  // false for NaN too
  check.detail = "N = " + std::to_string(matrix.n) + " (" + std::to_string(nt) + " tiles of " + std::to_string(b) + ")";
  return {check};
}

}  // namespace ftsim::graphs::kernels::detail
