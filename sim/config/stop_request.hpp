#pragma once
// The process-wide request to stop (Ctrl-C, a batch system's SIGTERM): set from a signal
// handler, polled by long loops at every layer (graph building, the simulation's event loop),
// which then stop and report what they have. Lives in the lowest layer so that all can poll it.
#include <atomic>
#include <stdexcept>

namespace ftsim {

inline std::atomic<bool>& stop_flag() {
  static std::atomic<bool> flag{false};
  return flag;
}
// Async-signal-safe: a lock-free atomic store.
inline void request_stop() { stop_flag().store(true, std::memory_order_relaxed); }
inline bool stop_requested() { return stop_flag().load(std::memory_order_relaxed); }

// Thrown by work that stops early on a stop request before it has anything to report.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace ftsim
