#pragma once
// What a run measures, the same for every backend; written to results.json (docs/results.md).
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/node/message.hpp"
#include "sim/node/migration_metrics.hpp"
#include "sim/node/protocol_metrics.hpp"

namespace ftsim::node {

inline constexpr std::size_t kTrafficKinds = 5;

struct NodeMetrics {
  std::uint64_t executions = 0;        // task executions, including re-executions
  std::uint64_t reexecutions = 0;      // executions of tasks that had run before
  double busy_seconds = 0;             // core time of completed executions
  double lost_seconds = 0;             // core time of executions cancelled by failures or rollbacks
  std::array<std::uint64_t, kTrafficKinds> messages_sent{};
  std::array<std::uint64_t, kTrafficKinds> bytes_sent{};
  std::uint64_t duplicates_received = 0;  // data versions received while already held
  std::uint64_t orphans_dropped = 0;      // data messages a protocol refused as orphans
  std::uint64_t sends_suppressed = 0;     // data messages a protocol did not send (SendVerdict::suppress)
  std::uint64_t inputs_missing_at_start = 0;  // tasks started without an input in memory
  std::uint64_t peak_memory_bytes = 0;  // data versions held at once
  std::uint32_t restarts = 0;
  // Protocol-owned memory: checkpoint copies held for others, message logs (bytes stored over
  // the run, peak held at once), over all incarnations of the node.
  std::uint64_t checkpoint_store_total = 0, checkpoint_store_peak = 0;
  std::uint64_t log_store_total = 0, log_store_peak = 0;
  std::uint64_t log_copies_peak = 0;  // peak bytes of logged versions overwritten since (copy-on-write)
  std::uint64_t service_messages = 0, service_bytes = 0;  // control traffic it sent
  ProtocolCounters counters;

  // What an MPI rank sends the driver of it (sim/mpi/packet.hpp), in this order (sim/node/codec.hpp).
  template <class F> void fields(F& f) {
    f(executions, reexecutions, busy_seconds, lost_seconds, messages_sent, bytes_sent, duplicates_received,
      orphans_dropped, sends_suppressed, inputs_missing_at_start, peak_memory_bytes, restarts, checkpoint_store_total,
      checkpoint_store_peak, log_store_total, log_store_peak, log_copies_peak, service_messages, service_bytes, counters);
  }
};

// What a protocol reports of a failure's cost (added to the failure's record).
struct FailureEffect {
  std::string restart_point;           // set if not empty, e.g. "checkpoint 3"
  std::uint64_t tasks_reexecuted = 0;
  double work_lost_seconds = 0;
  std::uint32_t processes_rolled_back = 0;
  std::uint64_t messages_replayed = 0;
  std::uint64_t bytes_replayed = 0;
  template <class F> void fields(F& f) {  // sent to the MPI driver (sim/node/codec.hpp)
    f(restart_point, tasks_reexecuted, work_lost_seconds, processes_rolled_back, messages_replayed, bytes_replayed);
  }
};

struct FailureRecord {
  double time = 0;
  NodeId node = 0;
  // /failures/classes: "node", "group" or "job"; the node whose failure took this one down (itself
  // for a node failure); whether a burst (/failures/burst) raised its rate.
  std::string failure_class = "node";
  NodeId origin = 0;
  bool burst = false;
  double detected_at = -1;
  double replaced_at = -1;
  double recovered_at = -1;            // the protocol's notion: resumed / lost work recomputed
  std::string restart_point;           // e.g. "checkpoint 3", "from scratch", "lineage"
  std::uint64_t tasks_reexecuted = 0;  // tasks to run again because of this failure
  double work_lost_seconds = 0;        // core time of finished work thrown away (cancelled executions: NodeMetrics)
  std::uint32_t processes_rolled_back = 0;
  std::uint64_t messages_replayed = 0;
  std::uint64_t bytes_replayed = 0;
};

struct CheckpointRecord {
  std::uint32_t id = 0;
  // Whose checkpoint: -1 for one of the whole job (a coordinated checkpoint, or a cut every node
  // saves its share of), or the node that took it alone (uncoordinated checkpoints, numbered per
  // process: records of different processes never merge).
  std::int64_t process = -1;
  double started = -1;    // first node asked to save (request sent / cut reached)
  double saved = -1;      // last node done saving
  double committed = -1;  // validated: usable for a restart
  std::uint64_t bytes = 0;
  bool aborted = false;
  // One node's share of a checkpoint without a coordinator (buddy): the world merges the shares
  // (first start, last save, last validation, bytes summed).
  bool partial = false;
  template <class F> void fields(F& f) { f(id, process, started, saved, committed, bytes, aborted, partial); }  // to the MPI driver
};

// A shrink (/platform/on_no_spare: "shrink"): a failed rank restarted on a surviving machine.
struct RedistributionRecord {
  double time = 0;             // the rank's process started on the survivor
  NodeId node = 0;             // the rank
  NodeId machine_rank = 0;     // the rank whose machine now runs it too
  std::uint32_t machine = 0;       // that machine's number (docs/shrink.md)
  std::uint32_t from_machine = 0;  // the machine that failed under it
  std::uint64_t bytes = 0;     // restore and recovery traffic it received until recovered
  double recovered_at = -1;    // its failure recovered (-1: not, e.g. it failed again first)
};

struct RunMetrics {
  bool complete = false;
  std::string failure_reason;          // why the run did not complete (exit code 1)
  double makespan = 0;
  std::vector<NodeMetrics> nodes;
  std::vector<FailureRecord> failures;
  // Failures injected, by class (node, group, job, process: one each, however many processes it
  // takes down), and how many of them a burst brought.
  std::uint64_t failure_events[4] = {0, 0, 0, 0};
  std::uint64_t burst_failures = 0;
  std::vector<CheckpointRecord> checkpoints;
  // The latest record of each (process, id), by update_checkpoints (not written out).
  std::unordered_map<std::uint64_t, std::size_t> checkpoint_latest;
  // StarPU-MPI fault-tolerance statistics (starpu_mpi_ft_stats names).
  std::uint64_t cp_data_normal_count = 0, cp_data_normal_total_size = 0;
  std::uint64_t cp_data_cached_count = 0, cp_data_cached_size = 0;
  std::uint64_t ft_service_msgs_count = 0, ft_service_msgs_total_size = 0;
  std::uint64_t in_mem_cp_data_total = 0, in_mem_cp_data_max_at_t = 0;
  std::uint64_t log_bytes = 0, log_peak_bytes = 0, log_copies_peak_bytes = 0;
  // The protocol's named metrics (protocol_metrics.hpp), folded over every process (sum or max);
  // each node's own values are in its NodeMetrics::counters.named, in the same order.
  struct NamedValue {
    std::string name, unit;
    std::uint64_t value = 0;
  };
  std::vector<NamedValue> protocol_metrics;
  // Oracle: every handle's final version exists where it belongs, with the digest of the
  // failure-free run, and every task is done.
  bool oracle_ok = false;
  std::vector<std::string> oracle_missing;  // final versions not held, tasks not done
  std::vector<std::string> oracle_wrong;    // final versions held with another digest (wrong data)
  std::uint64_t test_faults_fired = 0;      // planted faults that acted (tests only; see test_faults.hpp)
  // Shrink: machines at the start and at the end, and each redistribution (none unless enabled).
  bool shrink_enabled = false;
  std::uint32_t machines_at_start = 0, machines_at_end = 0;
  std::uint32_t ranks_per_machine = 1;  // /platform/ranks_per_machine
  std::vector<RedistributionRecord> redistributions;
  MigrationMetrics migration;            // proactive migration (/failures/prediction)
  std::vector<std::string> stall_report;  // what waits for what, if the run stalled
  std::uint64_t events = 0;               // task completions + deliveries, for speed figures
};

// Adds what a protocol reported of a failure to its record.
void add_effect(FailureRecord& record, const FailureEffect& effect);
// A checkpoint's record: a new one, or the latest state of the one in progress.
void update_checkpoints(RunMetrics& metrics, const CheckpointRecord& record);

// Fills the per-node list and the run's totals (StarPU counters, protocol stores) from the
// metrics of every process: the nodes, then the coordinator.
// `definitions`: the protocol's named metrics, in the order the processes counted them.
void fold_process_metrics(RunMetrics& metrics, const std::vector<NodeMetrics>& processes, NodeId node_count,
                          const std::vector<MetricDefinition>& definitions);

}  // namespace ftsim::node
