// Tiled Cholesky on real tiles: POTRF, TRSM, SYRK and GEMM of OpenBLAS/LAPACKE on column-major
// b x b tiles of the lower triangle ("A"[m][n], m >= n), double precision.
#include <cblas.h>
#include <lapacke.h>

#include <algorithm>

#include "graphs/apps/kernels/cholesky_matrix.hpp"
#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

namespace {

enum class CholeskyOp : std::uint8_t { potrf, trsm, syrk, gemm };

class CholeskyKernels final : public KernelSet {
public:
  CholeskyKernels(const config::Config& config, const graphs::TaskGraph& graph)
      : graph_(graph), matrix_(config) {
    for (graphs::KernelId k = 0; k < graph.kernel_count(); ++k) {
      const std::string& name = graph.kernel_name(k);
      if (name == "POTRF") ops_.push_back(CholeskyOp::potrf);
      else if (name == "TRSM") ops_.push_back(CholeskyOp::trsm);
      else if (name == "SYRK") ops_.push_back(CholeskyOp::syrk);
      else if (name == "GEMM") ops_.push_back(CholeskyOp::gemm);
      else throw KernelError("cholesky: no real kernel for \"" + name + "\"");
    }
  }

  void initial(graphs::HandleId h, std::span<std::uint8_t> out) const override {
    const graphs::Label l = graph_.handle_label(h);
    matrix_.tile(l.a, l.b, view_all<double>(out, "A"));
  }

  void execute(graphs::TaskId t, std::span<const std::span<std::uint8_t>> data, double) const override {
    const auto accesses = graph_.accesses(t);
    if (data.size() != accesses.size()) throw KernelError(graph_.task_name(t) + ": wrong number of buffers");
    const int b = static_cast<int>(matrix_.b);
    const std::size_t elements = matrix_.b * matrix_.b;
    auto tile = [&](std::size_t i) { return view<double>(data[i], elements, "A").data(); };
    switch (ops_[graph_.kernel(t)]) {
      case CholeskyOp::potrf: {
        // A(k,k) = L(k,k) L(k,k)^T; the strict upper triangle keeps the old values.
        const lapack_int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', b, tile(0), b);
        if (info != 0) {
          throw KernelError(graph_.task_name(t) + ": LAPACKE_dpotrf failed, info " + std::to_string(info) +
                            " (tile not positive definite)");
        }
        break;
      }
      case CholeskyOp::trsm:  // {R(A(k,k)), RW(A(m,k))}: A(m,k) = A(m,k) L(k,k)^-T
        cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, b, b, 1.0, tile(0), b,
                    tile(1), b);
        break;
      case CholeskyOp::syrk:  // {R(A(n,k)), RW(A(n,n))}: A(n,n) -= A(n,k) A(n,k)^T, lower part
        cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, b, b, -1.0, tile(0), b, 1.0, tile(1), b);
        break;
      case CholeskyOp::gemm:  // {R(A(m,k)), R(A(n,k)), RW(A(m,n))}: A(m,n) -= A(m,k) A(n,k)^T
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, b, b, b, -1.0, tile(0), b, tile(1), b, 1.0, tile(2), b);
        break;
    }
  }

private:
  const graphs::TaskGraph& graph_;
  CholeskyMatrix matrix_;
  std::vector<CholeskyOp> ops_;  // by kernel id
};

}  // namespace

std::unique_ptr<KernelSet> make_cholesky_kernels(const config::Config& config, const graphs::TaskGraph& graph) {
  require_double(config.application.cholesky.precision);
  single_threaded_blas();
  return std::make_unique<CholeskyKernels>(config, graph);
}

}  // namespace ftsim::graphs::kernels::detail
