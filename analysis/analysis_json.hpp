#pragma once
// The documents of `ftsim analyze --json` and of ftsim.analyze() in Python (docs/analysis.md
// lists every key). Written as text directly: a trace of millions of messages may have millions
// of messages to replay, which a JSON object tree would hold at ~100 bytes each.
#include <string>

#include "analysis/failure_analysis.hpp"
#include "analysis/trace.hpp"

namespace ftsim::analysis {

// {"format": "ftsim-analysis", "trace": {...sizes}, "determinism", "failed", "recovery_line",
//  "positions", "rolled_back", "domino", "rollback_distance", "events_undone",
//  "messages_to_replay", "lost_messages", "orphan_messages", "useless_checkpoints", "z_cycles"}
std::string failure_analysis_json(const Trace& trace, const FailureAnalysis& analysis);

// {"format": "ftsim-analysis", "trace": {...}, "determinism", "each": true,
//  "mean_rolled_back_percent", "per_failure": [{"failed", "rolled_back", "rolled_back_percent",
//  "domino", "events_undone", "messages_to_replay"}], "times_rolled_back": [...],
//  "useless_checkpoints", "z_cycles"}
std::string each_failure_json(const Trace& trace, const EachFailureSummary& summary, const UselessCheckpoints& useless);

}  // namespace ftsim::analysis
