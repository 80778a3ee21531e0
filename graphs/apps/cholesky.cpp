// Tiled Cholesky factorization A = L L^T, lower triangle, in the two STF submission orders of
// Lion & Thibault 2020 §VI-B: Algorithm 1 (triangle-wise, right-looking) and Algorithm 2
// (column-wise, left-looking). Both produce the same task graph in a different order.
#include <algorithm>
#include <vector>

#include "graphs/apps/applications.hpp"

namespace ftsim::graphs {

namespace {
// Leading-order flop counts of the LAPACK/BLAS kernels on b x b tiles.
struct CholeskyFlops {
  double potrf, trsm, syrk, gemm;
};
CholeskyFlops cholesky_flops(double b) { return {b * b * b / 3.0, b * b * b, b * b * b, 2.0 * b * b * b}; }
}  // namespace

GraphEstimate estimate_cholesky(const config::CholeskyConfig& cholesky, std::uint32_t nodes) {
  const double n = cholesky.tiles, b = cholesky.tile_size;
  const double pairs = n * (n - 1) / 2, triples = n * (n - 1) * (n - 2) / 6;  // TRSM or SYRK, GEMM
  GraphEstimate e;
  e.tasks = n + 2 * pairs + triples;
  e.accesses = n + 4 * pairs + 3 * triples;
  e.edges = e.accesses;  // about one dependency per access
  e.handles = n * (n + 1) / 2;
  // A tile's factored version goes to each other node that reads it, at most once per node.
  e.transfers = std::min(2 * pairs + 2 * triples, e.handles * std::min(double(nodes) - 1, 2 * n));
  e.cuts = n;
  e.largest_handle = b * b * config::bytes_per_element(cholesky.precision);
  e.data_bytes = e.handles * e.largest_handle;
  const CholeskyFlops flops = cholesky_flops(b);
  e.kernels = {{"POTRF", flops.potrf}, {"TRSM", flops.trsm}, {"SYRK", flops.syrk}, {"GEMM", flops.gemm}};
  return e;
}

void submit_cholesky(const config::CholeskyConfig& cholesky, const Distribution& distribution,
                     StfBuilder& builder) {
  const std::uint32_t nt = cholesky.tiles;
  const double b = cholesky.tile_size;
  const std::uint64_t tile_bytes =
      checked_product(std::uint64_t(cholesky.tile_size) * cholesky.tile_size, config::bytes_per_element(cholesky.precision));

  const CholeskyFlops flops = cholesky_flops(b);
  const KernelId potrf = builder.kernel("POTRF", flops.potrf);
  const KernelId trsm = builder.kernel("TRSM", flops.trsm);
  const KernelId syrk = builder.kernel("SYRK", flops.syrk);
  const KernelId gemm = builder.kernel("GEMM", flops.gemm);

  // Exact task and access counts (POTRF 1 access, TRSM and SYRK 2, GEMM 3), so that no array
  // grows and the accesses need no shrinking copy; about one dependency per access; the
  // estimate's bound on transfers.
  const std::uint64_t n64 = nt;
  const std::uint64_t pairs = n64 * (n64 - 1) / 2, triples = n64 * (n64 - 1) * (n64 > 1 ? n64 - 2 : 0) / 6;
  const std::uint64_t accesses = n64 + 4 * pairs + 3 * triples;
  builder.reserve(n64 + 2 * pairs + triples, accesses, accesses,
                  static_cast<std::size_t>(estimate_cholesky(cholesky, distribution.nodes()).transfers));

  // Lower-triangle tiles, handle of A[m][n] at tile[m * nt + n] (m >= n).
  std::vector<HandleId> tile(std::size_t(nt) * nt, kNone);
  for (std::uint32_t m = 0; m < nt; ++m) {
    for (std::uint32_t n = 0; n <= m; ++n) {
      tile[std::size_t(m) * nt + n] =
          builder.data(tile_bytes, distribution.owner(m, n, nt, nt), "A",
                       {static_cast<std::int32_t>(m), static_cast<std::int32_t>(n)});
    }
  }
  auto A = [&](std::uint32_t m, std::uint32_t n) { return tile[std::size_t(m) * nt + n]; };
  auto node_of = [&](std::uint32_t m, std::uint32_t n) { return distribution.owner(m, n, nt, nt); };
  // Critical-path-first priorities of StarPU's Cholesky example (higher runs first).
  const bool prioritized = cholesky.priorities;
  auto priority = [&](std::int64_t value) { return prioritized ? static_cast<std::int32_t>(value) : 0; };
  const std::int64_t N = nt;
  auto i32 = [](std::uint32_t v) { return static_cast<std::int32_t>(v); };

  auto submit_potrf = [&](std::uint32_t k) {
    builder.task(potrf, {RW(A(k, k))}, node_of(k, k), priority(2 * N - 2 * k), {i32(k)});
  };
  auto submit_trsm = [&](std::uint32_t m, std::uint32_t k) {
    builder.task(trsm, {R(A(k, k)), RW(A(m, k))}, node_of(m, k), priority(2 * N - 2 * k - m),
                 {i32(m), i32(k)});
  };
  auto submit_syrk = [&](std::uint32_t n, std::uint32_t k) {
    builder.task(syrk, {R(A(n, k)), RW(A(n, n))}, node_of(n, n), priority(2 * N - 2 * k - n),
                 {i32(n), i32(k)});
  };
  auto submit_gemm = [&](std::uint32_t m, std::uint32_t n, std::uint32_t k) {
    builder.task(gemm, {R(A(m, k)), R(A(n, k)), RW(A(m, n))}, node_of(m, n),
                 priority(2 * N - 2 * k - n - m), {i32(m), i32(n), i32(k)});
  };

  if (cholesky.order == config::CholeskyOrder::column) {
    // Algorithm 2: column n receives its updates from the columns on its left, then is factored.
    for (std::uint32_t n = 0; n < nt; ++n) {
      for (std::uint32_t k = 0; k < n; ++k) submit_syrk(n, k);
      submit_potrf(n);
      for (std::uint32_t m = n + 1; m < nt; ++m) {
        for (std::uint32_t k = 0; k < n; ++k) submit_gemm(m, n, k);
        submit_trsm(m, n);
      }
      builder.checkpoint();
    }
  } else {
    // Algorithm 1: step k factors column k and updates the whole trailing triangle.
    for (std::uint32_t k = 0; k < nt; ++k) {
      submit_potrf(k);
      for (std::uint32_t m = k + 1; m < nt; ++m) submit_trsm(m, k);
      for (std::uint32_t n = k + 1; n < nt; ++n) {
        submit_syrk(n, k);
        for (std::uint32_t m = n + 1; m < nt; ++m) submit_gemm(m, n, k);
      }
      builder.checkpoint();
    }
  }
}

}  // namespace ftsim::graphs
