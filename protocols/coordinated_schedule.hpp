#pragma once
// When a coordinated protocol (global, cck) checkpoints: every "period" seconds, or "at": "cuts",
// the graph cuts of the one placement in /checkpoints. Read the same way for each.
#include <string>

#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::protocols {

struct CoordinatedSchedule {
  bool at_cuts = false;  // at the graph cuts of /checkpoints instead of a period
  double period = 0;     // seconds (when !at_cuts)
};

inline CoordinatedSchedule read_coordinated_schedule(const config::Config& config, config::JsonReader& block,
                                                     const std::string& protocol) {
  CoordinatedSchedule schedule;
  if (block.one_of({"period", "at"}) == "period") {
    schedule.period = block.at("period").as_positive_seconds();
    return schedule;
  }
  auto at = block.at("at");
  at.as_choice({"cuts"});
  if (config.checkpoints.empty()) at.fail("checkpoints at graph cuts need /checkpoints (which cuts, e.g. {\"count\": 4})");
  if (config.checkpoints.size() > 1) {
    config::JsonReader(config.document, config.file).at("checkpoints").fail(
        "the " + protocol + " protocol at cuts takes one checkpoint placement, got " + std::to_string(config.checkpoints.size()));
  }
  schedule.at_cuts = true;
  return schedule;
}

}  // namespace ftsim::protocols
