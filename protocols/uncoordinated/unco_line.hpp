#pragma once
// The recovery line of Fig. 4 (lines 10-16): rollback propagation to a fixpoint over the
// dependencies the processes reported. Start from the restart epochs of the failed processes
// (and of processes that rolled back in a recovery not complete yet) and infinity for the others;
// while a dependency (trigger restarts in an epoch <= threshold => reporter restarts in epoch
// <= epoch) is active, lower the reporter's restart epoch. Each dependency is looked at once
// (per trigger, sorted by threshold, a cursor that only moves forward as the trigger's epoch
// only goes down): linear in the dependencies plus a sort.
#include <cstdint>
#include <vector>

#include "protocols/uncoordinated/unco_messages.hpp"

namespace ftsim::protocols::uncoordinated {

// `initial[p]`: messages::kNoEpoch (keeps its state) or a restart epoch; `dependencies[p]`: what
// process p reported. Returns each process's restart epoch (kNoEpoch: keeps its state).
std::vector<std::uint32_t> recovery_line(std::vector<std::uint32_t> initial,
                                         const std::vector<std::vector<messages::Dependency>>& dependencies);

}  // namespace ftsim::protocols::uncoordinated
