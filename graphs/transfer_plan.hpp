#pragma once
// The transfer plan: every (handle, version) that moves between nodes, inferred at submission
// with the StarPU-MPI cache rule (a node receives a given version once; a new write invalidates
// the remote copies). Transfers are stored in STF order, that is by consumer task.
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::graphs {

struct Transfer {
  HandleId handle;
  Version version;
  NodeId source;       // where the version is produced
  NodeId destination;
  TaskId consumer;     // the first task on the destination that needs it
};

class TransferPlan {
public:
  std::size_t size() const { return transfers_.size(); }
  const Transfer& operator[](std::size_t i) const { return transfers_[i]; }
  std::span<const Transfer> all() const { return transfers_; }
  auto begin() const { return transfers_.begin(); }
  auto end() const { return transfers_.end(); }
  // The transfers whose first consumer is task t (a contiguous range).
  std::span<const Transfer> for_consumer(TaskId t) const {
    auto lower = std::lower_bound(transfers_.begin(), transfers_.end(), t,
                                  [](const Transfer& x, TaskId id) { return x.consumer < id; });
    auto upper = std::upper_bound(lower, transfers_.end(), t,
                                  [](TaskId id, const Transfer& x) { return id < x.consumer; });
    return {lower, upper};
  }
  // Reads satisfied by a cached copy instead of a new transfer.
  std::uint64_t cache_hits() const { return cache_hits_; }

private:
  friend class StfBuilder;
  std::vector<Transfer> transfers_;
  std::uint64_t cache_hits_ = 0;
};

}  // namespace ftsim::graphs
