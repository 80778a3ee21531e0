#pragma once
// Messages between node runtimes. Data messages carry one version of a data handle; control
// messages belong to a protocol. Both have their real byte size (what the network carries) and
// a header that protocols may extend (incarnation of the sender, epoch, section).
#include <cstdint>
#include <memory>

#include "graphs/ids.hpp"

namespace ftsim::core {

using graphs::HandleId;
using graphs::NodeId;
using graphs::TaskId;
using graphs::Version;

// Why bytes moved, for the accounting of results.json.
enum class Traffic : std::uint8_t {
  application,  // a transfer of the graph's transfer plan
  recovery,     // data re-sent to repair a failure (replay, lineage re-send)
  checkpoint,   // checkpoint data to a buddy or to stable storage
  restore,      // checkpoint data read back on restart
  control,      // protocol service messages (requests, acks, commits)
};
const char* to_string(Traffic traffic);

// Content of a control message; each protocol defines its own.
struct ControlPayload {
  virtual ~ControlPayload() = default;
};

struct Message {
  NodeId source = 0;
  NodeId destination = 0;
  std::uint64_t bytes = 0;
  Traffic traffic = Traffic::application;
  bool is_data = true;
  // Data: which version of which handle.
  HandleId handle = graphs::kNone;
  Version version = 0;
  // Control: protocol-defined type and content.
  std::uint32_t control_type = 0;
  std::shared_ptr<const ControlPayload> payload;
  // Header: stale messages (from a dead incarnation or an older epoch) are dropped on arrival.
  std::uint32_t source_incarnation = 0;
  std::uint32_t epoch = 0;
  std::uint32_t section = 0;
  double sent_at = 0;  // when it left its node (for traces)
};

}  // namespace ftsim::core
