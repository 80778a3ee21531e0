#pragma once
// The recovery line of a failure (docs/analysis.md): the latest cut from which the run can
// restart when the `failed` processes fail at the end of the trace. In it every failed process
// is at one of its checkpoints, every other process at one of its checkpoints or at its final
// state (it keeps its state), and no message breaks the rule of the processes' determinism:
//
//   piecewise  piecewise-deterministic processes without logging (Randell 1975; Elnozahy et al.
//              2002): no orphan message, i.e. none received inside the cut and sent outside it.
//   send       send-deterministic processes (Guermouche et al. 2011): orphans are allowed (the
//              sender will send them again, identical); a message sent inside the cut and
//              received outside it must be logged, otherwise its sender rolls back before it.
//
// Both sets of allowed cuts are closed under the component-wise maximum, so the latest one is
// unique. It is computed by rollback propagation to a fixpoint: start from the failed processes
// at their last checkpoints and the others at their final states; while a message breaks the
// rule, move the process that must move back to its latest checkpoint before the event. Every
// event is looked at most once: linear in the events undone (plus a binary search per move).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/trace.hpp"

namespace ftsim::analysis {

enum class Determinism { piecewise, send };

// "piecewise" / "send"; parse_determinism throws std::invalid_argument on another word.
const char* determinism_name(Determinism rule);
Determinism parse_determinism(const std::string& word);

struct RecoveryLine {
  Determinism rule = Determinism::piecewise;
  std::vector<ProcessId> failed;  // sorted, distinct
  // Per process: where it restarts (a position, see trace.hpp) and from which checkpoint, or
  // nullopt if it keeps its final state. Among checkpoints at the same position, the latest.
  std::vector<Position> positions;
  std::vector<std::optional<CheckpointIndex>> checkpoints;
  // Per process: the send and receive events undone (its event count minus its position).
  std::vector<Position> rollback_distance;
  std::size_t rolled_back = 0;  // processes with a checkpoint
  bool domino = false;          // every process restarts from checkpoint 0, its initial state
};

// Throws std::invalid_argument if a failed process does not exist or none is given.
RecoveryLine compute_recovery_line(const Trace& trace, std::span<const ProcessId> failed, Determinism rule);

// The messages that cross a recovery line.
struct LineMessages {
  // Logged messages sent inside the line and received outside it: replayed from the logs.
  std::vector<MessageId> to_replay;
  // Unlogged messages sent inside and received outside (piecewise rule only; the send rule does
  // not allow them): lost unless the channel state is recorded.
  std::vector<MessageId> lost;
  // Messages received inside and sent outside (send rule only): sent again by the re-execution,
  // the receiver must recognise the copy.
  std::vector<MessageId> orphans;
};

LineMessages classify_messages(const Trace& trace, const RecoveryLine& line);

}  // namespace ftsim::analysis
