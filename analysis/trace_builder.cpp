#include "analysis/trace_builder.hpp"

#include <cmath>
#include <stdexcept>

#include "analysis/causal_order.hpp"

namespace ftsim::analysis {

namespace {
std::string quoted(std::string_view id) {
  std::string text = "\"";
  for (char c : id) {
    if (c == '"' || c == '\\') text += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      text += "?";
      continue;
    }
    text += c;
  }
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text + "\"";
}
}  // namespace

TraceBuilder::TraceBuilder(std::size_t processes) { trace_.processes_.resize(processes); }

ProcessId TraceBuilder::add_process(std::string name) {
  if (trace_.processes_.size() >= kNoProcess) throw std::length_error("too many processes");
  trace_.processes_.push_back({});
  trace_.processes_.back().name = std::move(name);
  return ProcessId(trace_.processes_.size() - 1);
}

void TraceBuilder::set_process_name(ProcessId p, std::string name) {
  check_process(p);
  trace_.processes_[p].name = std::move(name);
}

void TraceBuilder::check_process(ProcessId p) const {
  if (p >= trace_.processes_.size()) {
    throw TraceError("", TraceLocation::at_pointer(""),
                     "process " + std::to_string(p) + " does not exist (the trace has " +
                         std::to_string(trace_.processes_.size()) + " processes)");
  }
}

void TraceBuilder::fail_here(ProcessId p, std::string message) const {
  throw TraceError("", TraceLocation::at_event(p, trace_.event_count(p)), std::move(message));
}

void TraceBuilder::reserve_messages(std::size_t messages, std::size_t name_characters) {
  trace_.names_.reserve(messages, name_characters);
  for (auto* v : {&trace_.sender_, &trace_.receiver_, &trace_.send_position_, &trace_.receive_position_}) {
    v->reserve(messages);
  }
  trace_.logged_.reserve(messages);
  destination_.reserve(messages);
  received_by_.reserve(messages);
}

CheckpointIndex TraceBuilder::add_checkpoint(ProcessId p, double time) {
  check_process(p);
  auto& history = trace_.processes_[p];
  // Times are kept once one checkpoint of the process has one.
  if (!std::isnan(time) || !history.checkpoint_times.empty()) {
    history.checkpoint_times.resize(history.checkpoints.size(), kNoTime);
    history.checkpoint_times.push_back(time);
  }
  history.checkpoints.push_back(Position(history.communications.size()));
  return CheckpointIndex(history.checkpoints.size());
}

MessageId TraceBuilder::intern(ProcessId p, std::string_view id) {
  if (id.empty()) fail_here(p, "a message id must not be empty");
  const auto [m, created] = trace_.names_.intern(id);
  if (created) {
    trace_.sender_.push_back(kNoProcess);
    trace_.receiver_.push_back(kNoProcess);
    trace_.send_position_.push_back(0);
    trace_.receive_position_.push_back(kNeverReceived);
    trace_.logged_.push_back(0);
    destination_.push_back(0);
    received_by_.push_back(kNoProcess);
    if (!trace_.bytes_.empty()) trace_.bytes_.push_back(kNoBytes);
    if (!trace_.send_time_.empty()) {
      trace_.send_time_.push_back(kNoTime);
      trace_.receive_time_.push_back(kNoTime);
    }
  }
  return m;
}

void TraceBuilder::add_send(ProcessId p, std::string_view id, std::uint64_t to, bool logged, std::uint64_t bytes,
                            double time) {
  check_process(p);
  auto& history = trace_.processes_[p];
  if (history.communications.size() >= kNeverReceived - 1) fail_here(p, "too many events in one process");
  const MessageId m = intern(p, id);
  if (trace_.sender_[m] != kNoProcess) {
    fail_here(p, "message " + quoted(id) + " sent twice (first by process " + std::to_string(trace_.sender_[m]) +
                     ", event " +
                     std::to_string(trace_.event_index_of_communication(trace_.sender_[m], trace_.send_position_[m])) +
                     "); message ids must be unique");
  }
  if (received_by_[m] != kNoProcess && received_by_[m] != to) {
    fail_here(p, "message " + quoted(id) + " is sent to process " + std::to_string(to) + " but received by process " +
                     std::to_string(received_by_[m]) + " (event " +
                     std::to_string(trace_.event_index_of_communication(received_by_[m], trace_.receive_position_[m])) +
                     ")");
  }
  const Position position = Position(history.communications.size());
  trace_.sender_[m] = p;
  trace_.receiver_[m] = to < kNoProcess ? ProcessId(to) : kNoProcess;
  destination_[m] = to;
  trace_.send_position_[m] = position;
  trace_.logged_[m] = logged ? 1 : 0;
  if (bytes != kNoBytes) {
    if (trace_.bytes_.empty()) trace_.bytes_.assign(trace_.sender_.size(), kNoBytes);
    trace_.bytes_[m] = bytes;
  }
  if (!std::isnan(time)) {
    if (trace_.send_time_.empty()) {
      trace_.send_time_.assign(trace_.sender_.size(), kNoTime);
      trace_.receive_time_.assign(trace_.sender_.size(), kNoTime);
    }
    trace_.send_time_[m] = time;
  }
  history.communications.push_back(std::uint32_t(m) << 1);
}

void TraceBuilder::add_receive(ProcessId p, std::string_view id, double time) {
  check_process(p);
  auto& history = trace_.processes_[p];
  if (history.communications.size() >= kNeverReceived - 1) fail_here(p, "too many events in one process");
  const MessageId m = intern(p, id);
  if (received_by_[m] != kNoProcess) {
    fail_here(p, "message " + quoted(id) + " received twice (first by process " + std::to_string(received_by_[m]) +
                     ", event " +
                     std::to_string(trace_.event_index_of_communication(received_by_[m], trace_.receive_position_[m])) +
                     ")");
  }
  if (trace_.sender_[m] != kNoProcess && destination_[m] != p) {
    fail_here(p, "message " + quoted(id) + " is received by process " + std::to_string(p) + " but was sent to process " +
                     std::to_string(destination_[m]) + " (process " + std::to_string(trace_.sender_[m]) + ", event " +
                     std::to_string(trace_.event_index_of_communication(trace_.sender_[m], trace_.send_position_[m])) +
                     ")");
  }
  received_by_[m] = p;
  trace_.receive_position_[m] = Position(history.communications.size());
  if (!std::isnan(time)) {
    if (trace_.send_time_.empty()) {
      trace_.send_time_.assign(trace_.sender_.size(), kNoTime);
      trace_.receive_time_.assign(trace_.sender_.size(), kNoTime);
    }
    trace_.receive_time_[m] = time;
  }
  history.communications.push_back((std::uint32_t(m) << 1) | 1u);
}

Trace TraceBuilder::build() && {
  const std::size_t processes = trace_.processes_.size();
  // A receive without its send: the first one in process order, then local order.
  std::optional<std::pair<ProcessId, Position>> orphan_receive;
  std::optional<std::pair<ProcessId, Position>> bad_destination;
  for (MessageId m = 0; m < trace_.sender_.size(); ++m) {
    if (trace_.sender_[m] == kNoProcess) {
      std::pair<ProcessId, Position> at{received_by_[m], trace_.receive_position_[m]};
      if (!orphan_receive || at < *orphan_receive) orphan_receive = at;
    } else if (destination_[m] >= processes) {
      std::pair<ProcessId, Position> at{trace_.sender_[m], trace_.send_position_[m]};
      if (!bad_destination || at < *bad_destination) bad_destination = at;
    }
  }
  if (orphan_receive) {
    const auto [p, i] = *orphan_receive;
    throw TraceError("", TraceLocation::at_event(p, trace_.event_index_of_communication(p, i)),
                     "receive of " + quoted(trace_.message_name(trace_.message_at(p, i))) +
                         " without its send (no process sends a message with this id)");
  }
  if (bad_destination) {
    const auto [p, i] = *bad_destination;
    const MessageId m = trace_.message_at(p, i);
    throw TraceError("", TraceLocation::at_event(p, trace_.event_index_of_communication(p, i)),
                     "send of " + quoted(trace_.message_name(m)) + " to process " + std::to_string(destination_[m]) +
                         ", which does not exist (processes are numbered 0 to " +
                         (processes == 0 ? std::string("-1") : std::to_string(processes - 1)) + ")");
  }
  if (const auto cycle = find_causal_cycle(trace_)) {
    const MessageId m = trace_.message_at(cycle->process, cycle->position);
    throw TraceError("", TraceLocation::at_event(cycle->process, trace_.event_index_of_communication(cycle->process, cycle->position)),
                     "receive of " + quoted(trace_.message_name(m)) + " would happen before its own send (process " +
                         std::to_string(trace_.sender_[m]) + ", event " +
                         std::to_string(trace_.event_index_of_communication(trace_.sender_[m], trace_.send_position_[m])) +
                         "): the events form a causal cycle");
  }
  destination_ = {};
  received_by_ = {};
  return std::move(trace_);
}

}  // namespace ftsim::analysis
