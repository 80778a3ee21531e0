#pragma once
// The happened-before order of a trace (Lamport 1978): each process's events in local order,
// each send before its receive. A trace is a possible execution only if this order has no cycle.
// visit_in_causal_order walks the send and receive events in one order consistent with it,
// round-robin over the processes that can move (one event each in turn), so that no process runs
// far ahead of the others: a prefix of the walk is always a consistent cut and looks like a
// moment of the run. Linear in events.
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "analysis/trace.hpp"

namespace ftsim::analysis {

// A receive that can never happen: its send comes after it in happened-before.
struct CausalCycle {
  ProcessId process;
  Position position;
};

// Calls visit(process, position) for every send and receive event in a causal order; returns the
// first blocked receive (lowest process) if the order has a cycle, after visiting what it could.
template <class Visit>
std::optional<CausalCycle> visit_in_causal_order(const Trace& trace, Visit&& visit) {
  const std::size_t processes = trace.process_count();
  std::vector<Position> cursor(processes, 0);
  std::vector<std::uint8_t> blocked(processes, 0);
  std::deque<ProcessId> ready;
  for (ProcessId p = 0; p < processes; ++p) {
    if (trace.communication_count(p) > 0) ready.push_back(p);
  }
  while (!ready.empty()) {
    const ProcessId p = ready.front();
    ready.pop_front();
    const Position i = cursor[p];
    const MessageId m = trace.message_at(p, i);
    if (trace.is_receive_at(p, i) && cursor[trace.sender(m)] <= trace.send_position(m)) {
      blocked[p] = 1;  // woken by the send
      continue;
    }
    visit(p, i);
    cursor[p] = i + 1;
    if (cursor[p] < trace.communication_count(p)) ready.push_back(p);
    if (!trace.is_receive_at(p, i) && trace.received(m)) {
      const ProcessId r = trace.receiver(m);
      if (blocked[r] && cursor[r] == trace.receive_position(m)) {
        blocked[r] = 0;
        ready.push_back(r);
      }
    }
  }
  for (ProcessId p = 0; p < processes; ++p) {
    if (cursor[p] < trace.communication_count(p)) return CausalCycle{p, cursor[p]};
  }
  return std::nullopt;
}

inline std::optional<CausalCycle> find_causal_cycle(const Trace& trace) {
  return visit_in_causal_order(trace, [](ProcessId, Position) {});
}

}  // namespace ftsim::analysis
