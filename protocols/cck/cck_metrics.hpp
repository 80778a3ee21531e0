#pragma once
// CCK's named metrics (results.json "protocol_metrics", per node and folded over the run). A
// process counts them through its context; the coordinator counts what only it sees (validations,
// durations, the nodes of each restart). Times are in microseconds: named metrics are integers.
#include <array>
#include <cstddef>

#include "sim/node/protocol_metrics.hpp"

namespace ftsim::protocols::cck {

enum Metric : std::size_t {
  kCheckpointsValidated,
  kCheckpointsAborted,
  kCheckpointMessages,       // INIT, PING, PONG, CONT, ACK of every checkpoint (sent, by their senders)
  kCheckpointMessageBytes,
  kCheckpointMessagesMax,    // the most control messages one validated checkpoint cost (coordinator)
  kCheckpointMessageBytesMax,
  kCheckpointDurationMax,    // request to validation, µs
  kCheckpointDurationTotal,
  kCheckpointBytes,          // state saved to the checkpoint servers
  kRestarts,                 // restart rounds completed
  kRestartMessages,          // RESTART, PING, PONG, GATHER, DONE
  kGatherMessages,           // the all-gather's messages and bytes
  kGatherBytes,
  kRestartDurationMax,       // RESTART to the last DONE, µs (coordinator)
  kPlannedReexecutions,      // |T^p| summed over the nodes and rounds
  kExecutedSinceCheckpoint,  // tasks the survivors had executed since K, summed likewise
  kSurvivorReexecutions,     // re-executions of T that completed
  kReexecutionsMaxNode,      // the largest |T^p| of one node in one round
  kNodesInvolvedMax,         // nodes that restored or re-executed something, in the largest restart
  kNodesInvolvedTotal,
  kLostSends,                // |C_perdues|
  kResends,                  // |C_total|: data sent again
  kReloadedVersions,         // versions read back from a survivor's copy of checkpoint K
  kMetricCount
};

extern const std::array<node::MetricDefinition, kMetricCount> kMetrics;

}  // namespace ftsim::protocols::cck
