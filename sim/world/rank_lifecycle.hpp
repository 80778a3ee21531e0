#pragma once
// RankLifecycle: one rank's life, the same on every backend. It owns the rank's node host (null
// while the rank is down), its incarnation, and the messages that wait for a later incarnation;
// it runs the fail-stop of the running incarnation and starts its replacement. The Simulation
// holds one per process; an MPI rank process holds its own. What a backend adds around it stays
// in the backend: cancelling SimGrid activities or forgetting MPI timers and kernels after a
// fail-stop, resetting the channels, and how a kept message travels again after a replacement
// (a simulation routes it over the network; an MPI rank hands it over at once).
//
// The one rule for a message that reaches a rank (admit), by the incarnation it names:
// - kAnyIncarnation, or the incarnation that runs: the host takes it. If the rank is down, the
//   named incarnation is its replacement (the incarnation is bumped at the failure): kept for it.
// - an earlier incarnation: that process is gone, and so is what was meant for it: dropped.
// - a later incarnation: its sender heard of a failure that this rank has not gone through yet
//   (on MPI the fail order can be slower than another rank's message; a simulation fails a rank
//   at once, so never there): kept until that incarnation runs.
// A fail-stop keeps what is kept for a later incarnation than the one that died, and a
// replacement takes what is kept through the same rule again.
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/node/message.hpp"
#include "sim/node/node_host.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/run_metrics.hpp"

namespace ftsim::world {

using graphs::NodeId;

class NodeObserver;

class RankLifecycle {
public:
  // `coordinator`: the rank is the protocols' coordinator process (no observer, never fails).
  RankLifecycle(NodeId rank, bool coordinator, const node::HostSetup& setup, node::HostEnvironment& environment,
                const node::ProtocolFactory& factory);

  NodeId rank() const { return rank_; }
  // The running host; null while the rank is down.
  node::NodeHost* host() const { return host_.get(); }
  bool up() const { return host_ != nullptr; }
  // The running incarnation; while down, the replacement's.
  std::uint32_t incarnation() const { return incarnation_; }

  // The rank's first host (incarnation 0), as the job starts.
  void start();

  // Whether the running host takes `message` now (the rule above); if not, the message is kept
  // for a later incarnation or dropped. Inline for the common case: no copy, no allocation.
  bool admit(const node::Message& message) {
    if (host_ && (message.destination_incarnation == node::kAnyIncarnation || message.destination_incarnation == incarnation_)) {
      return true;
    }
    keep_or_drop(message);
    return false;
  }
  // The same for a message the caller gives up: moved from only when it is kept (false).
  bool admit(node::Message&& message) {
    if (host_ && (message.destination_incarnation == node::kAnyIncarnation || message.destination_incarnation == incarnation_)) {
      return true;
    }
    keep_or_drop(std::move(message));
    return false;
  }

  // Fail-stop of the running incarnation: the work it was doing is lost (on `metrics`), what it
  // had done is gone (the observer keeps the list, to account for the redoing, under failure
  // `failure_index`), its memory peaks are accounted, its host is destroyed, the incarnation is
  // bumped and what was kept for the dead incarnation is dropped. Returns the incarnation that
  // died. The backend then forgets the dead incarnation's activities.
  std::uint32_t fail_stop(node::NodeMetrics& metrics, NodeObserver& observer, std::size_t failure_index);

  // The replacement: a new host of `incarnation` (a simulation's own; on MPI the driver's) that
  // restarts knowing the failure notices issued so far (`last_notice`). `metrics` counts the
  // restart. Then hand what was kept to `redeliver` (redelivery below).
  void replace(std::uint32_t incarnation, std::uint32_t last_notice, node::NodeMetrics& metrics);

  // Hands every kept message, in the order it arrived, to `travel(Message&&)` (which returns
  // false to stop), while the rank is up. The backend decides how each travels again; it reaches
  // admit() once more, so one kept for a still later incarnation waits on.
  template <class Travel>
  void redeliver(Travel&& travel) {
    std::vector<node::Message> held;
    held.swap(postponed_);
    for (node::Message& message : held) {
      if (!host_ || !travel(std::move(message))) break;
    }
  }

  // Messages kept for a later incarnation (tests, reports).
  const std::vector<node::Message>& postponed() const { return postponed_; }

private:
  void keep_or_drop(node::Message message);
  bool for_gone_incarnation(const node::Message& message) const {
    return message.destination_incarnation != node::kAnyIncarnation && message.destination_incarnation < incarnation_;
  }

  // What every message and task looks at first (the rest is read at failures only).
  std::unique_ptr<node::NodeHost> host_;
  std::uint32_t incarnation_ = 0;
  NodeId rank_;
  bool coordinator_;
  const node::HostSetup* setup_;
  node::HostEnvironment* environment_;
  const node::ProtocolFactory* factory_;
  std::vector<node::Message> postponed_;  // for a later incarnation, in order of arrival
};

}  // namespace ftsim::world
