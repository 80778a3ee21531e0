#pragma once
// Useless checkpoints and the Z-cycles that prove them (Netzer & Xu 1995; docs/analysis.md).
// A checkpoint is useless when no consistent global checkpoint contains it: no cut made of one
// checkpoint per process (each process's final state counting as its last checkpoint, Wang's
// volatile checkpoint) and without orphan messages (the piecewise rule) goes through it. Netzer
// and Xu: exactly the checkpoints on a Z-cycle, a Z-path from the checkpoint back to itself.
//
// Found in linear time on the rollback-dependency graph: C(p,k) is useless iff C(p,k) and
// C(p,k+1) are in one strongly connected component. One Z-cycle per useless checkpoint, the
// shortest (a breadth-first search inside the component) while the work stays under
// `shortest_search_budget` edge visits, then a walk through one root per component (two
// searches per component, linear; the cycle may repeat a message).
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/trace.hpp"

namespace ftsim::analysis {

struct ZCycle {
  ProcessId process = 0;
  CheckpointIndex checkpoint = 0;
  // m1 sent by the process after the checkpoint, each next one sent by the previous one's
  // receiver in the same or a later checkpoint interval than that receive, the last one
  // received by the process before the checkpoint.
  std::vector<MessageId> messages;
};

struct UselessCheckpoints {
  std::vector<std::pair<ProcessId, CheckpointIndex>> checkpoints;  // sorted
  std::vector<ZCycle> z_cycles;                                    // same order, if asked for
};

inline constexpr std::uint64_t kDefaultShortestSearchBudget = 50'000'000;

UselessCheckpoints find_useless_checkpoints(const Trace& trace, bool with_z_cycles = true,
                                            std::uint64_t shortest_search_budget = kDefaultShortestSearchBudget);

// Whether `messages` is a Z-path from C(p,k) back to C(p,k) in `trace` (checks the definition
// directly, not through the R-graph).
bool is_z_cycle(const Trace& trace, ProcessId p, CheckpointIndex k, const std::vector<MessageId>& messages);

}  // namespace ftsim::analysis
