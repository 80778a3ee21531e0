// The synthetic kernel of spmd and json graphs, whose tasks have no mathematical meaning: every
// written byte is a seeded stream of (task, input checksums), so a wrong or stale input changes
// the output, and the task busy-waits its cost-model duration so that it costs what the model says.
#include <chrono>
#include <cmath>

#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels::detail {

namespace {

class SyntheticKernels final : public KernelSet {
public:
  SyntheticKernels(const config::Config& config, const graphs::TaskGraph& graph)
      : graph_(graph), seed_(mix(config.seed, kSyntheticSalt)) {}

  void initial(graphs::HandleId h, std::span<std::uint8_t> out) const override {
    const graphs::Label l = graph_.handle_label(h);
    std::uint64_t state = mix_string(seed_, graph_.handle_family(h));
    state = mix(mix(mix(mix(state, std::uint32_t(l.a)), std::uint32_t(l.b)), std::uint32_t(l.c)), h);
    fill_stream(state, out);
  }

  void execute(graphs::TaskId t, std::span<const std::span<std::uint8_t>> data, double seconds) const override {
    const auto start = std::chrono::steady_clock::now();
    const auto accesses = graph_.accesses(t);
    if (data.size() != accesses.size()) throw KernelError(graph_.task_name(t) + ": wrong number of buffers");
    std::uint64_t state = mix(mix(seed_, t), graph_.kernel(t));
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      if (graphs::reads(accesses[a].mode)) state = mix(state, checksum(data[a]));
    }
    for (std::size_t a = 0; a < accesses.size(); ++a) {
      if (graphs::writes(accesses[a].mode)) fill_stream(mix(state, a), data[a]);
    }
    // Spin rather than sleep: a sleeping worker would free its core, which the model says is busy.
    if (std::isfinite(seconds) && seconds > 0) {
      const auto end = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(seconds));
      while (std::chrono::steady_clock::now() < end) {
      }
    }
  }

private:
  const graphs::TaskGraph& graph_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<KernelSet> make_synthetic_kernels(const config::Config& config, const graphs::TaskGraph& graph) {
  return std::make_unique<SyntheticKernels>(config, graph);
}

}  // namespace ftsim::graphs::kernels::detail
