#pragma once
// The real computation of a task graph's tasks, for the MPI backend: OpenBLAS/LAPACKE tiles for
// Cholesky, a 5-point Jacobi for the stencil, CG on the 2D Poisson matrix, and a synthetic kernel
// (seeded bytes plus a busy-wait of the cost model's duration) for spmd and json graphs.
// Pure C++: no MPI, no SimGrid. Buffers are the raw bytes of one version of a data handle.
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs::kernels {

// The real content of one version of a data handle: graph.bytes(h) bytes. Kernels view it as
// doubles, so buffers must be 8-byte aligned (std::vector allocations are).
using Buffer = std::vector<std::uint8_t>;

class KernelError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class KernelSet {
public:
  // Throws KernelError naming the config path when the application cannot run for real
  // ("/application/precision: ..." for single precision). `graph` must outlive the KernelSet.
  static std::unique_ptr<KernelSet> make(const config::Config& config, const graphs::TaskGraph& graph);
  virtual ~KernelSet();

  // Initial value of handle h, deterministic from config.seed and h's identity (family, labels):
  // the same on every rank. `out` has graph.bytes(h) bytes.
  virtual void initial(graphs::HandleId h, std::span<std::uint8_t> out) const = 0;

  // Executes task t. data[i] is the buffer of the i-th access of graph.accesses(t), in access
  // order: R the input (not written), W the output (sized, zero-filled), RW the output pre-filled
  // with the input. `seconds` is the cost model's duration (used by the synthetic kernel only).
  // Thread-safe (const, no shared mutable state) and deterministic (bit-identical outputs for the
  // same inputs). Throws KernelError if the data do not match the graph or POTRF fails.
  virtual void execute(graphs::TaskId t, std::span<const std::span<std::uint8_t>> data, double seconds) const = 0;
};

// One check of the final data against an independent sequential computation.
struct NumericCheck {
  std::string name;
  double value = 0;
  double tolerance = 0;
  bool ok = false;
  std::string detail;
};

// Run once on one rank with the final version of every handle (finals[h], graph.bytes(h) bytes).
// Synthetic applications (spmd, json) get one informative entry: they are checked bit-exact only.
std::vector<NumericCheck> check_numerics(const config::Config& config, const graphs::TaskGraph& graph,
                                         std::span<const Buffer> finals);

// 64-bit hash of a buffer, for bit-exact comparisons of versions (order- and length-sensitive).
std::uint64_t checksum(std::span<const std::uint8_t> bytes);

}  // namespace ftsim::graphs::kernels
