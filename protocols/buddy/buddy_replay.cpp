#include "protocols/buddy/buddy_replay.hpp"

#include <algorithm>
#include <string>

namespace ftsim::protocols::buddy {

using node::NodeId;
using graphs::HandleId;
using graphs::Version;

std::vector<std::uint64_t> BuddyReplay::needed_by(node::ProtocolContext& ctx, NodeId restarted, std::uint32_t checkpoint) const {
  // The inputs of the restarted node's tasks from the cut on (the graph, known to all), kept when
  // this node produces them: per failure, the restarted node's tasks, not every version of the job
  // (each survivor scanning every version made a failure cost O(nodes x versions)).
  const auto& graph = ctx.graph();
  const node::TaskId cut = checkpoint == 0 ? 0 : options_.saves.position(checkpoint);
  const NodeId me = ctx.node();
  std::vector<std::uint64_t> keys;
  for (node::TaskId reader : ctx.index().tasks_of(restarted)) {
    if (reader < cut) continue;
    for (const graphs::Access& a : graph.accesses(reader)) {
      if (!graphs::reads(a.mode)) continue;
      const Version v = graphs::version_read(a);
      if (graph.version_node(a.handle, v) == me) keys.push_back(messages::version_key(a.handle, v));
    }
  }
  std::sort(keys.begin(), keys.end());  // in (handle, version) order, each once
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

BuddyReplay::Outcome BuddyReplay::serve(node::ProtocolContext& ctx, NodeId to, const std::vector<std::uint64_t>& keys) {
  const auto& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  Outcome outcome;
  for (std::uint64_t key : keys) {
    const HandleId h = messages::handle_of(key);
    const Version v = messages::version_of(key);
    if (!runtime.holds(h, v)) {
      if (v == 0) {
        runtime.reload_initial(h);
      } else if (runtime.status(graph.writer(h, v)) == node::TaskStatus::done) {
        // Gone: this node restored a cut after v's next writer, which replaced it. Any checkpoint
        // up to the last cut before that writer brings v back: one after v's writer holds v (a cut's
        // state is each datum's version at the cut), an older one runs v's writer again. (§3.5 rolls
        // back before v's writer, which a level's older checkpoint may not reach.)
        const node::TaskId replaced_by = v < graph.final_version(h) ? graph.writer(h, v + 1) : graph.writer(h, v);
        outcome.rollback_to = std::min(outcome.rollback_to, options_.section_of(replaced_by));
        continue;
      } else {
        continue;  // not produced yet: its normal send will go
      }
    }
    runtime.subscribe(h, v, to, node::Traffic::recovery);
    if (ctx.recording()) {
      Span& span = spans_[to];
      if (span.pending++ == 0) span.began = ctx.now();
    }
    ++outcome.effect.messages_replayed;
    outcome.effect.bytes_replayed += graph.bytes(h);
  }
  return outcome;
}

void BuddyReplay::on_released(node::ProtocolContext& ctx, const node::Message& m) {
  if (m.traffic != node::Traffic::recovery) return;
  auto it = spans_.find(m.destination);
  if (it == spans_.end() || it->second.pending == 0) return;
  // The replay span: from the first replayed message to the last one on the wire.
  if (--it->second.pending == 0) ctx.record_span("replay to node " + std::to_string(m.destination), "recovery", it->second.began);
}

}  // namespace ftsim::protocols::buddy
