// The kernel-set factory (dispatch on the application), the buffer checksum and small shared
// helpers.
#include "graphs/apps/kernels/kernels.hpp"

#include <cblas.h>

#include <mutex>

#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels {

KernelSet::~KernelSet() = default;

std::unique_ptr<KernelSet> KernelSet::make(const config::Config& config, const graphs::TaskGraph& graph) {
  switch (config.application.type) {
    case config::ApplicationType::cholesky: return detail::make_cholesky_kernels(config, graph);
    case config::ApplicationType::stencil: return detail::make_stencil_kernels(config, graph);
    case config::ApplicationType::cg: return detail::make_cg_kernels(config, graph);
    case config::ApplicationType::spmd:
    case config::ApplicationType::json:
    case config::ApplicationType::wfformat:
    case config::ApplicationType::dot: return detail::make_synthetic_kernels(config, graph);
  }
  throw KernelError("/application/type: no real kernels for this application");
}

std::uint64_t checksum(std::span<const std::uint8_t> bytes) {
  // Word-at-a-time multiply-rotate (8 bytes per step, so checksumming large tiles stays cheap),
  // seeded with the length; the tail word is zero-padded, the length tells it apart.
  constexpr std::uint64_t k1 = 0x9e3779b97f4a7c15ULL, k2 = 0xc2b2ae3d27d4eb4fULL;
  std::uint64_t h = 0x27d4eb2f165667c5ULL ^ (bytes.size() * k1);
  std::size_t i = 0;
  auto step = [&](std::uint64_t word) {
    h ^= std::rotl(word * k2, 31) * k1;
    h = std::rotl(h, 27) * k1 + 0x52dce729ULL;
  };
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    step(word);
  }
  if (i < bytes.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes.data() + i, bytes.size() - i);
    step(word);
  }
  return detail::splitmix64(h);
}

namespace detail {

std::map<LabelKey, graphs::HandleId> handles_of(const graphs::TaskGraph& graph, const std::string& family) {
  std::map<LabelKey, graphs::HandleId> result;
  for (graphs::HandleId h = 0; h < graph.handle_count(); ++h) {
    if (graph.handle_family(h) != family) continue;
    const graphs::Label l = graph.handle_label(h);
    result[{l.a, l.b, l.c}] = h;
  }
  return result;
}

graphs::HandleId handle_at(const std::map<LabelKey, graphs::HandleId>& handles, LabelKey key, const char* family) {
  auto it = handles.find(key);
  if (it == handles.end()) {
    throw KernelError(std::string("the task graph has no handle ") + family + "(" + std::to_string(std::get<0>(key)) +
                      "," + std::to_string(std::get<1>(key)) + "," + std::to_string(std::get<2>(key)) + ")");
  }
  return it->second;
}

void require_double(config::Precision precision) {
  if (precision != config::Precision::double_precision) {
    throw KernelError(std::string("/application/precision: the MPI backend runs double precision only, got \"") +
                      config::to_string(precision) + "\"");
  }
}

void single_threaded_blas() {
  // Worker threads already use every core, and a threaded BLAS would oversubscribe them; one
  // thread per call also keeps results independent of the thread count. OPENBLAS_NUM_THREADS=1
  // in the environment does the same before the library starts its pool.
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

}  // namespace detail
}  // namespace ftsim::graphs::kernels
