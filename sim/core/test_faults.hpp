#pragma once
// Faults that tests plant on purpose to check that the oracle sees wrong data (a mutation
// check). Off in every real run; nothing but tests sets them. Process-wide, so a forked
// simulation process inherits what its test set.
#include <cstdint>

namespace ftsim::core {

struct TestFaults {
  // Recovery uses stale versions: every checkpoint restored (global) brings back one datum still
  // needed with content that is not the version it claims to be, and every version re-sent by a
  // recovery (lineage) too. Version numbers, and so the old existence check, stay right.
  bool stale_recovery = false;
  // Faults of the buddy protocol's local restart (issue 19: each must fail the C++ suite):
  enum class Buddy : std::uint8_t {
    none,
    restore_before_cut,      // the keeper sends back the newest entries strictly before N, not at N
    replay_previous_digest,  // a replayed version carries the digest of the version before it
    cut_task_not_run,        // the restarted node marks its first task at the cut done without running it
    early_replays_dropped,   // the restarted node drops replayed data that arrived before its restore
  };
  Buddy buddy = Buddy::none;
  std::uint64_t fired = 0;  // how many times a planted fault acted (reported in results)
};

inline TestFaults& test_faults() {
  static TestFaults faults;
  return faults;
}

}  // namespace ftsim::core
