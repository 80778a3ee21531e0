// Conjugate gradient on real vectors: COPY, SPMV (CSR block times the p blocks i-1, i, i+1),
// DOT (partial dot of a block), REDUCE (sums partials in block order, makes rr, alpha or beta),
// AXPY and XPAY. Scalars are one double each.
#include <algorithm>
#include <array>
#include <cstring>

#include "graphs/apps/kernels/cg_problem.hpp"
#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

namespace {

enum class CgOp : std::uint8_t { copy, spmv, dot, reduce, axpy, xpay };

class CgKernels final : public KernelSet {
public:
  CgKernels(const config::Config& config, const graphs::TaskGraph& graph) : graph_(graph), problem_(config) {
    if (problem_.unknowns() > std::uint64_t(UINT32_MAX)) {
      throw KernelError("/application/grid: too large for 32-bit column indices");
    }
    for (graphs::KernelId k = 0; k < graph.kernel_count(); ++k) {
      const std::string& name = graph.kernel_name(k);
      if (name == "COPY") ops_.push_back(CgOp::copy);
      else if (name == "SPMV") ops_.push_back(CgOp::spmv);
      else if (name == "DOT") ops_.push_back(CgOp::dot);
      else if (name == "REDUCE") ops_.push_back(CgOp::reduce);
      else if (name == "AXPY") ops_.push_back(CgOp::axpy);
      else if (name == "XPAY") ops_.push_back(CgOp::xpay);
      else throw KernelError("cg: no real kernel for \"" + name + "\"");
    }
  }

  void initial(graphs::HandleId h, std::span<std::uint8_t> out) const override {
    const std::string& family = graph_.handle_family(h);
    std::fill(out.begin(), out.end(), std::uint8_t{0});  // x0 = 0; p, q, partials and scalars: 0
    if (family == "A") {
      write_csr(std::uint64_t(graph_.handle_label(h).a), out);
    } else if (family == "r") {
      const std::uint64_t i = std::uint64_t(graph_.handle_label(h).a);
      const auto r = view<double>(out, problem_.rows(i), "r");
      for (std::uint64_t k = 0; k < r.size(); ++k) r[k] = problem_.rhs(problem_.start(i) + k);
    }
  }

  void execute(graphs::TaskId t, std::span<const std::span<std::uint8_t>> data, double) const override {
    const auto accesses = graph_.accesses(t);
    if (data.size() != accesses.size()) throw KernelError(graph_.task_name(t) + ": wrong number of buffers");
    auto vec = [&](std::size_t a) { return view_all<double>(data[a], "vector"); };
    auto scalar = [&](std::size_t a) -> double& { return view<double>(data[a], 1, "scalar")[0]; };
    switch (ops_[graph_.kernel(t)]) {
      case CgOp::copy: {  // {R(r), W(p)}
        std::memcpy(data[1].data(), data[0].data(), data[0].size());
        break;
      }
      case CgOp::spmv: spmv(accesses, data); break;
      case CgOp::dot: {  // {R(r), W(rr_part)} or {R(p), R(q), W(pq_part)}
        const auto a = vec(0), b = accesses.size() == 3 ? vec(1) : vec(0);
        double sum = 0;
        for (std::size_t k = 0; k < a.size(); ++k) sum += a[k] * b[k];
        scalar(accesses.size() - 1) = sum;
        break;
      }
      case CgOp::reduce: reduce(accesses, data); break;
      case CgOp::axpy: {  // {R(alpha), R(p), RW(x)}: x += alpha p; {R(alpha), R(q), RW(r)}: r -= alpha q
        const double alpha = scalar(0);
        const auto v = vec(1), y = vec(2);
        if (graph_.handle_family(accesses[2].handle) == "x") {
          for (std::size_t k = 0; k < y.size(); ++k) y[k] = y[k] + alpha * v[k];
        } else {
          for (std::size_t k = 0; k < y.size(); ++k) y[k] = y[k] - alpha * v[k];
        }
        break;
      }
      case CgOp::xpay: {  // {R(beta), R(r), RW(p)}: p = r + beta p
        const double beta = scalar(0);
        const auto r = vec(1), p = vec(2);
        for (std::size_t k = 0; k < p.size(); ++k) p[k] = r[k] + beta * p[k];
        break;
      }
    }
  }

private:
  // The rows of block i in CSR, columns in increasing order (CgProblem::row).
  void write_csr(std::uint64_t i, std::span<std::uint8_t> out) const {
    const std::uint64_t first = problem_.start(i), rows = problem_.rows(i);
    std::uint64_t nonzeros = 0;
    for (std::uint64_t g = first; g < first + rows; ++g) problem_.row(g, [&](std::uint64_t, double) { ++nonzeros; });
    if (out.size() != nonzeros * 12 + (rows + 1) * 4) {
      throw KernelError("cg: A(" + std::to_string(i) + ") has " + std::to_string(out.size()) +
                        " bytes, its CSR needs " + std::to_string(nonzeros * 12 + (rows + 1) * 4));
    }
    const auto values = view<double>(out, nonzeros, "A");
    const auto columns = view<std::uint32_t>(out.subspan(nonzeros * 8), nonzeros, "A");
    const auto pointers = view<std::uint32_t>(out.subspan(nonzeros * 12), rows + 1, "A");
    std::uint64_t k = 0;
    for (std::uint64_t g = first; g < first + rows; ++g) {
      pointers[g - first] = static_cast<std::uint32_t>(k);
      problem_.row(g, [&](std::uint64_t column, double value) {
        columns[k] = static_cast<std::uint32_t>(column);
        values[k++] = value;
      });
    }
    pointers[rows] = static_cast<std::uint32_t>(k);
  }

  CsrView csr(std::uint64_t i, std::span<const std::uint8_t> bytes) const {
    const std::uint64_t rows = problem_.rows(i);
    if (bytes.size() < (rows + 1) * 4 || (bytes.size() - (rows + 1) * 4) % 12 != 0) {
      throw KernelError("cg: A(" + std::to_string(i) + ") is not a CSR block");
    }
    const std::uint64_t nonzeros = (bytes.size() - (rows + 1) * 4) / 12;
    return {view<const double>(bytes, nonzeros, "A"), view<const std::uint32_t>(bytes.subspan(nonzeros * 8), nonzeros, "A"),
            view<const std::uint32_t>(bytes.subspan(nonzeros * 12), rows + 1, "A")};
  }

  // {R(A(i)), [R(p(i-1))], R(p(i)), [R(p(i+1))], W(q(i))}
  void spmv(std::span<const graphs::Access> accesses, std::span<const std::span<std::uint8_t>> data) const {
    const std::uint64_t i = std::uint64_t(graph_.handle_label(accesses[0].handle).a);
    const CsrView a = csr(i, data[0]);
    std::array<const double*, 3> p{nullptr, nullptr, nullptr};  // blocks i - 1, i, i + 1
    for (std::size_t k = 1; k + 1 < accesses.size(); ++k) {
      const std::int64_t j = graph_.handle_label(accesses[k].handle).a;
      const std::int64_t slot = j - std::int64_t(i) + 1;
      if (slot < 0 || slot > 2) throw KernelError("cg: SPMV of block " + std::to_string(i) + " reads p(" + std::to_string(j) + ")");
      p[std::size_t(slot)] = view<const double>(std::span<const std::uint8_t>(data[k]), problem_.rows(std::uint64_t(j)), "p").data();
    }
    const auto q = view<double>(data[accesses.size() - 1], problem_.rows(i), "q");
    const std::uint64_t first = problem_.start(i), end = problem_.start(i + 1);
    const std::uint64_t previous = i > 0 ? problem_.start(i - 1) : 0;
    for (std::uint64_t r = 0; r < q.size(); ++r) {
      double sum = 0;
      for (std::uint32_t k = a.row_pointers[r]; k < a.row_pointers[r + 1]; ++k) {
        const std::uint64_t c = a.columns[k];
        const double pc = c < first ? p[0][c - previous] : c < end ? p[1][c - first] : p[2][c - end];
        sum += a.values[k] * pc;
      }
      q[r] = sum;
    }
  }

  // {R(rr_part)..., W(rr)}: rr = sum; {R(pq_part)..., R(rr), W(alpha)}: alpha = rr / sum;
  // {R(rr_part)..., RW(rr), W(beta)}: beta = sum / rr_old, rr = sum. Partials summed in block order.
  void reduce(std::span<const graphs::Access> accesses, std::span<const std::span<std::uint8_t>> data) const {
    auto scalar = [&](std::size_t a) -> double& { return view<double>(data[a], 1, "scalar")[0]; };
    double sum = 0;
    std::size_t parts = 0;
    while (parts < accesses.size() && graph_.handle_family(accesses[parts].handle).ends_with("_part")) {
      sum += scalar(parts);
      ++parts;
    }
    const std::string& result = graph_.handle_family(accesses.back().handle);
    if (result == "rr" && parts + 1 == accesses.size()) {
      scalar(parts) = sum;
    } else if (result == "alpha" && parts + 2 == accesses.size()) {
      // An exactly converged run has p = 0: alpha = 0 keeps x unchanged instead of NaN.
      scalar(parts + 1) = sum != 0 ? scalar(parts) / sum : 0.0;
    } else if (result == "beta" && parts + 2 == accesses.size()) {
      double& rr = scalar(parts);  // RW: pre-filled with the old rr
      scalar(parts + 1) = rr != 0 ? sum / rr : 0.0;
      rr = sum;
    } else {
      throw KernelError("cg: REDUCE with unexpected accesses");
    }
  }

  const graphs::TaskGraph& graph_;
  CgProblem problem_;
  std::vector<CgOp> ops_;  // by kernel id
};

}  // namespace

std::unique_ptr<KernelSet> make_cg_kernels(const config::Config& config, const graphs::TaskGraph& graph) {
  require_double(config.application.cg.precision);
  return std::make_unique<CgKernels>(config, graph);
}

}  // namespace ftsim::graphs::kernels::detail
