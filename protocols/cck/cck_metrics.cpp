#include "protocols/cck/cck_metrics.hpp"

namespace ftsim::protocols::cck {

using node::MetricFold;

const std::array<node::MetricDefinition, kMetricCount> kMetrics = {{
    {"checkpoints_validated", "checkpoints", MetricFold::sum, "checkpoints the coordinator validated (N acknowledgements)"},
    {"checkpoints_aborted", "checkpoints", MetricFold::sum, "checkpoints a failure interrupted"},
    {"checkpoint_messages", "messages", MetricFold::sum, "control messages of every checkpoint: INIT, PING, PONG, CONT, ACK"},
    {"checkpoint_message_bytes", "bytes", MetricFold::sum, "their bytes, envelopes included"},
    {"checkpoint_messages_max", "messages", MetricFold::max, "control messages of the costliest validated checkpoint"},
    {"checkpoint_message_bytes_max", "bytes", MetricFold::max, "their bytes"},
    {"checkpoint_duration_max", "us", MetricFold::max, "longest checkpoint, from the request to its validation"},
    {"checkpoint_duration_total", "us", MetricFold::sum, "checkpoint durations added up (validated ones)"},
    {"checkpoint_bytes", "bytes", MetricFold::sum, "state saved to the checkpoint servers"},
    {"restarts", "rounds", MetricFold::sum, "restart rounds completed"},
    {"restart_messages", "messages", MetricFold::sum, "control messages of the restarts: RESTART, PING, PONG, GATHER, DONE"},
    {"gather_messages", "messages", MetricFold::sum, "messages of the all-gather of the communication-restricted graphs"},
    {"gather_bytes", "bytes", MetricFold::sum, "their bytes, envelopes included"},
    {"restart_duration_max", "us", MetricFold::max, "longest restart round, from RESTART to the last node done"},
    {"planned_reexecutions", "tasks", MetricFold::sum, "|T_a_re-executer|: tasks the survivors were told to run again"},
    {"executed_since_checkpoint", "tasks", MetricFold::sum, "tasks the survivors had executed since the checkpoint, at the restart"},
    {"survivor_reexecutions", "tasks", MetricFold::sum, "re-executions of planned tasks that completed"},
    {"reexecutions_max_node", "tasks", MetricFold::max, "the largest |T^p| of one node in one restart"},
    {"nodes_involved_max", "nodes", MetricFold::max, "nodes that restored or re-executed something, in the largest restart"},
    {"nodes_involved_total", "nodes", MetricFold::sum, "the same, added over the restarts"},
    {"lost_sends", "messages", MetricFold::sum, "|C_perdues|: sends of survivors to a restarting node since the checkpoint"},
    {"resends", "messages", MetricFold::sum, "|C_total|: data sent again"},
    {"reloaded_versions", "versions", MetricFold::sum, "versions read back from a survivor's own copy of the checkpoint"},
}};

}  // namespace ftsim::protocols::cck
