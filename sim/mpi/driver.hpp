#pragma once
// The world driver of an MPI run, on the last rank beside the coordinator's host. It is the
// only part that knows true liveness, as the world does in a simulation: it injects the
// failures (wall-clock times from /failures), sends failure notices after the detection latency
// and starts replacements after the downtime, serves stable storage, detects the end of the run
// and gathers the results. Hosts learn of it only through packets.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/world/failure_ledger.hpp"
#include "sim/world/failure_schedule.hpp"
#include "sim/world/spare_pool.hpp"
#include "sim/mpi/file_store.hpp"
#include "sim/mpi/mpi_run.hpp"
#include "sim/mpi/packet.hpp"
#include "sim/mpi/timer_queue.hpp"

namespace ftsim::mpi {

using graphs::HandleId;
using graphs::NodeId;
using graphs::TaskId;

class RankProcess;


class Driver {
public:
  Driver(const MpiRunSpec& spec, RankProcess& local);

  void start();
  // A packet for the driver (from any rank, this one included).
  void handle(int from, PacketKind kind, node::WireReader& in);
  // Timers, termination rounds, limits; returns whether anything happened.
  bool tick();
  bool done() const { return results_missing_ == 0; }
  MpiRunResult take_result();

private:
  struct Action {
    enum class Kind : std::uint8_t { inject, detect, replace } kind;
    NodeId node;
    std::uint32_t incarnation;
    config::FailureClass failure_class = config::FailureClass::node;  // inject: what it takes down
    // inject, a failure drawn for the rank: the rank's draw it belongs to (kListed: a listed one).
    std::uint32_t draw = kListed;
    // inject, a burst's (/failures/burst): the incarnation it strikes (kListed: not a burst).
    std::uint32_t burst_of = kListed;
  };
  static constexpr std::uint32_t kListed = ~std::uint32_t(0);
  void schedule_drawn(NodeId node);  // the rank's next drawn failure (renewal models), if any
  NodeId nodes() const { return spec_.graph.node_count(); }
  // A failure of `node` of class `kind`: it and, for a group or job failure, the others it takes
  // down at the same instant (world::FailureSchedule::victims, as in the simulation).
  void inject(NodeId node, double downtime, config::FailureClass kind = config::FailureClass::node, bool burst = false);
  void fail_rank(NodeId node, double now, double downtime, config::FailureClass kind, NodeId origin, bool burst);
  // /failures/burst: the raised rate of the other ranks of the failed rank's group, for a while.
  void schedule_bursts(NodeId failed);
  void notify(NodeId node, std::uint32_t incarnation);
  void replace(NodeId node);
  void open_round();
  void close_round();
  void finish(bool complete, const std::string& reason);
  void add_results(NodeId process, Results results);
  void report_progress();

  const MpiRunSpec& spec_;
  RankProcess& local_;
  world::FailureSchedule schedule_;
  TimerQueue<Action> timers_;
  // Per rank: its current draw. A group or job failure that takes the rank ends it (the failure
  // drawn for the dead rank is void; its replacement draws its own), as in the simulation.
  std::vector<std::uint32_t> draw_;
  node::RunMetrics metrics_;
  std::vector<node::NodeMetrics> process_metrics_;
  std::vector<bool> up_;
  std::vector<std::uint32_t> incarnation_;
  std::vector<bool> replacement_scheduled_;
  world::FailureLedger ledger_;  // the failure records by node and incarnation (in metrics_)
  world::SparePool spares_;
  std::uint32_t injected_ = 0, detections_ = 0;
  std::uint32_t pending_actions_ = 0;  // detections and replacements to come
  // The storage servers' objects: files, a directory per server (/platform/storage: the PFS).
  FileStore storage_;
  // Termination detection: rounds of status queries; the end is two identical rounds in which
  // every host is finished and every counted packet sent was received.
  std::uint64_t round_ = 0;
  bool round_open_ = false;
  double round_opened_at_ = -1, last_round_ = -1;
  std::vector<RankStatus> statuses_;
  std::size_t replies_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> previous_counts_;
  bool previous_finished_ = false;
  double quiet_since_ = -1;  // rounds unchanged with nothing pending since then (a stall)
  // The end.
  bool finishing_ = false;
  std::size_t results_missing_ = 1;
  double end_time_ = 0;
  std::vector<std::string> missing_, wrong_;
  std::size_t missing_count_ = 0, wrong_count_ = 0;
  MpiRunResult result_;
  double last_progress_ = 0;
  double gather_started_ = 0;
};

}  // namespace ftsim::mpi
