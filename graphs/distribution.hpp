#pragma once
// Data distributions: which node owns each data block of an application.
//   block-cyclic P x Q (ScaLAPACK): tile (i, j) -> ((i / mb) % P) * Q + (j / nb) % Q, row-major
//   ranks; mb = nb = 1 is the classic 2D block-cyclic, mb = ceil(rows / P) a 2D block layout.
//   block (1D): block k of n -> floor(k * nodes / n), contiguous ranges.
//   explicit: a node per block, in the application's row-major block order.
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/config/config.hpp"

namespace ftsim::graphs {

class Distribution {
public:
  Distribution(const config::DistributionConfig& config, NodeId nodes);

  // Owner of tile (i, j) of a rows x cols grid of blocks.
  NodeId owner(std::uint32_t i, std::uint32_t j, std::uint32_t rows, std::uint32_t cols) const;
  // Owner of block k of a 1D sequence of n blocks.
  NodeId owner(std::uint64_t k, std::uint64_t n) const;

  NodeId nodes() const { return nodes_; }
  const config::DistributionConfig& config() const { return config_; }

private:
  config::DistributionConfig config_;
  NodeId nodes_;
};

}  // namespace ftsim::graphs
