#include "protocols/buddy/buddy_replay.hpp"

#include <algorithm>
#include <string>

namespace ftsim::protocols {

namespace messages = buddy_messages;
using core::NodeId;
using graphs::HandleId;
using graphs::Version;

std::vector<std::uint64_t> BuddyReplay::needed_by(core::ProtocolContext& ctx, NodeId restarted, std::uint32_t checkpoint) const {
  const auto& graph = ctx.graph();
  const core::TaskId cut = checkpoint == 0 ? 0 : options_.saves.position(checkpoint);
  std::vector<std::uint64_t> keys;
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    for (Version v = 0; v <= graph.final_version(h); ++v) {
      if (graph.version_node(h, v) != ctx.node()) continue;
      bool needed = false;
      for (core::TaskId reader : ctx.index().readers(h, v)) needed = needed || (graph.node(reader) == restarted && reader >= cut);
      if (needed) keys.push_back(messages::version_key(h, v));
    }
  }
  return keys;
}

BuddyReplay::Outcome BuddyReplay::serve(core::ProtocolContext& ctx, NodeId to, const std::vector<std::uint64_t>& keys) {
  const auto& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  Outcome outcome;
  for (std::uint64_t key : keys) {
    const HandleId h = messages::handle_of(key);
    const Version v = messages::version_of(key);
    if (!runtime.holds(h, v)) {
      if (v == 0) {
        runtime.reload_initial(h);
      } else if (runtime.status(graph.writer(h, v)) == core::TaskStatus::done) {
        outcome.rollback_to = std::min(outcome.rollback_to, options_.section_of(graph.writer(h, v)));
        continue;
      } else {
        continue;  // not produced yet: its normal send will go
      }
    }
    runtime.subscribe(h, v, to, core::Traffic::recovery);
    if (ctx.recording()) {
      Span& span = spans_[to];
      if (span.pending++ == 0) span.began = ctx.now();
    }
    ++outcome.effect.messages_replayed;
    outcome.effect.bytes_replayed += graph.bytes(h);
  }
  return outcome;
}

void BuddyReplay::on_released(core::ProtocolContext& ctx, const core::Message& m) {
  if (m.traffic != core::Traffic::recovery) return;
  auto it = spans_.find(m.destination);
  if (it == spans_.end() || it->second.pending == 0) return;
  // The replay span: from the first replayed message to the last one on the wire.
  if (--it->second.pending == 0) ctx.record_span("replay to node " + std::to_string(m.destination), "recovery", it->second.began);
}

}  // namespace ftsim::protocols
