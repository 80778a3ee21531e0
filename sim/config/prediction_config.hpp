#pragma once
// /failures/prediction: a failure predictor and proactive migration (Cores 2015, Ch. 3-4; digest
// §2.5-2.7). The predictor announces a share `recall` of the real failures `lead_time` ahead and
// adds false alarms so that a share `precision` of its alarms are true; on an alarm the node's
// rank moves to a spare host before the failure (sim/world/migration.hpp).
#include <cstdint>

#include "json_reader.hpp"

namespace ftsim::config {

struct PredictionConfig {
  double lead_time = 0;   // seconds between an alarm and the failure it announces
  double recall = 0;      // share of the real (timed) failures announced, in [0, 1]
  double precision = 1;   // share of the alarms that announce a real failure, in (0, 1]
  // Spawn&Rec of the thesis (§2.5, Fig. 3.5): starting the process on the spare and rebuilding
  // the communicators. Ch. 3 measures <= 0.5 s when one process moves (Table 5.2: about 1 s).
  double spawn = 0.5;
  // The state moves in chunks, one sent while the next is written (§2.7; 64 MB is the thesis's best).
  std::uint64_t chunk = std::uint64_t(64) << 20;
};

// Reads /failures/prediction (the reader is at that key).
PredictionConfig read_prediction(JsonReader reader);

}  // namespace ftsim::config
