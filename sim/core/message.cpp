#include "sim/core/message.hpp"

namespace ftsim::core {

const char* to_string(Traffic traffic) {
  switch (traffic) {
    case Traffic::application: return "application";
    case Traffic::recovery: return "recovery";
    case Traffic::checkpoint: return "checkpoint";
    case Traffic::restore: return "restore";
    case Traffic::control: return "control";
  }
  return "?";
}

}  // namespace ftsim::core
