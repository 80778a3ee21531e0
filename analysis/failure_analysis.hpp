#pragma once
// What `ftsim analyze` computes on a trace (docs/analysis.md): for one failure, the recovery
// line, the messages crossing it and the useless checkpoints; over every single failure in
// turn, how many processes roll back (Guermouche et al. 2011, Table I's %rl).
#include <cstdint>
#include <span>
#include <vector>

#include "analysis/recovery_line.hpp"
#include "analysis/trace.hpp"
#include "analysis/useless_checkpoints.hpp"

namespace ftsim::analysis {

struct FailureAnalysis {
  RecoveryLine line;
  LineMessages messages;
  UselessCheckpoints useless;  // independent of the failure and of the rule (piecewise, Netzer-Xu)
};

FailureAnalysis analyze_failure(const Trace& trace, std::span<const ProcessId> failed, Determinism rule,
                                bool with_z_cycles = true);

// The failure of each process alone, in turn.
struct EachFailureSummary {
  Determinism rule = Determinism::piecewise;
  // Indexed by the failed process.
  std::vector<std::uint32_t> rolled_back;       // processes rolled back
  std::vector<std::uint8_t> domino;
  std::vector<std::uint64_t> events_undone;     // sum of the rollback distances
  std::vector<std::uint64_t> messages_to_replay;
  // Indexed by process: in how many of the failures it rolls back (its own included).
  std::vector<std::uint32_t> times_rolled_back;
  // Mean over the failures of 100 * rolled_back / processes.
  double mean_rolled_back_percent = 0;
};

// One fixpoint per process, each linear in the events it undoes.
EachFailureSummary analyze_each_failure(const Trace& trace, Determinism rule);

}  // namespace ftsim::analysis
