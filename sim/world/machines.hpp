#pragma once
// Machines: the world driver's part of machines that run several ranks or that shrink
// (/platform/ranks_per_machine > 1, /platform/on_no_spare: "shrink"; shrink.hpp, docs/shrink.md).
// It owns the placement of ranks on machines and their shared cores, decides whether a failed
// rank restarts on a spare machine or on a survivor (a re-hosting), and measures what moves to a
// re-hosted rank until its failure is recovered. The Simulation holds one only when machines are
// tracked, and asks it before starting or cancelling a task on the backend.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "sim/config/config.hpp"
#include "sim/node/run_metrics.hpp"
#include "sim/node/run_record.hpp"
#include "sim/world/backend.hpp"
#include "sim/world/shrink.hpp"

namespace ftsim::world {

using graphs::NodeId;
using graphs::TaskId;

class Machines {
public:
  // `metrics`: where the machines and the redistributions are reported.
  Machines(const config::Config& config, NodeId ranks, Backend& backend, node::RunMetrics& metrics);

  // Whether a failed rank left without a spare restarts on a surviving machine.
  bool shrinks() const { return shrink_on_no_spare_; }
  // Machines of several ranks: a failure takes the machine, a spare machine takes its ranks.
  bool shared() const { return placement_.ranks_per_machine() > 1; }

  // --- tasks: the ranks of one machine share its cores ---
  // Starts the task on the backend, or lets it wait for a core of its machine.
  void start_task(NodeId rank, TaskId task, double seconds);
  void cancel_task(NodeId rank, TaskId task);
  // A task of `rank` ended: its core goes to the next waiting task of the machine, if any.
  void task_finished(NodeId rank, TaskId task);

  // --- failures ---
  // The failure of `rank` takes down its machine: the ranks it ran (`rank` among them).
  std::vector<NodeId> machine_failed(NodeId rank) { return placement_.machine_failed(rank); }
  // The rank died (after its fail-stop): its tasks leave the machine's cores; whether a spare
  // takes it (`spare`), else it is to be re-hosted by a shrink.
  void rank_died(NodeId rank, bool spare);
  // The rank restarts: on a spare machine, or on a survivor by the rule when no spare was left.
  // Returns false, with the reason in `error`, if it cannot. `rehosted` tells which it was.
  bool restart(NodeId rank, double now, bool& rehosted, std::string& error);
  // What its restart record says: the machine and the machines up; returns the numbers of the
  // ranks on that machine (the record's text, which the caller keeps alive while it is recorded).
  std::string describe(NodeId rank, node::Record& record) const;
  // The rank runs on another rank's machine since a shrink (its failures are that machine's).
  bool rehosted(NodeId rank) const { return placement_.rehosted(rank); }

  // --- what moves to a re-hosted rank ---
  // Bytes of `traffic` reaching `rank`: its state's restore and recovery count until recovered.
  void count_delivery(NodeId rank, node::Traffic traffic, std::uint64_t bytes);
  // The failure of `rank`'s incarnation `incarnation` (its current one: `current`) is recovered.
  void recovered(NodeId rank, std::uint32_t incarnation, std::uint32_t current, double now);

  void finish() { metrics_.machines_at_end = placement_.machines_up(); }

private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  bool rehost(NodeId rank, double now, std::string& error);

  Backend& backend_;
  node::RunMetrics& metrics_;
  NodeId ranks_;
  bool shrink_on_no_spare_;
  ShrinkPlacement placement_;
  MachineCores cores_;
  std::vector<bool> rehost_pending_;              // per rank: its restart is a shrink
  std::vector<std::size_t> open_redistribution_;  // per rank: its redistribution being measured, or kNone
};

}  // namespace ftsim::world
