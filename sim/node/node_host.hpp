#pragma once
// NodeHost: one process of the job, what one MPI rank holds. For a node: its runtime (task
// states, versions in memory), its protocol instance, the protocol's stores, its held sends,
// its epoch and incarnation, the tasks on its cores. For the coordinator (node id ==
// node_count): a protocol instance and its stores, no runtime. A host knows only its own state
// and what events tell it; it reaches the outside only through a HostEnvironment (the world
// driver in a simulation, a fake in unit tests, the rank's progress loop on MPI). On fail-stop
// the host is destroyed; a replacement gets a new one.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphs/cost_model.hpp"
#include "sim/node/protocol_context.hpp"
#include "sim/node/send_queue.hpp"

namespace ftsim::node {

// What a host asks of the world around it.
class HostEnvironment {
public:
  virtual ~HostEnvironment() = default;
  virtual double now() const = 0;
  // Runs `task` on a core of `node` for `seconds`; the world reports on_task_finished. Protocol
  // activities use ids from kActivityBase up.
  virtual void start_task(NodeId node, TaskId task, double seconds) = 0;
  virtual void cancel_task(NodeId node, TaskId task) = 0;
  // The message is complete (sizes, envelope, incarnation, epoch): route it.
  virtual void send(Message message) = 0;
  virtual std::uint32_t storage_servers() const = 0;
  virtual void storage_write(NodeId node, std::uint32_t server, std::uint64_t key, Bytes content, std::uint64_t bytes,
                             std::uint64_t token) = 0;
  virtual void storage_read(NodeId node, std::uint32_t server, std::uint64_t key, std::uint64_t token) = 0;
  // `node`: whose local storage, for server kLocalStorage.
  virtual void storage_erase(NodeId node, std::uint32_t server, std::uint64_t key) = 0;
  virtual std::uint64_t set_timer(NodeId node, double delay, std::uint64_t token) = 0;
  virtual void cancel_timer(std::uint64_t id) = 0;
  // The process's share of the metrics (kept by the observer, so it outlives the process).
  virtual NodeMetrics& metrics_of(NodeId node) = 0;
  // An execution of `task` completed: returns whether the task had completed before in the run
  // (a re-execution, for the metrics and the trace only).
  virtual bool observe_execution(TaskId task) = 0;
  virtual void record_failure_effect(const FailureNotice& failure, const FailureEffect& effect) = 0;
  virtual void record_recovered(const FailureNotice& failure) = 0;
  virtual void record_checkpoint(const CheckpointRecord& record) = 0;
  // Where the typed records of the run go (its exporters: trace, event log).
  virtual Recorder& recorder() = 0;
  virtual void fail_run(const std::string& reason) = 0;
  virtual void check_completion() = 0;
  // Whether a node's runtime dispatches at the end of the instant (simulation) or at once (real
  // execution); with deferral, request_dispatch(node) asks for NodeHost::dispatch() then.
  virtual bool defers_dispatch() const { return false; }
  virtual void request_dispatch(NodeId) {}
  // Real contents, on a backend that executes for real (MPI); a simulation has none.
  virtual ContentRef initial_content(HandleId) { return nullptr; }
  virtual ContentRef output_content(NodeId, TaskId, HandleId) { return nullptr; }
};

inline constexpr TaskId kActivityBase = 0xf0000000u;

// What every host of a run shares, read-only: the job's definition.
struct HostSetup {
  const config::Config& config;
  const graphs::TaskGraph& graph;
  const RuntimeIndex& index;
  const graphs::CostModel& cost;
  std::uint64_t envelope_bytes = 32;
  TestFaults* test_faults = nullptr;  // what a test planted (test_faults.hpp); null in every real run
};

class NodeHost final : public ProtocolContext, private RuntimeServices {
public:
  NodeHost(NodeId node, std::uint32_t incarnation, const HostSetup& setup, HostEnvironment& environment,
           std::unique_ptr<Protocol> protocol);
  ~NodeHost() override;
  NodeHost(const NodeHost&) = delete;
  NodeHost& operator=(const NodeHost&) = delete;

  // --- the start of the run, in phases across all hosts (same order as a real launch) ---
  void load_initial_state();
  void start_protocol();
  void send_initial_values();
  void schedule();  // requeue_tasks(), then a dispatch request
  // The node-local part of schedule(): safe to run for different hosts on different threads.
  void requeue_tasks();
  void request_dispatch();
  // The end of an instant: starts the ready tasks the instant's events made ready.
  void dispatch();
  // --- or the start of a replacement (holding nothing) ---
  void restart(const RestartInfo& info);

  // --- events from the world ---
  void on_task_finished(TaskId task);
  // A cache hint for what the world will ask of this node soon (changes nothing).
  void hint(const RuntimeHint& hint) const {
    if (runtime_) runtime_->hint(hint);
  }
  void deliver(const Message& message);
  void released(const Message& message);
  void on_timer(std::uint64_t token);
  void on_storage_done(std::uint64_t token, const Bytes* content);
  void on_failure_notice(const FailureNotice& notice);

  // --- queries of the driver (termination, oracle, stall reports, accounting) ---
  bool has_runtime() const { return runtime_ != nullptr; }
  const NodeRuntime& node_runtime() const { return *runtime_; }
  bool finished();
  // The protocol's phase on this process (Protocol::phase), for reports.
  std::string protocol_phase();
  // Core seconds of the executions running now (lost if the process dies now).
  double running_seconds() const;
  // Folds the peaks and totals of this process into its metrics (once; the destructor does it
  // if the driver did not).
  void account_peaks();

  // --- proactive migration (sim/world/migration.hpp): the process moves to another host ---
  // While held, no task starts: the rank drains to a safe point (its running tasks end).
  void hold_for_migration(bool hold);
  // Tasks or protocol activities running on its cores.
  bool computing() const { return !running_.empty() || !activities_.empty(); }
  // The bytes a copy of this process takes: its data versions, its protocol stores, the sends it
  // holds and defers, and a descriptor of each remaining task.
  std::uint64_t memory_bytes() const;

  // --- ProtocolContext ---
  NodeId node() const override { return node_; }
  NodeId node_count() const override { return setup_.graph.node_count(); }
  std::uint32_t incarnation() const override { return incarnation_; }
  double now() const override { return env_.now(); }
  const graphs::TaskGraph& graph() const override { return setup_.graph; }
  const RuntimeIndex& index() const override { return setup_.index; }
  double task_seconds(TaskId task) const override { return setup_.cost.seconds(setup_.graph, task); }
  ProtocolRuntime runtime() override;
  std::uint32_t epoch() const override { return epoch_; }
  void set_epoch(std::uint32_t epoch) override { epoch_ = epoch; }
  ProtocolStore& checkpoint_store() override { return checkpoint_store_; }
  ProtocolStore& log_store() override { return log_store_; }
  void send_control(NodeId to, std::uint32_t type, Bytes body, Traffic traffic, std::uint64_t payload_bytes,
                    std::uint32_t destination_incarnation, std::vector<SharedBytes> parts) override;
  void release_held_sends() override;
  void release_held_sends_to(NodeId destination) override;
  void redeliver_deferred() override;
  void discard_deferred() override;
  std::uint32_t storage_servers() const override { return env_.storage_servers(); }
  void storage_write(std::uint32_t server, std::uint64_t key, Bytes content, std::uint64_t bytes,
                     std::uint64_t token) override;
  void storage_read(std::uint32_t server, std::uint64_t key, std::uint64_t token) override;
  void storage_erase(std::uint32_t server, std::uint64_t key) override { env_.storage_erase(node_, server, key); }
  std::uint64_t set_timer(double delay, std::uint64_t token) override { return env_.set_timer(node_, delay, token); }
  void cancel_timer(std::uint64_t id) override { env_.cancel_timer(id); }
  bool run_activity(double seconds, std::uint64_t token) override;
  ProtocolCounters& counters() override { return metrics_.counters; }
  void record_failure_effect(const FailureNotice& failure, const FailureEffect& effect) override {
    env_.record_failure_effect(failure, effect);
  }
  void record_recovered(const FailureNotice& failure) override { env_.record_recovered(failure); }
  void record_checkpoint(const CheckpointRecord& record) override { env_.record_checkpoint(record); }
  bool recording() const override { return env_.recorder().active(); }
  void note(std::string_view text, const char* trace_category) override;
  void record_span(std::string_view name, const char* category, double start) override;
  void record_local_checkpoint(std::uint32_t checkpoint) override;
  void record_log_change(NodeId destination, HandleId handle, Version version, bool logged) override;
  void fail_run(const std::string& reason) override { env_.fail_run(reason); }
  void check_completion() override { env_.check_completion(); }

private:
  // --- RuntimeServices ---
  void start_task(TaskId task) override;
  void cancel_task(TaskId task) override;
  void send_data(NodeId to, HandleId handle, Version version, Digest digest, Traffic traffic,
                 TaskId writer) override;
  void task_completed(TaskId task, bool first_execution) override;
  bool may_start(TaskId task) override { return !migration_hold_ && protocol_->may_start(*this, task); }
  bool defers_dispatch() override { return env_.defers_dispatch(); }
  void dispatch_requested() override { env_.request_dispatch(node_); }
  ContentRef initial_content(HandleId h) override { return env_.initial_content(h); }
  ContentRef output_content(TaskId task, HandleId h) override { return env_.output_content(node_, task, h); }

  void account(const Message& message);
  void transmit(Message message);
  void post(Message message);             // to the environment, its send time now
  void post_next(NodeId destination);     // a message to it completed: the send queue's next
  std::int32_t first_reader_priority(HandleId h, Version v, NodeId to) const;

  struct Running {
    TaskId task;
    double start;
    std::uint32_t core;
  };
  struct Activity {
    TaskId id;
    std::uint64_t token;
    double start;
  };

  NodeId node_;
  std::uint32_t incarnation_;
  const HostSetup& setup_;
  HostEnvironment& env_;
  NodeMetrics& metrics_;
  std::unique_ptr<NodeRuntime> runtime_;  // null for the coordinator
  std::unique_ptr<Protocol> protocol_;
  std::uint32_t epoch_ = 0;
  ProtocolStore checkpoint_store_, log_store_;
  std::vector<Message> held_sends_;
  SendQueue send_queue_;
  std::vector<NodeId> completions_;  // destinations whose message completed, not yet refilled
  bool posting_ = false;             // in post_next (a post may complete another message at once)
  std::vector<Message> deferred_;  // data messages on_receive deferred, in order of arrival
  std::vector<Running> running_;
  std::vector<std::uint32_t> free_cores_;
  std::vector<Activity> activities_;
  TaskId next_activity_ = kActivityBase;
  bool accounted_ = false;
  bool migration_hold_ = false;
};

}  // namespace ftsim::node
