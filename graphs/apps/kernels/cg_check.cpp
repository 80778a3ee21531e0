// The CG result against a sequential CG run here on whole vectors with the same operations in
// the same order as the tasks (cg.cpp): the final x and the recurrence's rr. No bound on the
// residual itself: CG minimises the A-norm of the error, not the residual, so an unconverged
// CG's ||b - A x|| may well exceed ||b|| (grid 64, 20 iterations: 2.2) and still be right.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "graphs/apps/kernels/cg_problem.hpp"
#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

namespace {

// y = A v, row by row in increasing column order, as SPMV walks its CSR rows (CgProblem::row).
void multiply(const CgProblem& problem, const std::vector<double>& v, std::vector<double>& y) {
  for (std::uint64_t g = 0; g < problem.unknowns(); ++g) {
    double sum = 0;
    problem.row(g, [&](std::uint64_t column, double value) { sum += value * v[column]; });
    y[g] = sum;
  }
}

// a . b as the tasks sum it: a partial dot per block (DOT), the partials added in block order
// (REDUCE). Whole-vector sums would round differently.
double blocked_dot(const CgProblem& problem, const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::uint64_t i = 0; i < problem.blocks; ++i) {
    double part = 0;
    for (std::uint64_t g = problem.start(i); g < problem.start(i + 1); ++g) part += a[g] * b[g];
    sum += part;
  }
  return sum;
}

double norm(const std::vector<double>& v) {
  double sum = 0;
  for (const double value : v) sum += value * value;
  return std::sqrt(sum);
}

// ||b - A x|| / ||b||: reported, not checked (see above).
double true_residual(const CgProblem& problem, const std::vector<double>& b, const std::vector<double>& x) {
  std::vector<double> residual(b.size());
  multiply(problem, x, residual);
  for (std::size_t g = 0; g < b.size(); ++g) residual[g] = b[g] - residual[g];
  return norm(residual) / norm(b);
}

std::string short_number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

// Same operations in the same order as the tasks: expected bit-identical, 0. The tolerance admits
// only rounding that a compiler may do differently in the two loops (fused multiply-adds); a
// wrong, stale or lost block moves the result by orders of magnitude more.
constexpr double kTolerance = 1e-12;

}  // namespace

std::vector<NumericCheck> check_cg(const config::Config& config, const graphs::TaskGraph& graph,
                                   std::span<const Buffer> finals) {
  require_double(config.application.cg.precision);
  const CgProblem problem(config);
  const std::uint64_t unknowns = problem.unknowns();

  std::vector<double> b(unknowns), x(unknowns);
  for (std::uint64_t g = 0; g < unknowns; ++g) b[g] = problem.rhs(g);
  const auto xs = handles_of(graph, "x");
  for (std::uint64_t i = 0; i < problem.blocks; ++i) {
    const graphs::HandleId h = handle_at(xs, {std::int32_t(i), -1, -1}, "x");
    const auto block = view<const double>(std::span<const std::uint8_t>(finals[h]), problem.rows(i), "x");
    std::copy(block.begin(), block.end(), x.begin() + std::ptrdiff_t(problem.start(i)));
  }
  const graphs::HandleId rr_handle = handle_at(handles_of(graph, "rr"), {-1, -1, -1}, "rr");
  const double rr = view<const double>(std::span<const std::uint8_t>(finals[rr_handle]), 1, "rr")[0];

  // Sequential CG (x0 = 0, r = p = b), the tasks' recurrences: SPMV, DOT + REDUCE (alpha), AXPY
  // on x and r, DOT + REDUCE (beta, rr), XPAY.
  std::vector<double> x_seq(unknowns, 0.0), r = b, p = b, q(unknowns);
  double rr_seq = blocked_dot(problem, r, r);
  const std::uint32_t iterations = config.application.cg.iterations;
  for (std::uint32_t it = 0; it < iterations; ++it) {
    multiply(problem, p, q);
    const double pq = blocked_dot(problem, p, q);
    const double alpha = pq != 0 ? rr_seq / pq : 0.0;
    for (std::uint64_t g = 0; g < unknowns; ++g) x_seq[g] = x_seq[g] + alpha * p[g];
    for (std::uint64_t g = 0; g < unknowns; ++g) r[g] = r[g] - alpha * q[g];
    const double rr_new = blocked_dot(problem, r, r);
    const double beta = rr_seq != 0 ? rr_new / rr_seq : 0.0;
    rr_seq = rr_new;
    for (std::uint64_t g = 0; g < unknowns; ++g) p[g] = r[g] + beta * p[g];
  }

  double difference2 = 0, norm2 = 0;
  for (std::uint64_t g = 0; g < unknowns; ++g) {
    difference2 += (x[g] - x_seq[g]) * (x[g] - x_seq[g]);
    norm2 += x_seq[g] * x_seq[g];
  }
  NumericCheck solution;
  solution.name = "cg ||x - x_sequential|| / ||x_sequential||";
  solution.value = norm2 > 0 ? std::sqrt(difference2 / norm2) : std::sqrt(difference2);
  solution.tolerance = kTolerance;
  solution.ok = solution.value <= solution.tolerance;  // false for NaN too
  solution.detail = std::to_string(iterations) + " iterations on " + std::to_string(unknowns) +
                    " unknowns; true residual ||b - A x|| / ||b|| = " + short_number(true_residual(problem, b, x)) +
                    " (the sequential CG's: " + short_number(true_residual(problem, b, x_seq)) + ")";

  // The recurrence's residual, relative to ||b|| (its value at x0 = 0): a difference of residuals,
  // so that a converged run (rr at rounding level) is not judged on rounding noise.
  const double norm_b = norm(b);
  NumericCheck recurrence;
  recurrence.name = "cg |sqrt(rr) - sqrt(rr_sequential)| / ||b||";
  recurrence.value = std::fabs(std::sqrt(rr) - std::sqrt(rr_seq)) / norm_b;
  recurrence.tolerance = kTolerance;
  recurrence.ok = recurrence.value <= recurrence.tolerance;  // false for NaN (a negative rr too)
  recurrence.detail = "sqrt(rr) / ||b|| = " + short_number(std::sqrt(rr) / norm_b) + " (the sequential CG's: " +
                      short_number(std::sqrt(rr_seq) / norm_b) + ")";
  return {solution, recurrence};
}

}  // namespace ftsim::graphs::kernels::detail
