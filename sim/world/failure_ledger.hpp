#pragma once
// FailureLedger: the run's failure records (RunMetrics::failures), found by the node and the
// incarnation that failed, and how many are not recovered yet. Kept by whatever knows true
// liveness: the Simulation, or the MPI backend's driver rank.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/node/run_metrics.hpp"

namespace ftsim::world {

using graphs::NodeId;

class FailureLedger {
public:
  FailureLedger(std::vector<node::FailureRecord>& records, NodeId processes) : records_(records), index_(processes) {}

  // The next failure's index in the records (the observer files lost work under it).
  std::size_t next_index() const { return records_.size(); }
  // Records the failure of `node`'s incarnation `incarnation`, unrecovered.
  void add(NodeId node, std::uint32_t incarnation, node::FailureRecord record) {
    index_[node].resize(incarnation + 1, kNone);
    index_[node][incarnation] = records_.size();
    records_.push_back(record);
    ++unrecovered_;
  }
  // The record of that failure; null if there is none.
  node::FailureRecord* find(NodeId node, std::uint32_t incarnation) {
    if (node >= index_.size() || incarnation >= index_[node].size()) return nullptr;
    const std::size_t index = index_[node][incarnation];
    return index < records_.size() ? &records_[index] : nullptr;
  }
  // The protocol reported that failure recovered at `time`: false if it was not open.
  bool recovered(NodeId node, std::uint32_t incarnation, double time) {
    node::FailureRecord* record = find(node, incarnation);
    if (!record || record->recovered_at >= 0) return false;
    record->recovered_at = time;
    --unrecovered_;
    return true;
  }
  std::size_t unrecovered() const { return unrecovered_; }

private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<node::FailureRecord>& records_;
  std::vector<std::vector<std::size_t>> index_;  // per node, per failed incarnation
  std::size_t unrecovered_ = 0;
};

}  // namespace ftsim::world
