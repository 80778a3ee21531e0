#pragma once
// Trace: what a run did, as checkpoint-recovery theory sees it (docs/trace-format.md). A set of
// processes; each one's events in its local order: checkpoints, sends and receives of messages.
//
//   - Every process starts in its initial state, checkpoint 0; its listed checkpoints are
//     numbered 1, 2, ... in order.
//   - A position in a process's history is the number of its send and receive events before it.
//     Checkpoint k sits at a position (checkpoint 0 at position 0); several checkpoints may share
//     one. A cut gives each process a position.
//   - A message has a unique id (a string, interned to a dense MessageId), one sender and one
//     receiver, at most one receive (a message never received was in transit when the trace
//     ended) and a `logged` flag: its sender keeps it in a log and can replay it.
//   - Times (seconds) and bytes are optional; the analysis never reads them.
//
// Memory: struct of arrays, no heap allocation per event or message. A process's send and
// receive events are one 32-bit word each (message id << 1 | is_receive); checkpoints are their
// positions. Build one with TraceBuilder (trace_builder.hpp) or read_trace_json
// (trace_json_reader.hpp); write one with write_trace_json (trace_json_writer.hpp).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/message_names.hpp"

namespace ftsim::analysis {

using ProcessId = std::uint32_t;
using Position = std::uint32_t;         // send and receive events before a point of a process
using CheckpointIndex = std::uint32_t;  // 0 = the initial state, then 1, 2, ... in local order

inline constexpr Position kNeverReceived = std::numeric_limits<Position>::max();
inline constexpr ProcessId kNoProcess = std::numeric_limits<ProcessId>::max();
inline constexpr std::uint64_t kNoBytes = std::numeric_limits<std::uint64_t>::max();
inline constexpr double kNoTime = std::numeric_limits<double>::quiet_NaN();

class Trace {
public:
  // --- processes ---
  std::size_t process_count() const { return processes_.size(); }
  const std::string& process_name(ProcessId p) const { return processes_[p].name; }  // "" if none
  // Send and receive events of p: event at position i, for i < communication_count(p).
  Position communication_count(ProcessId p) const { return Position(processes_[p].communications.size()); }
  MessageId message_at(ProcessId p, Position i) const { return processes_[p].communications[i] >> 1; }
  bool is_receive_at(ProcessId p, Position i) const { return (processes_[p].communications[i] & 1u) != 0; }
  // Checkpoints 1 .. checkpoint_count(p) (checkpoint 0, the initial state, is not counted).
  CheckpointIndex checkpoint_count(ProcessId p) const { return CheckpointIndex(processes_[p].checkpoints.size()); }
  Position checkpoint_position(ProcessId p, CheckpointIndex k) const {
    return k == 0 ? 0 : processes_[p].checkpoints[k - 1];
  }
  // The positions of checkpoints 1 .. K, non-decreasing.
  const std::vector<Position>& checkpoint_positions(ProcessId p) const { return processes_[p].checkpoints; }
  double checkpoint_time(ProcessId p, CheckpointIndex k) const {
    return processes_[p].checkpoint_times.empty() || k == 0 ? kNoTime : processes_[p].checkpoint_times[k - 1];
  }
  // Every event of p (checkpoints 1.. K, sends, receives).
  std::size_t event_count(ProcessId p) const { return communication_count(p) + checkpoint_count(p); }
  // Where an event is in p's local order (its index in the trace file's "events" array).
  std::size_t event_index_of_communication(ProcessId p, Position i) const;
  std::size_t event_index_of_checkpoint(ProcessId p, CheckpointIndex k) const { return checkpoint_position(p, k) + k - 1; }
  // Total events of all processes.
  std::size_t total_event_count() const;

  // --- messages ---
  std::size_t message_count() const { return sender_.size(); }
  std::string_view message_name(MessageId m) const { return names_.name(m); }
  std::optional<MessageId> find_message(std::string_view name) const { return names_.find(name); }
  ProcessId sender(MessageId m) const { return sender_[m]; }
  ProcessId receiver(MessageId m) const { return receiver_[m]; }  // the send's "to"
  Position send_position(MessageId m) const { return send_position_[m]; }
  // kNeverReceived if the trace ends with the message in transit.
  Position receive_position(MessageId m) const { return receive_position_[m]; }
  bool received(MessageId m) const { return receive_position_[m] != kNeverReceived; }
  bool logged(MessageId m) const { return logged_[m] != 0; }
  std::uint64_t bytes(MessageId m) const { return bytes_.empty() ? kNoBytes : bytes_[m]; }  // kNoBytes if absent
  double send_time(MessageId m) const { return send_time_.empty() ? kNoTime : send_time_[m]; }
  double receive_time(MessageId m) const { return receive_time_.empty() ? kNoTime : receive_time_[m]; }

  // Free-form "metadata" object of the trace file (null if none): not interpreted, written back.
  const nlohmann::json& metadata() const { return metadata_; }
  void set_metadata(nlohmann::json metadata) { metadata_ = std::move(metadata); }

private:
  friend class TraceBuilder;

  struct ProcessHistory {
    std::string name;
    std::vector<std::uint32_t> communications;  // message << 1 | is_receive
    std::vector<Position> checkpoints;          // position of checkpoint k + 1
    std::vector<double> checkpoint_times;       // empty, or one per checkpoint (NaN if absent)
  };

  std::vector<ProcessHistory> processes_;
  MessageNames names_;
  std::vector<ProcessId> sender_, receiver_;
  std::vector<Position> send_position_, receive_position_;
  std::vector<std::uint8_t> logged_;
  std::vector<std::uint64_t> bytes_;            // empty, or one per message (kNoBytes if absent)
  std::vector<double> send_time_, receive_time_;  // empty, or one per message (NaN if absent)
  nlohmann::json metadata_;
};

}  // namespace ftsim::analysis
