// check_numerics: the finals checked against an independent sequential computation, per
// application (the checks themselves are in <application>_check.cpp).
#include "graphs/apps/kernels/kernel_support.hpp"

namespace ftsim::graphs::kernels {

std::vector<NumericCheck> check_numerics(const config::Config& config, const graphs::TaskGraph& graph,
                                         std::span<const Buffer> finals) {
  if (finals.size() != graph.handle_count()) {
    throw KernelError("check_numerics: " + std::to_string(finals.size()) + " final buffers for " +
                      std::to_string(graph.handle_count()) + " handles");
  }
  for (graphs::HandleId h = 0; h < graph.handle_count(); ++h) {
    if (finals[h].size() != graph.bytes(h)) {
      throw KernelError("check_numerics: final buffer of " + graph.handle_name(h) + " has " +
                        std::to_string(finals[h].size()) + " bytes, expected " + std::to_string(graph.bytes(h)));
    }
  }
  switch (config.application.type) {
    case config::ApplicationType::cholesky: return detail::check_cholesky(config, graph, finals);
    case config::ApplicationType::stencil: return detail::check_stencil(config, graph, finals);
    case config::ApplicationType::cg: return detail::check_cg(config, graph, finals);
    case config::ApplicationType::spmd:
    case config::ApplicationType::json:
    case config::ApplicationType::wfformat:
    case config::ApplicationType::dot: break;
  }
  // Synthetic bytes have no mathematical meaning: the failure-free comparison is the only oracle.
  return {NumericCheck{"synthetic", 0, 0, true, "synthetic kernels: checked bit-exact against the failure-free run only"}};
}

}  // namespace ftsim::graphs::kernels
