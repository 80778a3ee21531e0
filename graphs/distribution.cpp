#include "graphs/distribution.hpp"

#include "graphs/stf_builder.hpp"

namespace ftsim::graphs {

using config::DistributionType;

Distribution::Distribution(const config::DistributionConfig& config, NodeId nodes)
    : config_(config), nodes_(nodes) {
  if (config_.type == DistributionType::block_cyclic &&
      std::uint64_t(config_.P) * config_.Q != nodes) {
    throw GraphError("block-cyclic grid P x Q = " + std::to_string(config_.P) + " x " +
                     std::to_string(config_.Q) + " does not match " + std::to_string(nodes) + " nodes");
  }
}

NodeId Distribution::owner(std::uint32_t i, std::uint32_t j, std::uint32_t rows, std::uint32_t cols) const {
  switch (config_.type) {
    case DistributionType::block_cyclic:
      return ((i / config_.block_rows) % config_.P) * config_.Q + (j / config_.block_cols) % config_.Q;
    case DistributionType::block:
    case DistributionType::explicit_map:
      return owner(std::uint64_t(i) * cols + j, std::uint64_t(rows) * cols);
  }
  return 0;
}

NodeId Distribution::owner(std::uint64_t k, std::uint64_t n) const {
  switch (config_.type) {
    case DistributionType::block_cyclic:
      // A 1D sequence on a P x Q grid: cyclic over the ranks in row-major order.
      return static_cast<NodeId>((k / config_.block_rows) % nodes_);
    case DistributionType::block:
      return static_cast<NodeId>(k * nodes_ / n);
    case DistributionType::explicit_map:
      if (k >= config_.owners.size()) {
        throw GraphError("explicit distribution has no owner for block " + std::to_string(k));
      }
      return config_.owners[k];
  }
  return 0;
}

}  // namespace ftsim::graphs
