// Re-sends from a sender's memory after a rollback (Fig. 3 l. 65-67, 71-72): the versions a
// restarted process lacks that its senders will not send again by re-execution. A message logged
// by the send-deterministic rule goes when the recovery process releases its phase (READY); an
// unacknowledged one, or the channel state of the classic protocols, goes at once (it was in
// transit: the channel's content, which the paper's reliable channels deliver).
#include <algorithm>

#include "protocols/mutants.hpp"
#include "protocols/uncoordinated/unco_metrics.hpp"
#include "protocols/uncoordinated/unco_process.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;

std::vector<std::pair<core::NodeId, std::uint64_t>> Process::missing_versions(core::ProtocolContext& ctx) const {
  // The versions its unfinished tasks read that it does not hold and that another node sends it.
  const auto& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  const auto& sources = options_.sources[node_];
  std::vector<std::pair<core::NodeId, std::uint64_t>> missing;
  for (core::TaskId t : ctx.index().tasks_of(node_)) {
    if (runtime.status(t) == core::TaskStatus::done) continue;
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const graphs::Version v = graphs::version_read(a);
      if (runtime.holds(a.handle, v)) continue;
      const std::uint64_t key = messages::version_key(a.handle, v);
      auto it = std::lower_bound(sources.begin(), sources.end(), std::make_pair(key, core::NodeId(0)));
      if (it == sources.end() || it->first != key || it->second == node_) continue;
      missing.emplace_back(it->second, key);
    }
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

void Process::serve_replays(core::ProtocolContext& ctx) {
  if (recovery_ == Recovery::stopped || recovery_ == Recovery::restoring || replacement_ || requests_.empty()) return;
  const auto& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  std::vector<SentKey> waiting;
  for (const SentKey& request : requests_) {
    const auto [to, key] = request;
    const graphs::HandleId h = messages::handle_of(key);
    const graphs::Version v = messages::version_of(key);
    // Its re-execution sends it (a task after its restart point, or its input sent again).
    const bool again = v == 0 ? rolled_to_start_ : runtime.status(graph.writer(h, v)) != core::TaskStatus::done;
    if (again) continue;
    auto it = sent_.find(request);
    if (options_.logging == Logging::send_deterministic && it != sent_.end() && it->second.acked &&
        it->second.epoch < it->second.receiver_epoch && ready_ != kNoEpoch && it->second.phase > ready_ &&
        !(it->second.phase == ready_ + 1 && FTSIM_MUTANT(replay_one_phase_early))) {  // planted: one phase early
      waiting.push_back(request);  // Fig. 4 l. 40: a logged message waits for ReadyPhase of its phase
      continue;
    }
    if (!runtime.holds(h, v)) {
      if (v != 0) {
        ctx.fail_run("uncoordinated: protocol bug: node " + std::to_string(node_) + " cannot send " + graph.handle_name(h) +
                     " version " + std::to_string(v) + " again to node " + std::to_string(to) +
                     ": neither in its memory nor re-executed after its restart point");
        return;
      }
      runtime.reload_initial(h);  // an input is read again
    }
    runtime.subscribe(h, v, to, core::Traffic::recovery);
    ctx.counters().add(kMessagesReplayed);
    ctx.counters().add(kBytesReplayed, graph.bytes(h));
  }
  requests_ = std::move(waiting);
}

}  // namespace ftsim::protocols::uncoordinated
