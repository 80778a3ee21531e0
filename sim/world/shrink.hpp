#pragma once
// Shrink: recovery without spares (/platform/on_no_spare: "shrink", docs/shrink.md).
//
// Once no spare machine is left, a failed rank is not lost: its process restarts on a surviving
// machine, chosen by one deterministic rule, and the run goes on with one machine less. The
// protocol recovers the rank exactly as it recovers a replacement on a spare (its checkpoint is
// fetched from storage or from buddies, its lost work is redone, its messages are replayed), so
// every byte of the failed rank's state that moves to the survivor is a message of real size
// that takes network time; the survivor's cores are shared by the ranks it runs (MachineCores).
// This is the Charm++ / AMPI way of shrinking (a rank is an object that migrates), not a
// re-partitioning of the data over all survivors: the rank's tasks and data stay together. With
// several ranks per machine (/platform/ranks_per_machine, over-decomposition) a failed machine's
// ranks are re-hosted one by one by the rule, so they spread over different survivors.
//
// ShrinkPlacement is the machine room: which machine runs each rank, which machines are up, and
// the rule. MachineCores is the cores of each machine, shared by the ranks it runs. Both belong to
// the world driver's Machines (sim/world/machines.hpp): no node reads them; a rank is addressed by
// its number and the communication layer routes to its machine, as an MPI library does after a
// respawn.
#include <cstdint>
#include <vector>

#include "sim/node/message.hpp"

namespace ftsim::world {

using graphs::NodeId;
using graphs::TaskId;

class ShrinkPlacement {
public:
  // Machine m starts with ranks m*k .. m*k+k-1 (k = ranks_per_machine, block placement: a rank's
  // neighbours in number, which the distributions make its neighbours in the data, share its
  // memory); machines ranks/k .. ranks/k + spares - 1 are the spare machines, taken in order.
  ShrinkPlacement(NodeId ranks, std::uint32_t ranks_per_machine, std::uint32_t spares);

  std::uint32_t machines() const { return static_cast<std::uint32_t>(ranks_on_.size()); }
  std::uint32_t ranks_per_machine() const { return ranks_per_machine_; }
  std::uint32_t machine_of(NodeId rank) const { return machine_of_[rank]; }
  // The ranks a machine runs now.
  const std::vector<NodeId>& ranks_on(std::uint32_t machine) const { return ranks_on_[machine]; }
  // Machines up: the nodes' machines that have not failed for good, plus the spares in use.
  std::uint32_t machines_up() const { return machines_up_; }
  // The rank runs on another rank's machine (it was re-hosted by a shrink).
  bool rehosted(NodeId rank) const { return machine_of_[rank] != home_[rank]; }

  // The machine of `rank` failed: every rank on it is gone with it. Returns those ranks.
  std::vector<NodeId> machine_failed(NodeId rank);
  // The rank restarts on the next spare machine. With several ranks per machine a spare machine
  // takes every rank of the failed machine together: the first of them to restart takes the next
  // spare, the others join it. Returns the rank it joins (kNoRank: a machine of its own).
  NodeId take_spare(NodeId rank);
  static constexpr NodeId kNoRank = 0xffffffffu;
  // Buddies (/checkpoints/buddy, the same in every process): ranks that keep each other's
  // checkpoint data. Two of them on one machine die together, so the rule avoids that.
  void set_buddies(std::vector<std::vector<NodeId>> buddies_of) { buddies_of_ = std::move(buddies_of); }
  // The rule of a shrink: the machine up that runs the fewest ranks; among those, one that runs
  // no buddy of the rank and no rank it is a buddy of, if there is one; then the first in the
  // cyclic order of machine numbers after the failed rank's own machine. It depends only on the
  // placement, which every failure changes in the same order, and on the config, so any process
  // that knows the failures in their order computes the same machine. kNoMachine if none is up.
  std::uint32_t choose_machine(NodeId rank) const;
  void host(NodeId rank, std::uint32_t machine);

  static constexpr std::uint32_t kNoMachine = 0xffffffffu;

private:
  bool runs_buddy_of(std::uint32_t machine, NodeId rank) const;

  std::vector<std::uint32_t> machine_of_;     // per rank: the machine it runs (or ran) on
  std::vector<std::uint32_t> home_;           // per rank: the machine it had before any shrink
  std::vector<std::vector<NodeId>> ranks_on_; // per machine
  std::vector<bool> up_;                      // per machine
  std::vector<std::vector<NodeId>> buddies_of_;  // per rank (empty: no buddies)
  std::vector<std::uint32_t> replaced_by_;    // per failed machine: the spare that took its ranks (k > 1)
  std::uint32_t ranks_per_machine_;
  std::uint32_t next_spare_;
  std::uint32_t machines_up_;
};

// The cores of each machine, shared by the ranks it runs. A rank's runtime believes it has the
// machine's cores (it never starts more tasks than that); when the ranks of one machine together
// ask for more, the extra tasks wait for a core in the order asked (a time-shared machine, as an
// oversubscribed MPI rank is). With one rank per machine nothing ever waits.
class MachineCores {
public:
  MachineCores(std::uint32_t machines, std::uint32_t cores_per_machine);

  struct Start {
    NodeId rank;
    TaskId task;
    double seconds;
  };
  // Whether `start` may begin now (a core is free: it is taken); otherwise it waits.
  bool request(std::uint32_t machine, const Start& start);
  // A task of `rank` ended or was cancelled: its core is free. Returns the task that gets it, if any.
  bool release(std::uint32_t machine, NodeId rank, TaskId task, Start& next);
  // A task of `rank` that was still waiting is cancelled: returns whether it was waiting.
  bool withdraw(std::uint32_t machine, NodeId rank, TaskId task);
  // The rank died: its running and waiting tasks are gone. Appends the tasks that get the cores.
  void drop_rank(std::uint32_t machine, NodeId rank, std::vector<Start>& started);

private:
  struct Machine {
    std::vector<std::pair<NodeId, TaskId>> running;
    std::vector<Start> waiting;  // in the order asked
  };
  std::uint32_t cores_;
  std::vector<Machine> machines_;
};

}  // namespace ftsim::world
