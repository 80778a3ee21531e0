#include "protocols/cck/cck_version_source.hpp"

#include "sim/node/version_store.hpp"

namespace ftsim::protocols::cck {

bool executed_since_checkpoint(const PlanningContext& context, const LocalState& state, TaskId t) {
  const std::uint32_t slot = context.index.local_slot(t);
  return state.executed[slot] && !state.at_checkpoint[slot];
}

VersionSource version_source(const PlanningContext& context, NodeId node, const LocalState& state, std::uint64_t key) {
  using Kind = VersionSource::Kind;
  const bool held = state.held.count(key) != 0;
  if (context.keep_in_memory && held) return {Kind::nothing};
  const graphs::TaskGraph& graph = context.graph;
  const HandleId h = node::VersionStore::handle_of(key);
  const Version v = node::VersionStore::version_of(key);
  const bool own = v == 0 ? graph.owner(h) == node : graph.node(graph.writer(h, v)) == node;
  if (own && v > 0) {
    const TaskId writer = graph.writer(h, v);
    if (executed_since_checkpoint(context, state, writer)) return {Kind::reexecute, writer};
  }
  if (state.checkpoint_versions.count(key) != 0) return {held ? Kind::nothing : Kind::reload};
  if (!own) {
    const std::uint32_t transfer = context.transfers.find(h, v, node);
    if (transfer != graphs::kNone) return {Kind::receive, transfer};
  }
  return {held ? Kind::nothing : Kind::missing};
}

}  // namespace ftsim::protocols::cck
