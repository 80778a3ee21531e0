#pragma once
// Faults that tests plant on purpose to check that the oracle sees wrong data (a mutation check).
// A test seam, not a global: a run has them only if its set-up hands them over
// (SimulationOptions::test_faults, which the world passes to every host in HostSetup), and every
// real run leaves that null (the CLI, the sweeps, the MPI ranks, the Python module never set it).
// The tests keep one instance (tests/support/planted_faults.hpp) that they set before a run; a
// forked simulation process works on its copy and reports `fired` in its metrics.
#include <cstdint>

namespace ftsim::node {

struct TestFaults {
  // Recovery uses stale versions: every checkpoint restored (global) brings back one datum still
  // needed with content that is not the version it claims to be, and every version re-sent by a
  // recovery (lineage) too. Version numbers, and so the old existence check, stay right.
  bool stale_recovery = false;
  // A replayed version (recovery traffic) carries the digest of the version before it (the buddy
  // mutation check; its other faults are compiled into a test copy of the protocol).
  bool replay_previous_digest = false;
  // The first task completion of the run is reported as done without an execution (what a
  // mark_done would do): its outputs are right, so only the oracle's executions check sees it.
  bool done_without_running = false;
  std::uint64_t fired = 0;  // how many times a planted fault acted (RunMetrics::test_faults_fired)
};

}  // namespace ftsim::node
