#pragma once
// Simulation: the backend-independent driver of one run. It owns the node runtimes and the
// protocol instances, injects fail-stop failures (a spare takes the failed rank after the
// downtime; survivors are notified after the detection latency), routes messages (dropping those
// of dead incarnations and older epochs, holding those for a rank being replaced), detects the
// end of the run, checks the oracle and reports stalls. Backends (sim/simgrid, later sim/mpi)
// turn its requests into real activities and feed the events back.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphs/cost_model.hpp"
#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/core/backend.hpp"
#include "sim/core/failure_schedule.hpp"
#include "sim/core/node_runtime.hpp"
#include "sim/core/protocol.hpp"
#include "sim/core/run_metrics.hpp"
#include "sim/core/runtime_index.hpp"
#include "sim/core/task_table.hpp"
#include "sim/core/trace_writer.hpp"

namespace ftsim::core {

class ProtocolContext;

struct SimulationOptions {
  std::string trace_file;   // empty: no trace
  bool progress = false;    // progress lines on stderr for long runs
  double time_limit = 0;    // simulated seconds; 0: none
};

using ProtocolFactory = std::function<std::unique_ptr<Protocol>(NodeId node, bool coordinator)>;

// Asks a running simulation to stop soon and report what it has (safe from a signal handler):
// the run fails with "interrupted" and its results are still written.
void request_stop();
bool stop_requested();

class Simulation final : public BackendEvents, public RuntimeServices {
public:
  Simulation(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
             ProtocolFactory factory, Backend& backend, SimulationOptions options);
  ~Simulation() override;

  void start();
  // The backend has no more events: conclude (oracle, stall report).
  void finish();
  bool halted() const { return halted_; }
  const RunMetrics& metrics() const { return metrics_; }

  // --- BackendEvents ---
  void on_task_finished(NodeId node, TaskId task) override;
  void on_message_delivered(const Message& message) override;
  void on_message_lost(const Message& message) override;
  void on_storage_done(NodeId node, std::uint64_t token) override;
  void on_timer(std::uint64_t token) override;

  // --- RuntimeServices ---
  void start_task(NodeId node, TaskId task) override;
  void cancel_task(NodeId node, TaskId task) override;
  void send_data(NodeId from, NodeId to, HandleId handle, Version version, Traffic traffic) override;
  void task_completed(NodeId node, TaskId task, bool first_execution) override;
  bool may_start(NodeId node, TaskId task) override;

  // --- services for protocols (see ProtocolContext) ---
  const config::Config& config() const { return config_; }
  const graphs::TaskGraph& graph() const { return graph_; }
  const graphs::CostModel& cost() const { return cost_; }
  const RuntimeIndex& index() const { return index_; }
  TaskTable& tasks() { return tasks_; }
  NodeId node_count() const { return graph_.node_count(); }
  NodeId coordinator() const { return graph_.node_count(); }
  double now() const { return backend_.now(); }
  NodeRuntime& runtime(NodeId node) { return *runtimes_[node]; }
  bool alive(NodeId node) const { return alive_[node]; }
  std::uint32_t epoch(NodeId node) const { return epoch_[node]; }
  void set_epoch(NodeId node, std::uint32_t epoch) { epoch_[node] = epoch; }
  void send_control(NodeId from, NodeId to, std::uint32_t type, std::uint64_t bytes, Traffic traffic,
                    std::shared_ptr<const ControlPayload> payload);
  void storage_transfer(NodeId node, std::uint64_t bytes, bool write, std::uint64_t token);
  std::uint32_t storage_servers() const { return backend_.storage_servers(); }
  void set_timer(NodeId node, double delay, std::uint64_t token);
  RunMetrics& mutable_metrics() { return metrics_; }
  TraceWriter* trace() { return trace_.get(); }
  // Ends the run as failed (exit code 1), with the reason in results.json.
  void fail_run(const std::string& reason);
  // Core seconds of a task under the cost model.
  double task_seconds(TaskId task) const { return cost_.seconds(graph_, task); }
  // The failure record being handled (the latest one), or the latest failure of a node.
  FailureRecord* latest_failure() { return metrics_.failures.empty() ? nullptr : &metrics_.failures.back(); }
  FailureRecord* failure_record(NodeId node);
  // Failure detections so far: a recovery epoch that every node agrees on.
  std::uint32_t detections() const { return detections_; }
  // Re-examines whether the run is complete (protocols call it when their own work ends).
  void check_completion();

private:
  struct Running {
    TaskId task;
    double start;
    std::uint32_t core;
  };
  enum class TimerKind : std::uint8_t { failure, detection, replacement, protocol, time_limit };
  struct Timer {
    TimerKind kind;
    NodeId node;
    std::uint64_t token;
  };

  Protocol& protocol(NodeId node) { return *protocols_[node]; }
  std::uint64_t add_timer(double time, TimerKind kind, NodeId node, std::uint64_t token);
  void inject_failure(NodeId node);
  void notify_detection(NodeId failed);
  void replace(NodeId node);
  void dispatch_message(Message message);
  void halt();
  void periodic_checks();
  void report_progress();
  void check_oracle();
  void report_stall();

  const config::Config& config_;
  const graphs::TaskGraph& graph_;
  const graphs::CostModel& cost_;
  Backend& backend_;
  SimulationOptions options_;
  RuntimeIndex index_;
  TaskTable tasks_;
  std::vector<std::unique_ptr<NodeRuntime>> runtimes_;
  std::vector<std::unique_ptr<Protocol>> protocols_;  // nodes, then the coordinator
  std::vector<std::unique_ptr<ProtocolContext>> contexts_;
  std::vector<bool> alive_;
  std::vector<bool> replacement_scheduled_;
  std::vector<std::uint32_t> incarnation_;
  std::vector<std::uint32_t> epoch_;
  std::vector<std::vector<Message>> postponed_;       // for ranks being replaced
  std::vector<std::vector<Message>> outbox_;          // from ranks being replaced
  std::vector<std::vector<Running>> running_;
  std::vector<std::vector<std::uint32_t>> free_cores_;
  std::vector<Timer> timers_;
  FailureSchedule failures_;
  std::uint32_t failures_injected_ = 0;
  std::uint32_t detections_ = 0;
  std::uint32_t spares_left_ = 0;
  bool unlimited_spares_ = true;
  std::unique_ptr<TraceWriter> trace_;
  RunMetrics metrics_;
  bool halted_ = false;
  std::chrono::steady_clock::time_point wall_start_, last_progress_;
  std::uint64_t events_since_check_ = 0;
};

}  // namespace ftsim::core
