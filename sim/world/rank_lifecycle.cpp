#include "sim/world/rank_lifecycle.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "sim/world/node_observer.hpp"

namespace ftsim::world {

namespace {
// Test only (tests/mpi/test_mpi_stale_messages.py): FTSIM_TEST_TRACE_LIFECYCLE=1 writes a line on
// stderr for every message the rule keeps or drops, on either backend, to compare them.
const bool kTraceLifecycle = std::getenv("FTSIM_TEST_TRACE_LIFECYCLE") != nullptr;

void trace(NodeId rank, std::uint32_t incarnation, bool up, bool kept, const node::Message& message) {
  char named[16] = "any";
  if (message.destination_incarnation != node::kAnyIncarnation) std::snprintf(named, sizeof named, "%u", message.destination_incarnation);
  std::fprintf(stderr, "ftsim lifecycle: rank %u incarnation %u %s: %s a message from %u naming incarnation %s\n", rank,
               incarnation, up ? "up" : "down", kept ? "kept" : "dropped", message.source, named);
}
}  // namespace

RankLifecycle::RankLifecycle(NodeId rank, bool coordinator, const node::HostSetup& setup, node::HostEnvironment& environment,
                             const node::ProtocolFactory& factory)
    : rank_(rank), coordinator_(coordinator), setup_(&setup), environment_(&environment), factory_(&factory) {}

void RankLifecycle::start() {
  host_ = std::make_unique<node::NodeHost>(rank_, incarnation_, *setup_, *environment_, (*factory_)(rank_, coordinator_));
}

void RankLifecycle::keep_or_drop(node::Message message) {
  // Not for a running host (the rule in the header): for a gone incarnation it is lost with it;
  // otherwise it waits for the incarnation it names (any: the replacement of a rank that is down).
  const bool kept = !for_gone_incarnation(message);
  if (kTraceLifecycle) trace(rank_, incarnation_, up(), kept, message);
  if (kept) postponed_.push_back(std::move(message));
}

std::uint32_t RankLifecycle::fail_stop(node::NodeMetrics& metrics, NodeObserver& observer, std::size_t failure_index) {
  metrics.lost_seconds += host_->running_seconds();
  observer.lose(host_->node_runtime(), failure_index);
  host_->account_peaks();
  host_.reset();  // memory, runtime state, protocol state, protocol stores
  const std::uint32_t failed = incarnation_++;
  std::erase_if(postponed_, [this](const node::Message& message) { return for_gone_incarnation(message); });
  return failed;
}

void RankLifecycle::replace(std::uint32_t incarnation, std::uint32_t last_notice, node::NodeMetrics& metrics) {
  incarnation_ = incarnation;
  ++metrics.restarts;
  start();
  host_->restart(node::RestartInfo{incarnation_, last_notice});
}

}  // namespace ftsim::world
