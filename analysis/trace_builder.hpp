#pragma once
// TraceBuilder: makes a Trace event by event, for the JSON and SMPI readers and for a run that
// records its own trace. Events of different processes may come in any interleaving (a receive
// may even be added before its send: files list processes one after the other); each process's
// events come in its local order.
//
//   TraceBuilder builder(2);
//   builder.add_checkpoint(0);                      // checkpoint 1 of process 0
//   builder.add_send(0, "m1", /*to=*/1, /*logged=*/false);
//   builder.add_receive(1, "m1");
//   Trace trace = std::move(builder).build();
//
// Errors throw TraceError naming the process and the index of the event in its local order
// (no file: the readers add it): at once for a message sent twice, received twice or received by
// a process it was not sent to; in build() for a receive without its send, a destination that
// is not a process, and a causal cycle (a receive that happens before its own send).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/trace.hpp"
#include "analysis/trace_error.hpp"

namespace ftsim::analysis {

class TraceBuilder {
public:
  explicit TraceBuilder(std::size_t processes = 0);

  ProcessId add_process(std::string name = {});
  void set_process_name(ProcessId p, std::string name);
  std::size_t process_count() const { return trace_.processes_.size(); }

  // Returns the new checkpoint's number (1, 2, ... per process).
  CheckpointIndex add_checkpoint(ProcessId p, double time = kNoTime);
  // `to` is checked in build(): a reader may not know yet how many processes there are.
  void add_send(ProcessId p, std::string_view id, std::uint64_t to, bool logged = false,
                std::uint64_t bytes = kNoBytes, double time = kNoTime);
  void add_receive(ProcessId p, std::string_view id, double time = kNoTime);

  // Events added so far to p (its next event's index).
  std::size_t event_count(ProcessId p) const { return trace_.event_count(p); }
  // Capacity hints for large traces.
  void reserve_messages(std::size_t messages, std::size_t name_characters);
  // Asks the CPU to fetch the index entry of `id` ahead of its add_send / add_receive.
  void prefetch_message(std::string_view id) const { trace_.names_.prefetch(id); }

  void set_metadata(nlohmann::json metadata) { trace_.set_metadata(std::move(metadata)); }

  // Checks what could not be checked event by event and hands the trace over.
  Trace build() &&;

private:
  void check_process(ProcessId p) const;
  MessageId intern(ProcessId p, std::string_view id);
  [[noreturn]] void fail_here(ProcessId p, std::string message) const;

  Trace trace_;
  std::vector<std::uint64_t> destination_;  // the send's "to", unchecked until build()
  std::vector<ProcessId> received_by_;      // kNoProcess until received
};

}  // namespace ftsim::analysis
