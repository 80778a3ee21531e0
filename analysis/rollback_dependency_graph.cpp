#include "analysis/rollback_dependency_graph.hpp"

#include <stdexcept>

namespace ftsim::analysis {

RollbackDependencyGraph::RollbackDependencyGraph(const Trace& trace) {
  const std::size_t processes = trace.process_count();
  first_node_.resize(processes + 1);
  std::uint64_t nodes = 0;
  for (ProcessId p = 0; p < processes; ++p) {
    first_node_[p] = Node(nodes);
    nodes += std::uint64_t(trace.checkpoint_count(p)) + 2;
    if (nodes >= std::uint64_t(UINT32_MAX)) throw std::length_error("too many checkpoints for the R-graph");
  }
  first_node_[processes] = Node(nodes);
  node_process_.resize(nodes);
  for (ProcessId p = 0; p < processes; ++p) {
    std::fill(node_process_.begin() + first_node_[p], node_process_.begin() + first_node_[p + 1], p);
  }

  // The edge of each received message: the node after its send's interval, and after its
  // receive's interval (one sweep per process, checkpoints and events merged).
  const std::size_t messages = trace.message_count();
  std::vector<Node> from(messages, 0), to(messages, 0);
  for (ProcessId p = 0; p < processes; ++p) {
    const auto& checkpoint_positions = trace.checkpoint_positions(p);
    CheckpointIndex interval = 0;
    for (Position i = 0; i < trace.communication_count(p); ++i) {
      while (interval < checkpoint_positions.size() && checkpoint_positions[interval] <= i) ++interval;
      const MessageId m = trace.message_at(p, i);
      (trace.is_receive_at(p, i) ? to : from)[m] = node(p, interval + 1);
    }
  }
  out_begin_.assign(nodes + 1, 0);
  in_begin_.assign(nodes + 1, 0);
  std::size_t edges = 0;
  for (MessageId m = 0; m < messages; ++m) {
    if (!trace.received(m)) continue;
    ++out_begin_[from[m] + 1];
    ++in_begin_[to[m] + 1];
    ++edges;
  }
  for (std::size_t n = 0; n < nodes; ++n) {
    out_begin_[n + 1] += out_begin_[n];
    in_begin_[n + 1] += in_begin_[n];
  }
  out_target_.resize(edges);
  out_message_.resize(edges);
  in_source_.resize(edges);
  in_message_.resize(edges);
  std::vector<std::uint64_t> out_next(out_begin_.begin(), out_begin_.end() - 1);
  std::vector<std::uint64_t> in_next(in_begin_.begin(), in_begin_.end() - 1);
  for (MessageId m = 0; m < messages; ++m) {
    if (!trace.received(m)) continue;
    const std::uint64_t out = out_next[from[m]]++;
    out_target_[out] = to[m];
    out_message_[out] = m;
    const std::uint64_t in = in_next[to[m]]++;
    in_source_[in] = from[m];
    in_message_[in] = m;
  }
}

}  // namespace ftsim::analysis
