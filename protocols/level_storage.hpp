#pragma once
// What a checkpoint level on the node's own storage or on stable storage needs from the platform,
// checked the same way for every protocol with levels (global, buddy): errors name the level's
// JSON path.
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::protocols {

inline void require_level_storage(const config::Config& config, const config::JsonReader& level, bool local) {
  if (local && !config.platform.local_storage.present) {
    level.fail("the \"local\" level writes to each node's own storage: set /platform/local_storage (its bandwidth)");
  }
  if (!local && config.platform.storage.hosts == 0) {
    level.fail("the \"stable\" level needs servers: set /platform/storage/hosts to 1 or more");
  }
}

}  // namespace ftsim::protocols
