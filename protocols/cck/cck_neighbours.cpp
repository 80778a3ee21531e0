#include "protocols/cck/cck_neighbours.hpp"

namespace ftsim::protocols::cck {

std::vector<NodeId> expected_senders(node::ProtocolContext& ctx, const CckOptions& options, NodeId self) {
  const NodeId nodes = ctx.node_count();
  std::vector<NodeId> senders;
  if (options.flush_all) {
    for (NodeId n = 0; n < nodes; ++n) {
      if (n != self) senders.push_back(n);
    }
    return senders;
  }
  // The nodes its remaining graph receives from: the sources of the versions its tasks not done
  // read, and of its final versions, that none of its own tasks produces. A version already
  // received counts too while a reader of it is not done (its receive is part of what remains to
  // run; and V then depends on the graph and the tasks done only, not on when data arrived: the
  // same checkpoint at a cut costs the same messages on every backend).
  const graphs::TaskGraph& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  std::vector<std::uint8_t> from(nodes, 0);
  auto expect = [&](HandleId h, Version v) {
    const NodeId source = v == 0 ? graph.owner(h) : graph.node(graph.writer(h, v));
    if (source == self) return;  // its own: the input, or a writer of its own
    from[source] = 1;
  };
  for (TaskId t : ctx.index().tasks_of(self)) {
    if (runtime.status(t) == node::TaskStatus::done) continue;
    for (const graphs::Access& a : graph.accesses(t)) {
      if (graphs::reads(a.mode)) expect(a.handle, graphs::version_read(a));
    }
  }
  for (HandleId h : options.final_handles[self]) {
    if (!runtime.holds(h, graph.final_version(h))) expect(h, graph.final_version(h));
  }
  for (NodeId n = 0; n < nodes; ++n) {
    if (from[n]) senders.push_back(n);
  }
  return senders;
}

NodeSet future_receivers(node::ProtocolContext& ctx, const CckOptions& options, NodeId self) {
  NodeSet receivers;
  if (options.flush_all) {
    for (NodeId n = 0; n < ctx.node_count(); ++n) {
      if (n != self) receivers.insert(n);
    }
    return receivers;
  }
  node::ProtocolRuntime runtime = ctx.runtime();
  for (TaskId t : ctx.index().tasks_of(self)) {
    if (runtime.status(t) == node::TaskStatus::done || runtime.executed_once(t)) continue;
    for (std::uint32_t id : ctx.index().sends_after(t)) receivers.insert(ctx.graph().transfers()[id].destination);
  }
  return receivers;
}

std::string node_list(const std::vector<NodeId>& nodes) {
  std::string out;
  std::size_t shown = 0;
  for (NodeId n : nodes) {
    if (shown++ == 6) {
      out += ", ...";
      break;
    }
    out += (out.empty() ? "" : ", ") + std::to_string(n);
  }
  return out;
}

}  // namespace ftsim::protocols::cck
