#include "sim/node/message.hpp"

namespace ftsim::node {

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

Bytes log_record(const Message& m) {
  Bytes record;
  WireWriter out(record);
  out.u32(m.destination);
  out.u32(m.handle);
  out.u32(m.version);
  out.u64(m.digest);
  return record;
}

}  // namespace ftsim::node
