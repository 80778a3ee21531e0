#pragma once
// Simulation: the world driver of one run. It holds one RankLifecycle per process (the nodes and
// the coordinator: host, incarnation, messages kept for a replacement; rank_lifecycle.hpp, the
// same as an MPI rank's) and is the only thing that sees them all: it routes messages over FIFO
// channels (MPI's non-overtaking rule, kept even where the network would let a small message
// overtake a large one), keeps time (timers, failures from the model, failure notices after the
// detection latency, replacements after the downtime), holds stable storage, detects the end of
// the run, checks the digest oracle and reports stalls. Machines of several ranks or a shrink
// (machines.hpp) and proactive migration (migration.hpp) are objects of their own. Backends
// (sim/simgrid; sim/mpi runs one rank lifecycle per MPI rank instead) turn its requests into
// activities and feed the events back.
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphs/cost_model.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/config/stop_request.hpp"
#include "sim/world/backend.hpp"
#include "sim/world/early_messages.hpp"
#include "sim/world/failure_ledger.hpp"
#include "sim/world/failure_schedule.hpp"
#include "sim/world/machines.hpp"
#include "sim/world/migration.hpp"
#include "sim/world/node_observer.hpp"
#include "sim/world/rank_lifecycle.hpp"
#include "sim/world/spare_pool.hpp"
#include "sim/world/stable_storage.hpp"
#include "sim/world/storage_requests.hpp"
#include "sim/node/flat_map.hpp"
#include "sim/node/node_host.hpp"
#include "sim/node/run_metrics.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/run_record.hpp"

namespace ftsim::world {

using graphs::NodeId;
using graphs::TaskId;

struct SimulationOptions {
  std::string trace_file;   // empty: no trace
  bool progress = false;    // progress lines on stderr for long runs
  double time_limit = 0;    // simulated seconds; 0: none
  std::string log_file;     // the event log (event_log.hpp); empty: none
  std::string checkpoint_trace_file;  // the checkpoint trace (checkpoint_trace_writer.hpp); empty: none
  std::uint32_t log_categories = 0;
  std::vector<node::MetricDefinition> protocol_metrics;  // the protocol's named metrics (protocols/registry.hpp)
  // Faults a mutation test plants (sim/node/test_faults.hpp), handed to every host; null in every
  // real run. What acted is reported as RunMetrics::test_faults_fired.
  node::TestFaults* test_faults = nullptr;
};

// Asks a running simulation to stop soon and report what it has (safe from a signal handler):
// the run fails with "interrupted" and its results are still written (sim/config/stop_request.hpp).
using ftsim::request_stop;
using ftsim::stop_requested;


class Simulation final : public BackendEvents, private node::HostEnvironment, private MigrationWorld {
public:
  Simulation(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
             node::ProtocolFactory factory, Backend& backend, SimulationOptions options);
  ~Simulation() override;

  void start();
  // The backend has no more events: conclude (oracle, stall report).
  void finish();
  bool halted() const { return halted_; }
  const node::RunMetrics& metrics() const { return metrics_; }

  // --- BackendEvents ---
  void on_task_finished(NodeId node, TaskId task) override;
  void hint(const Upcoming& upcoming) override;
  void on_message_delivered(const node::Message& message) override;
  void on_message_lost(const node::Message& message) override;
  void on_storage_done(NodeId node, std::uint64_t token) override;
  void on_timer(std::uint64_t token) override;
  void on_migration_transfer_done(NodeId node, std::uint64_t token) override;
  void on_end_of_instant() override;

private:
  bool graph_task_on_host(NodeId node, TaskId task) const;  // (the prefetch hints' bound)
  // The hints' stages (Upcoming).
  void prefetch_task_end(NodeId node, TaskId task);
  void prefetch_task_entries(NodeId node, TaskId task);
  void prefetch_task_versions(NodeId node, TaskId task);
  void prefetch_delivery(const node::Message& message);
  // --- MigrationWorld (proactive migration, migration.hpp) ---
  void set_migration_timer(double time, NodeId node, std::uint64_t token) override;
  void migration_switched(NodeId) override { note_progress(); }  // the rank resumes on its new host
  void replay(NodeId node, std::vector<DeferredEvent>& events) override;
  // Whether events for `node` wait: its rank is frozen for a migration.
  bool frozen(NodeId node) const { return migration_ && migration_->frozen(node); }

  // --- HostEnvironment (what the hosts may ask) ---
  double now() const override { return backend_.now(); }
  void start_task(NodeId node, TaskId task, double seconds) override;
  void cancel_task(NodeId node, TaskId task) override;
  void send(node::Message message) override;
  std::uint32_t storage_servers() const override { return backend_.storage_servers(); }
  void storage_write(NodeId node, std::uint32_t server, std::uint64_t key, node::Bytes content, std::uint64_t bytes,
                     std::uint64_t token) override;
  void storage_read(NodeId node, std::uint32_t server, std::uint64_t key, std::uint64_t token) override;
  void storage_erase(NodeId node, std::uint32_t server, std::uint64_t key) override;
  std::uint64_t set_timer(NodeId node, double delay, std::uint64_t token) override;
  void cancel_timer(std::uint64_t id) override;
  node::NodeMetrics& metrics_of(NodeId node) override { return process_metrics_[node]; }
  bool observe_execution(TaskId task) override;
  void record_failure_effect(const node::FailureNotice& failure, const node::FailureEffect& effect) override;
  void record_recovered(const node::FailureNotice& failure) override;
  void record_checkpoint(const node::CheckpointRecord& record) override;
  node::Recorder& recorder() override { return recorder_; }
  void fail_run(const std::string& reason) override;
  void check_completion() override;
  bool defers_dispatch() const override { return defers_dispatch_; }
  void request_dispatch(NodeId node) override;

  struct Timer {
    enum class Kind : std::uint8_t { failure, detection, replacement, protocol, time_limit, migration, local_storage } kind;
    NodeId node;
    std::uint32_t incarnation;
    std::uint64_t token;
    bool cancelled;
    // Failure timers: what it destroys; a burst's (dropped if its rank failed meanwhile).
    config::FailureClass failure_class = config::FailureClass::node;
    bool burst = false;
  };
  // A channel: messages from one process to another are delivered in the order sent.
  struct Channel {
    std::uint64_t next_send = 0;
    std::uint64_t next_delivery = 0;
    EarlyMessages early;  // arrived before an earlier message of the channel
  };

  NodeId node_count() const { return graph_.node_count(); }
  NodeId coordinator() const { return graph_.node_count(); }
  // The running host of a process; null while it is down.
  node::NodeHost* host(NodeId node) const { return ranks_[node].host(); }
  // A request to a node's local storage: it completes after the disk's time (a timer).
  void local_transfer(StorageRequests::Request request);
  void complete_storage(std::uint64_t id);  // a storage request is over: its effect, its answer
  std::uint64_t add_timer(double time, Timer::Kind kind, NodeId node, std::uint64_t token);
  // A timed failure (its timer's id is the failure's id for the predictor).
  // `token`: a listed failure's index + 1 (its downtime and class), 0 for a drawn one.
  void schedule_failure(double time, NodeId node, std::uint64_t token, config::FailureClass kind, bool burst = false);
  // A failure of `node` of class `kind`: it and, for a group or job failure, the others it takes.
  void inject_failure(NodeId node, double downtime, config::FailureClass kind, bool burst = false);
  // One failed machine (or rank): `node` and the ranks its machine runs.
  void take_down(NodeId node, double downtime, config::FailureClass kind, NodeId origin, bool burst);
  // /failures/burst: the raised rate of the other machines of the failed node's group.
  void schedule_bursts(NodeId failed);
  // One process of a failure (fail-stop). `machine_spare`: whether a spare takes it, decided once
  // for the ranks of a failed machine (several ranks per machine); else decided here.
  void fail_process(NodeId node, double downtime, std::optional<bool> machine_spare = std::nullopt);
  void notify_detection(NodeId failed, std::uint32_t incarnation);
  void replace(NodeId node);
  void route(node::Message message);
  void deliver(const node::Message& message);
  void release_sender(const node::Message& message);
  void reset_channels(NodeId node);
  void halt();
  void count_event();
  // The no-progress backstop (docs/runtime.md, "No progress"): a task completion, a validated
  // checkpoint or a finished restore resets it; so does a replacement starting.
  void note_progress();
  void derive_progress_bounds();
  void schedule_hosts();  // the start of the run: every host builds its ready queue and asks for a dispatch
  void fail_without_progress(const std::string& what);
  std::string protocol_phases();
  void periodic_checks();
  void report_progress();
  void check_oracle();
  void report_stall();
  void finalize_metrics();

  const config::Config& config_;
  const graphs::TaskGraph& graph_;
  const graphs::CostModel& cost_;
  node::ProtocolFactory factory_;
  Backend& backend_;
  SimulationOptions options_;
  node::RuntimeIndex index_;
  node::HostSetup setup_;
  // The oracle's expected digests, a pass over the whole graph that only the end of the run
  // reads: computed on the other core while the run goes on (started by start(); finish()
  // computes them itself if start() did not).
  std::future<std::vector<node::Digest>> expected_digests_;
  // Observer's records (outlive the processes): declared before the hosts that write them.
  node::RunMetrics metrics_;
  std::vector<node::NodeMetrics> process_metrics_;       // nodes, then the coordinator
  std::vector<NodeObserver> observers_;                  // per node: executions, lost work, its oracle share
  FailureLedger ledger_;  // the failure records by node and incarnation (in metrics_)
  std::vector<config::FailureEvent> task_count_failures_;  // failures at a task count
  std::size_t completion_cursor_ = 0;   // check_completion: the hosts before it were finished
  bool failure_due_ = false;  // a failure at a task count is due once the host's call returns
  config::FailureClass failure_due_class_ = config::FailureClass::node;
  // The failure being injected, for its records (take_down sets it).
  struct FailureCause {
    config::FailureClass kind = config::FailureClass::node;
    NodeId origin = 0;
    bool burst = false;
  } failure_cause_;
  // Each rank's pending drawn failure (its renewal process): cancelled when a group or job failure
  // takes the rank down first (the replacement draws its own). Timer ids; -1: none.
  std::vector<std::uint64_t> drawn_failure_;
  node::Recorder recorder_;  // the exporters of the run's records (trace, event log)
  std::vector<RankLifecycle> ranks_;  // per process: its host, incarnation and kept messages
  // Nodes whose runtime waits for the end of the instant to start ready tasks (backend.hpp).
  bool defers_dispatch_ = false;
  std::vector<NodeId> dispatch_wanted_;
  std::vector<NodeId> dispatching_;
  std::vector<std::uint8_t> dispatch_flag_;
  std::vector<bool> replacement_scheduled_;
  // By source, then destination: a flat map, one probe per message sent and delivered.
  std::vector<node::FlatMap64<Channel>> channels_;
  StableStorage storage_;              // what the storage servers hold
  StorageRequests storage_requests_;   // transfers to and from them under way
  // /platform/local_storage: each node's own storage, one "server" per node. A node failure wipes
  // the node's; a process failure leaves it (the process restarts in place and reads it back).
  StableStorage local_storage_;
  std::vector<bool> restart_in_place_;  // the pending replacement is of a process failure
  std::vector<Timer> timers_;
  FailureSchedule failures_;
  std::unique_ptr<Migration> migration_;  // with /failures/prediction
  std::uint32_t failures_injected_ = 0;
  static constexpr std::uint32_t kFailuresWithoutProgress = 10000;
  std::uint32_t failures_since_progress_ = 0;
  std::uint32_t detections_ = 0;
  std::uint64_t data_messages_ = 0;  // data messages sent so far (their ids)
  SparePool spares_;
  // Null unless /platform/on_no_spare is "shrink" or /platform/ranks_per_machine > 1 (machines.hpp).
  std::unique_ptr<Machines> machines_;
  bool halted_ = false;
  std::chrono::steady_clock::time_point wall_start_, last_progress_;
  static constexpr std::uint64_t kEventsBetweenChecks = 4096;  // stop request, wall limit, progress
  std::uint64_t events_since_check_ = 0;
  // The backstop's bounds and state: events and simulated seconds since the last progress.
  std::uint64_t progress_event_bound_ = 0;
  double progress_span_bound_ = 0;
  std::uint64_t events_without_progress_ = 0;
  double last_progress_time_ = 0;
};

}  // namespace ftsim::world
