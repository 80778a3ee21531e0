#include "analysis/recovery_line.hpp"

#include <algorithm>
#include <stdexcept>

namespace ftsim::analysis {

const char* determinism_name(Determinism rule) { return rule == Determinism::piecewise ? "piecewise" : "send"; }

Determinism parse_determinism(const std::string& word) {
  if (word == "piecewise") return Determinism::piecewise;
  if (word == "send") return Determinism::send;
  throw std::invalid_argument("determinism: expected \"piecewise\" or \"send\", got \"" + word + "\"");
}

namespace {

// The number of checkpoints of p at or before position x: the index of its latest one there.
CheckpointIndex latest_checkpoint_at_or_before(const Trace& trace, ProcessId p, Position x) {
  const auto& positions = trace.checkpoint_positions(p);
  return CheckpointIndex(std::upper_bound(positions.begin(), positions.end(), x) - positions.begin());
}

}  // namespace

RecoveryLine compute_recovery_line(const Trace& trace, std::span<const ProcessId> failed, Determinism rule) {
  const std::size_t processes = trace.process_count();
  RecoveryLine line;
  line.rule = rule;
  line.failed.assign(failed.begin(), failed.end());
  std::sort(line.failed.begin(), line.failed.end());
  line.failed.erase(std::unique(line.failed.begin(), line.failed.end()), line.failed.end());
  if (line.failed.empty()) throw std::invalid_argument("no failed process given");
  for (ProcessId p : line.failed) {
    if (p >= processes) {
      throw std::invalid_argument("failed process " + std::to_string(p) + " does not exist (the trace has " +
                                  std::to_string(processes) + " processes, 0 to " +
                                  std::to_string(processes == 0 ? 0 : processes - 1) + ")");
    }
  }

  std::vector<Position>& position = line.positions;
  position.resize(processes);
  // Events of p in [position[p], unscanned_end[p]) have left the cut but were not looked at yet.
  std::vector<Position> unscanned_end(processes);
  std::vector<ProcessId> worklist;
  std::vector<std::uint8_t> queued(processes, 0);
  for (ProcessId p = 0; p < processes; ++p) position[p] = unscanned_end[p] = trace.communication_count(p);
  // Moves q back to its latest checkpoint at or before position x, if that is a move back.
  auto roll_back_to = [&](ProcessId q, Position x) {
    const Position target = trace.checkpoint_position(q, latest_checkpoint_at_or_before(trace, q, x));
    if (target >= position[q]) return;
    position[q] = target;
    if (!queued[q]) {
      queued[q] = 1;
      worklist.push_back(q);
    }
  };
  for (ProcessId p : line.failed) {
    const Position last = trace.checkpoint_position(p, trace.checkpoint_count(p));
    position[p] = last;
    queued[p] = 1;
    worklist.push_back(p);
  }

  while (!worklist.empty()) {
    const ProcessId p = worklist.back();
    worklist.pop_back();
    queued[p] = 0;
    // position[p] may drop while scanning (a message to itself): the rest is scanned when p
    // comes off the worklist again.
    const Position from = position[p], to = unscanned_end[p];
    unscanned_end[p] = from;
    for (Position i = from; i < to; ++i) {
      const MessageId m = trace.message_at(p, i);
      if (rule == Determinism::piecewise) {
        // A send leaves the cut: its receive must leave too (no orphan).
        if (!trace.is_receive_at(p, i) && trace.received(m)) {
          const ProcessId r = trace.receiver(m);
          if (trace.receive_position(m) < position[r]) roll_back_to(r, trace.receive_position(m));
        }
      } else {
        // A receive leaves the cut: an unlogged message must be sent again, by its sender's
        // re-execution.
        if (trace.is_receive_at(p, i) && !trace.logged(m)) {
          const ProcessId s = trace.sender(m);
          if (trace.send_position(m) < position[s]) roll_back_to(s, trace.send_position(m));
        }
      }
    }
  }

  line.checkpoints.resize(processes);
  line.rollback_distance.resize(processes);
  std::vector<std::uint8_t> is_failed(processes, 0);
  for (ProcessId p : line.failed) is_failed[p] = 1;
  bool all_at_initial_state = true;
  for (ProcessId p = 0; p < processes; ++p) {
    const Position end = trace.communication_count(p);
    if (is_failed[p] || position[p] < end) {
      line.checkpoints[p] = latest_checkpoint_at_or_before(trace, p, position[p]);
      ++line.rolled_back;
    }
    all_at_initial_state = all_at_initial_state && line.checkpoints[p] == CheckpointIndex(0);
    line.rollback_distance[p] = end - position[p];
  }
  line.domino = all_at_initial_state;
  return line;
}

LineMessages classify_messages(const Trace& trace, const RecoveryLine& line) {
  // Every crossing message has its send or its receive in an undone suffix: scan only those.
  LineMessages result;
  for (ProcessId p = 0; p < trace.process_count(); ++p) {
    for (Position i = line.positions[p]; i < trace.communication_count(p); ++i) {
      const MessageId m = trace.message_at(p, i);
      if (trace.is_receive_at(p, i)) {
        if (trace.send_position(m) < line.positions[trace.sender(m)]) {
          (trace.logged(m) ? result.to_replay : result.lost).push_back(m);
        }
      } else if (trace.received(m) && trace.receive_position(m) < line.positions[trace.receiver(m)]) {
        result.orphans.push_back(m);
      }
    }
  }
  return result;
}

}  // namespace ftsim::analysis
