#pragma once
// RankProcess: what one MPI rank runs. It holds the rank's node host (or, on the driver rank, the
// coordinator's host) and is its HostEnvironment: kernels run on worker threads with real
// buffers, messages go out as packets, timers are wall-clock, stable storage is on the driver.
// Emulated fail-stop: on the driver's order the host is destroyed (memory, runtime and protocol
// state), its running kernels and timers are forgotten, and after the downtime a new host with
// the next incarnation takes the rank; the host, the incarnation, those steps and which messages
// wait are the RankLifecycle's (sim/world/rank_lifecycle.hpp), the same as in a simulation.
// A progress loop (non-blocking MPI, finished kernels, timers) drives everything; only this
// thread calls MPI or touches the host.
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/node/node_host.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/world/node_observer.hpp"
#include "sim/world/rank_lifecycle.hpp"
#include "sim/mpi/file_store.hpp"
#include "sim/mpi/mpi_run.hpp"
#include "sim/mpi/packet.hpp"
#include "sim/mpi/timer_queue.hpp"
#include "sim/mpi/transport.hpp"
#include "sim/mpi/worker_pool.hpp"

namespace ftsim::mpi {

using graphs::HandleId;
using graphs::NodeId;
using graphs::TaskId;

class Driver;

class RankProcess final : public node::HostEnvironment {
public:
  RankProcess(const MpiRunSpec& spec, Transport& transport);
  ~RankProcess() override;

  // Runs until the driver ends the run; on the driver rank, returns the results.
  MpiRunResult run();

  // --- for the driver (same rank) ---
  void send_packet(int to, node::Bytes packet);
  RankStatus status() const;
  double clock() const { return now(); }
  // This rank's share of the results (metrics, oracle, final buffers).
  Results results();
  // The driver rank's timers (the coordinator's) wait while held: once every host is finished
  // the run is over, as a simulation halts there, and a periodic protocol timer must not start
  // new work (e.g. a checkpoint) that keeps the termination rounds from ever seeing quiet.
  void hold_timers(bool hold) { hold_timers_ = hold; }

  // --- HostEnvironment ---
  double now() const override;
  void start_task(NodeId node, TaskId task, double seconds) override;
  void cancel_task(NodeId node, TaskId task) override;
  void send(node::Message message) override;
  std::uint32_t storage_servers() const override;
  void storage_write(NodeId node, std::uint32_t server, std::uint64_t key, node::Bytes content, std::uint64_t bytes,
                     std::uint64_t token) override;
  void storage_read(NodeId node, std::uint32_t server, std::uint64_t key, std::uint64_t token) override;
  void storage_erase(NodeId node, std::uint32_t server, std::uint64_t key) override;
  std::uint64_t set_timer(NodeId node, double delay, std::uint64_t token) override;
  void cancel_timer(std::uint64_t id) override;
  node::NodeMetrics& metrics_of(NodeId) override { return metrics_; }
  bool observe_execution(TaskId task) override;
  void record_failure_effect(const node::FailureNotice& failure, const node::FailureEffect& effect) override;
  void record_recovered(const node::FailureNotice& failure) override;
  void record_checkpoint(const node::CheckpointRecord& record) override;
  node::Recorder& recorder() override { return recorder_; }
  void fail_run(const std::string& reason) override;
  void check_completion() override {}  // the driver detects the end (termination detection)
  node::ContentRef initial_content(HandleId h) override;
  node::ContentRef output_content(NodeId node, TaskId task, HandleId h) override;

private:
  struct TimerAction {
    enum class Kind : std::uint8_t { protocol, activity } kind;
    std::uint32_t incarnation;
    std::uint64_t token;  // the protocol's token, or the activity's task id
  };
  bool is_node() const { return process_ < node_count_; }
  // The rank's running host (null while down) and its incarnation (while down, the replacement's).
  node::NodeHost* host() const { return rank_.host(); }
  std::uint32_t incarnation() const { return rank_.incarnation(); }
  bool step();
  void handle(int from, const node::Bytes& packet);
  void on_host_message(node::Message m);
  void fail(std::uint32_t incarnation, std::uint64_t failure_index, bool process_only);
  // Node-local storage (server node::kLocalStorage): real files, answered in the rank's own loop.
  void local_storage(bool write, std::uint64_t key, const node::Bytes* content, std::uint64_t token);
  void replace(std::uint32_t incarnation, std::uint32_t last_sequence);
  void on_job_done(std::unique_ptr<KernelJob> job);
  void to_driver(node::Bytes packet);
  bool storage_missing(std::uint32_t server);  // fails the run if the platform has no such storage
  std::uint32_t slot(TaskId t) const { return index_.local_slot(t); }

  const MpiRunSpec& spec_;
  Transport& transport_;
  const graphs::TaskGraph& graph_;
  NodeId node_count_;
  NodeId process_;  // node id, or node_count for the coordinator (driver rank)
  node::RuntimeIndex index_;
  node::HostSetup setup_;
  std::chrono::steady_clock::time_point start_;
  // The observer's share kept on this rank (outlives the hosts): metrics, executions, lost work.
  node::NodeMetrics metrics_;
  node::Recorder recorder_;  // no exporter on MPI yet (see docs/mpi.md)
  std::optional<world::NodeObserver> observer_;   // a node's rank: executions, lost work, its oracle share
  std::vector<double> last_duration_;             // per local task: its last measured execution
  std::unordered_map<std::uint64_t, node::FailureEffect> lost_effects_;  // per failure index
  double last_completion_ = 0;
  // The process: its host, incarnation and the messages kept for a later incarnation.
  world::RankLifecycle rank_;
  std::unique_ptr<WorkerPool> pool_;
  std::vector<std::uint32_t> generation_;        // per local task: its current start
  std::vector<double> started_at_;               // per local task
  const KernelJob* completing_ = nullptr;        // the job whose outputs the runtime is storing
  TimerQueue<TimerAction> timers_;
  std::unordered_map<TaskId, std::uint64_t> activity_timer_;
  std::unordered_map<std::uint64_t, node::Message> in_flight_;  // by release token (no body)
  std::uint64_t next_token_ = 1;
  struct LocalPacket {
    node::Bytes packet;
    std::uint64_t token;
  };
  std::deque<LocalPacket> inbox_;  // packets to this very rank
  std::optional<FileStore> disk_;  // with /platform/local_storage: its node-local storage
  struct LocalAnswer {             // a node-local read or write done, for on_storage_done
    std::uint32_t incarnation;
    std::uint64_t token;
    std::optional<node::Bytes> content;  // a read's (none: a write, or not found)
  };
  std::deque<LocalAnswer> local_answers_;
  std::uint64_t sent_ = 0, received_ = 0;
  bool finishing_ = false;
  bool hold_timers_ = false;
  bool crash_after_task_ = false;
  bool throw_after_task_ = false;
  // Test only: a fail order, and what the driver rank sent after it, taken that late (seconds).
  double fail_order_delay_ = 0;
  double late_until_ = 0;
  std::vector<node::Bytes> late_packets_;
  std::unique_ptr<Driver> driver_;
  std::vector<std::uint64_t> released_;
  std::vector<std::unique_ptr<KernelJob>> done_jobs_;
};

}  // namespace ftsim::mpi
