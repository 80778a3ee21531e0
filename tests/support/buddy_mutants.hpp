#pragma once
// Test builds only: faults planted in the buddy protocol for its mutation check
// (tests/campaign/buddy_mutation_test.cpp). The protocol is compiled a second time with
// FTSIM_BUDDY_MUTANTS for that test; release builds define FTSIM_BUDDY_MUTANT(name) as false and
// contain no hook. The environment variable FTSIM_BUDDY_MUTANT names the fault that acts; each
// time it acts it is counted (RunMetrics::test_faults_fired).
#include <cstdlib>
#include <cstring>

#include "sim/node/test_faults.hpp"

namespace ftsim::testing {

inline bool buddy_mutant(const char* name) {
  const char* chosen = std::getenv("FTSIM_BUDDY_MUTANT");
  if (chosen == nullptr || std::strcmp(chosen, name) != 0) return false;
  ++core::test_faults().fired;
  return true;
}

}  // namespace ftsim::testing

#define FTSIM_BUDDY_MUTANT(name) ::ftsim::testing::buddy_mutant(#name)
