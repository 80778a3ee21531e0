#include "analysis/failure_analysis.hpp"

namespace ftsim::analysis {

FailureAnalysis analyze_failure(const Trace& trace, std::span<const ProcessId> failed, Determinism rule,
                                bool with_z_cycles) {
  FailureAnalysis result;
  result.line = compute_recovery_line(trace, failed, rule);
  result.messages = classify_messages(trace, result.line);
  result.useless = find_useless_checkpoints(trace, with_z_cycles);
  return result;
}

EachFailureSummary analyze_each_failure(const Trace& trace, Determinism rule) {
  const std::size_t processes = trace.process_count();
  EachFailureSummary summary;
  summary.rule = rule;
  summary.rolled_back.resize(processes);
  summary.domino.resize(processes);
  summary.events_undone.resize(processes);
  summary.messages_to_replay.resize(processes);
  summary.times_rolled_back.assign(processes, 0);
  double percent_sum = 0;
  for (ProcessId failed = 0; failed < processes; ++failed) {
    const ProcessId one[] = {failed};
    const RecoveryLine line = compute_recovery_line(trace, one, rule);
    summary.rolled_back[failed] = std::uint32_t(line.rolled_back);
    summary.domino[failed] = line.domino ? 1 : 0;
    std::uint64_t undone = 0;
    for (ProcessId p = 0; p < processes; ++p) {
      undone += line.rollback_distance[p];
      if (line.checkpoints[p]) ++summary.times_rolled_back[p];
    }
    summary.events_undone[failed] = undone;
    summary.messages_to_replay[failed] = classify_messages(trace, line).to_replay.size();
    percent_sum += 100.0 * double(line.rolled_back) / double(processes);
  }
  summary.mean_rolled_back_percent = processes == 0 ? 0 : percent_sum / double(processes);
  return summary;
}

}  // namespace ftsim::analysis
