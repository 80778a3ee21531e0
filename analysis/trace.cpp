#include "analysis/trace.hpp"

#include <algorithm>

namespace ftsim::analysis {

std::size_t Trace::event_index_of_communication(ProcessId p, Position i) const {
  // Checkpoints at position <= i come before the communication at position i.
  const auto& checkpoints = processes_[p].checkpoints;
  const auto before = std::upper_bound(checkpoints.begin(), checkpoints.end(), i) - checkpoints.begin();
  return std::size_t(i) + std::size_t(before);
}

std::size_t Trace::total_event_count() const {
  std::size_t total = 0;
  for (ProcessId p = 0; p < process_count(); ++p) total += event_count(p);
  return total;
}

}  // namespace ftsim::analysis
