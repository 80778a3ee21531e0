#pragma once
// The faults a test plants in the runtime (sim/node/test_faults.hpp): one instance per test process,
// handed to every run of the test supports (run_on_queue.hpp, campaign_support.hpp) through
// SimulationOptions::test_faults; a forked simulation works on its copy. Set a fault before a run,
// clear it after; `fired` counts in this process (reset it before a run on the queue backend).
// The mutation hooks of protocols/mutants.hpp count here too (tests/support/mutants.cpp).
#include "sim/node/test_faults.hpp"

namespace ftsim::testing {

inline node::TestFaults& planted_faults() {
  static node::TestFaults faults;
  return faults;
}

}  // namespace ftsim::testing
