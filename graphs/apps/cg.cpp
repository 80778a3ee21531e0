// Conjugate gradient (Hestenes-Stiefel) on the 2D Poisson matrix: the 5-point Laplacian of a
// grid x grid mesh, N = grid^2 unknowns, split in `blocks` block rows of whole mesh rows; or on the
// denser (2R+1)^2-point box matrix of the same mesh (/application/matrix, R at most a block row).
// Block row i of the matrix couples only to vector blocks i-1, i, i+1. The matrix is read-only
// data that is never sent; dot products are partial dots per block reduced by a task on the
// owner of block 0, whose scalar result every node then reads (one transfer per node).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "graphs/apps/applications.hpp"

namespace ftsim::graphs {

namespace {

// Nonzeros of the matrix in one mesh row: the 5-point Laplacian (radius 0) or the (2R+1)^2 box,
// truncated at the mesh's borders; `row` is the mesh row (its rows above and below count).
std::uint64_t row_nonzeros(const config::CgConfig& cg, std::uint64_t row) {
  const std::uint64_t n = cg.grid, R = cg.box_radius;
  if (R == 0) {
    std::uint64_t count = 5 * n - 2;  // west/east missing at both ends of the row
    if (row == 0) count -= n;         // no north neighbour on the first mesh row
    if (row + 1 == n) count -= n;     // no south neighbour on the last mesh row
    return count;
  }
  auto span = [&](std::uint64_t at) { return std::min(at + R, n - 1) - (at >= R ? at - R : 0) + 1; };
  std::uint64_t columns = 0;  // sum over the points of the row of their box's columns in the mesh
  for (std::uint64_t c = 0; c < n; ++c) columns += span(c);
  return span(row) * columns;
}

}  // namespace

GraphEstimate estimate_cg(const config::CgConfig& cg, std::uint32_t nodes) {
  const double blocks = cg.blocks, n = cg.grid, iterations = cg.iterations;
  const double element = config::bytes_per_element(cg.precision);
  const double rows = std::ceil(n / blocks) * n;  // unknowns of the largest block row
  const double per_point = cg.box_radius == 0 ? 5.0 : double(2 * cg.box_radius + 1) * double(2 * cg.box_radius + 1);
  GraphEstimate e;
  // Prologue: COPY and DOT per block and a REDUCE; per iteration: SPMV, DOT, AXPY (2), DOT and
  // XPAY per block and two REDUCEs.
  e.tasks = 2 * blocks + 1 + iterations * (6 * blocks + 2);
  e.accesses = 5 * blocks + 1 + iterations * (21 * blocks + 4);
  e.edges = 2 * e.accesses;
  e.handles = 7 * blocks + 3;
  // SpMV neighbours, partial dots to the root, scalars back to every node.
  e.transfers = iterations * (4 * blocks + 3 * double(nodes));
  e.cuts = iterations;
  // CSR: a value and a column index per nonzero, a row pointer per row (at most `per_point`
  // nonzeros per unknown; the 5-point Laplacian has 5 n^2 - 4 n: no neighbour beyond the borders).
  e.largest_handle = per_point * rows * (element + 4) + (rows + 1) * 4;
  // The matrix; x, r, p, q; partial dots and scalars.
  const double nonzeros = cg.box_radius == 0 ? 5 * n * n - 4 * n : per_point * n * n;
  e.data_bytes = nonzeros * (element + 4) + (n * n + blocks) * 4 + 4 * n * n * element + (2 * blocks + 3) * element;
  e.kernels = {{"COPY", rows}, {"SPMV", 2 * per_point * rows}, {"DOT", 2 * rows}, {"REDUCE", blocks}, {"AXPY", 2 * rows}, {"XPAY", 2 * rows}};
  return e;
}

void submit_cg(const config::CgConfig& cg, const Distribution& distribution, StfBuilder& builder) {
  const std::uint32_t blocks = cg.blocks, n = cg.grid;
  const std::uint64_t element = config::bytes_per_element(cg.precision);

  // Block i holds mesh rows [first_row(i), first_row(i + 1)).
  auto first_row = [&](std::uint32_t i) { return std::uint64_t(i) * n / blocks; };
  auto rows = [&](std::uint32_t i) { return (first_row(i + 1) - first_row(i)) * n; };
  // Nonzeros of the matrix in mesh rows [r0, r1).
  auto nonzeros = [&](std::uint32_t i) {
    std::uint64_t r0 = first_row(i), r1 = first_row(i + 1), count = 0;
    for (std::uint64_t r = r0; r < r1; ++r) count += row_nonzeros(cg, r);
    return count;
  };

  const KernelId copy = builder.kernel("COPY", 0);
  const KernelId spmv = builder.kernel("SPMV", 0);
  const KernelId dot = builder.kernel("DOT", 0);
  const KernelId reduce = builder.kernel("REDUCE", blocks);
  const KernelId axpy = builder.kernel("AXPY", 0);
  const KernelId xpay = builder.kernel("XPAY", 0);

  std::vector<double> nnz(blocks);
  for (std::uint32_t i = 0; i < blocks; ++i) nnz[i] = double(nonzeros(i));
  std::vector<NodeId> node(blocks);
  std::vector<HandleId> A(blocks), x(blocks), r(blocks), p(blocks), q(blocks), pq_part(blocks), rr_part(blocks);
  for (std::uint32_t i = 0; i < blocks; ++i) {
    node[i] = distribution.owner(std::uint64_t(i), std::uint64_t(blocks));
    const Label l{static_cast<std::int32_t>(i)};
    // CSR block: values and column indices per nonzero, row pointers.
    const std::uint64_t vector_bytes = checked_product(rows(i), element);
    A[i] = builder.data(checked_product(nonzeros(i), element + 4) + checked_product(rows(i) + 1, 4), node[i], "A", l);
    x[i] = builder.data(vector_bytes, node[i], "x", l);
    r[i] = builder.data(vector_bytes, node[i], "r", l);
    p[i] = builder.data(vector_bytes, node[i], "p", l);
    q[i] = builder.data(vector_bytes, node[i], "q", l);
    pq_part[i] = builder.data(element, node[i], "pq_part", l);
    rr_part[i] = builder.data(element, node[i], "rr_part", l);
  }
  const NodeId root = node[0];
  const HandleId alpha = builder.data(element, root, "alpha", {});
  const HandleId beta = builder.data(element, root, "beta", {});
  const HandleId rr = builder.data(element, root, "rr", {});

  auto label = [](std::uint32_t i, std::uint32_t it) {
    return Label{static_cast<std::int32_t>(i), static_cast<std::int32_t>(it)};
  };
  auto vector_flops = [&](std::uint32_t i) { return 2.0 * double(rows(i)); };
  std::vector<AccessSpec> accesses;
  auto reduce_into = [&](const std::vector<HandleId>& parts, std::initializer_list<AccessSpec> more,
                         std::uint32_t it) {
    accesses.clear();
    for (HandleId part : parts) accesses.push_back(R(part));
    accesses.insert(accesses.end(), more.begin(), more.end());
    builder.task(reduce, accesses, root, 2, {-1, static_cast<std::int32_t>(it)});
  };

  // Prologue (x0 = 0, so r0 = b): p = r, rr = r.r
  for (std::uint32_t i = 0; i < blocks; ++i) builder.task(copy, {R(r[i]), W(p[i])}, node[i], 0, label(i, 0), double(rows(i)));
  for (std::uint32_t i = 0; i < blocks; ++i) builder.task(dot, {R(r[i]), W(rr_part[i])}, node[i], 1, label(i, 0), vector_flops(i));
  reduce_into(rr_part, {W(rr)}, 0);

  for (std::uint32_t it = 0; it < cg.iterations; ++it) {
    // q = A p
    for (std::uint32_t i = 0; i < blocks; ++i) {
      accesses.assign({R(A[i])});
      if (i > 0) accesses.push_back(R(p[i - 1]));
      accesses.push_back(R(p[i]));
      if (i + 1 < blocks) accesses.push_back(R(p[i + 1]));
      accesses.push_back(W(q[i]));
      builder.task(spmv, accesses, node[i], 0, label(i, it), 2.0 * nnz[i]);
    }
    // alpha = rr / (p.q)
    for (std::uint32_t i = 0; i < blocks; ++i) builder.task(dot, {R(p[i]), R(q[i]), W(pq_part[i])}, node[i], 1, label(i, it), vector_flops(i));
    reduce_into(pq_part, {R(rr), W(alpha)}, it);
    // x += alpha p ; r -= alpha q
    for (std::uint32_t i = 0; i < blocks; ++i) builder.task(axpy, {R(alpha), R(p[i]), RW(x[i])}, node[i], 0, label(i, it), vector_flops(i));
    for (std::uint32_t i = 0; i < blocks; ++i) builder.task(axpy, {R(alpha), R(q[i]), RW(r[i])}, node[i], 1, label(i, it), vector_flops(i));
    // beta = (r.r) / rr ; rr = r.r
    for (std::uint32_t i = 0; i < blocks; ++i) builder.task(dot, {R(r[i]), W(rr_part[i])}, node[i], 1, label(i, it), vector_flops(i));
    reduce_into(rr_part, {RW(rr), W(beta)}, it);
    // p = r + beta p
    for (std::uint32_t i = 0; i < blocks; ++i) builder.task(xpay, {R(beta), R(r[i]), RW(p[i])}, node[i], 1, label(i, it), vector_flops(i));
    builder.checkpoint();
  }
}

}  // namespace ftsim::graphs
