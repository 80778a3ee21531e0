#pragma once
// What proactive migration did in a run (/failures/prediction; sim/world/migration.hpp), written
// to results.json as "migration" (docs/results.md).
#include <cstdint>
#include <string>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::node {

// One alarm of the predictor and what became of it.
struct MigrationRecord {
  graphs::NodeId node = 0;
  bool true_alarm = false;     // it announced a real failure
  double alarm = 0;            // when the predictor raised it
  double predicted_failure = 0;  // alarm + lead time (a false alarm's failure never comes)
  // "done", "no spare" (none left: skipped), "node down" (the rank was not running: skipped),
  // "already migrating" (merged into the migration under way), "failed" (a failure hit the rank
  // before the migration ended: an ordinary failure), "run ended" (the run completed meanwhile).
  std::string outcome;
  double safe_point = -1;      // its running tasks had ended (the safe point; the thesis's negotiation)
  double transfer_start = -1;  // the spare was up (after spawn): the state starts to move
  double end = -1;             // the rank runs on the spare
  std::uint64_t state_bytes = 0;      // the process's memory, sent in chunks
  std::uint64_t forwarded_bytes = 0;  // messages that reached the old host meanwhile, forwarded
  std::uint64_t chunks = 0;           // messages of the transfer (chunks and forwards)
};

struct MigrationMetrics {
  bool enabled = false;  // /failures/prediction is set (otherwise "migration" is not written)
  std::uint64_t alarms = 0, true_alarms = 0, false_alarms = 0;
  std::uint64_t migrations_done = 0;
  std::uint64_t skipped_no_spare = 0;  // alarms that found no spare left
  std::uint64_t interrupted = 0;       // migrations a failure cut short
  std::uint64_t failures_avoided = 0;  // announced failures that hit a host the rank had left
  std::uint64_t bytes = 0;             // state and forwarded bytes of the completed migrations
  double seconds = 0;                  // alarm to end, summed over the completed migrations
  std::vector<MigrationRecord> records;
};

}  // namespace ftsim::node
