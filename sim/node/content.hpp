#pragma once
// The real content of a version of a data handle. In a simulation versions have only digests
// (no content: null references, nothing allocated); on the MPI backend every version in memory
// has its real buffer. Contents are immutable once made, so a checkpoint, a pinned version or a
// message in flight shares the buffer instead of copying it (copy-on-write for free).
#include <cstdint>
#include <memory>
#include <vector>

namespace ftsim::node {

using Content = std::vector<std::uint8_t>;
using ContentRef = std::shared_ptr<const Content>;

}  // namespace ftsim::node
