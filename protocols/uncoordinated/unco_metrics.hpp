#pragma once
// The uncoordinated protocol's named metrics (results.json "protocol_metrics", docs/results.md).
#include <array>

#include "sim/node/protocol_metrics.hpp"

namespace ftsim::protocols::uncoordinated {

enum Metric : std::size_t {
  kDataMessages,        // application data messages sent (first sends and re-sends)
  kMessagesLogged,      // of which logged: sender-based, kept after the acknowledgement
  kLoggedBytes,
  kLogPeakBytes,        // the most a node's log held at once
  kPiggybackedBytes,    // header words on data messages (date, epoch, phase)
  kAcks,
  kCheckpoints,
  kProcessesRolledBack, // per recovery, the processes whose restart epoch is set (failed ones included)
  kRecoveries,
  kTasksUndone,         // tasks a rollback undid (run again), survivors and replacements
  kMessagesReplayed,
  kBytesReplayed,
  kOrphansSuppressed,   // re-sends a receiver already had, not sent
  kReportBytes,         // SPE / receive tables sent to the recovery process
  kLineMicroseconds,    // from a failure notice to the recovery line sent (recovery process)
  kRecoveryMicroseconds,  // from a failure notice to the end of the phases (recovery process)
  kMetricCount
};

inline constexpr std::array<node::MetricDefinition, kMetricCount> kMetrics = {{
    {"data_messages", "messages", node::MetricFold::sum, "application data messages sent, re-sends included"},
    {"messages_logged", "messages", node::MetricFold::sum, "data messages kept in their sender's log after the acknowledgement"},
    {"logged_bytes", "bytes", node::MetricFold::sum, "bytes of the logged messages (by reference: versions kept alive)"},
    {"log_peak_bytes", "bytes", node::MetricFold::max, "the most one node's log held at once"},
    {"piggybacked_bytes", "bytes", node::MetricFold::sum, "header words piggybacked on data messages (date, epoch, phase)"},
    {"acks", "messages", node::MetricFold::sum, "acknowledgements carrying the receiver's epoch"},
    {"checkpoints", "checkpoints", node::MetricFold::sum, "local checkpoints saved on stable storage"},
    {"processes_rolled_back", "processes", node::MetricFold::sum, "processes restarting from a checkpoint, summed over the recoveries"},
    {"recoveries", "recoveries", node::MetricFold::sum, "recovery lines computed and completed"},
    {"tasks_undone", "tasks", node::MetricFold::sum, "finished tasks a rollback undid (survivors rolling back)"},
    {"messages_replayed", "messages", node::MetricFold::sum, "messages re-sent from a sender's memory (logs and unacknowledged ones)"},
    {"bytes_replayed", "bytes", node::MetricFold::sum, "bytes of the replayed messages"},
    {"orphans_suppressed", "messages", node::MetricFold::sum, "re-sends of a rolled-back process that their receiver already had: not sent"},
    {"report_bytes", "bytes", node::MetricFold::sum, "dependency tables sent to the recovery process"},
    {"line_us", "us", node::MetricFold::sum, "from a failure notice to the recovery line sent, summed over recoveries"},
    {"recovery_us", "us", node::MetricFold::sum, "from a failure notice to the last phase released, summed over recoveries"},
}};

}  // namespace ftsim::protocols::uncoordinated
