#pragma once
// The rollback-dependency graph (R-graph) of a trace (Wang 1997). One node per checkpoint
// C(p,k), k = 0 .. K_p, plus one for each process's final state, C(p, K_p + 1) (Wang's volatile
// checkpoint). Edges say "if the source is undone, the target must be undone too":
//   - C(p,k) -> C(p,k+1), implicit (a process that restarts before k also loses k + 1);
//   - for each received message, sent in interval a of its sender s (after C(s,a), before
//     C(s,a+1)) and received in interval b of its receiver r: C(s,a+1) -> C(r,b+1), labelled with
//     the message (undoing the send makes the receive an orphan).
// A path from C(p,k+1) to C(q,j) exists iff there is a Z-path from C(p,k) to C(q,j) (Netzer &
// Xu 1995); so C(p,k) is on a Z-cycle iff C(p,k+1) reaches C(p,k).
// Message edges are stored forward and backward in compressed rows; no allocation per edge.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "analysis/trace.hpp"

namespace ftsim::analysis {

class RollbackDependencyGraph {
public:
  using Node = std::uint32_t;

  explicit RollbackDependencyGraph(const Trace& trace);

  std::size_t node_count() const { return node_process_.size(); }
  // k in 0 .. checkpoint_count(p) + 1; the last one is the final state.
  Node node(ProcessId p, CheckpointIndex k) const { return first_node_[p] + k; }
  ProcessId process_of(Node n) const { return node_process_[n]; }
  CheckpointIndex index_of(Node n) const { return n - first_node_[node_process_[n]]; }
  bool is_final_state(Node n) const { return n + 1 == first_node_[node_process_[n] + 1]; }

  std::optional<Node> local_successor(Node n) const {
    return is_final_state(n) ? std::nullopt : std::optional<Node>(n + 1);
  }
  std::optional<Node> local_predecessor(Node n) const {
    return index_of(n) == 0 ? std::nullopt : std::optional<Node>(n - 1);
  }
  // Message edges out of n: targets and the message of each.
  std::span<const Node> targets(Node n) const { return {out_target_.data() + out_begin_[n], out_target_.data() + out_begin_[n + 1]}; }
  std::span<const MessageId> out_messages(Node n) const {
    return {out_message_.data() + out_begin_[n], out_message_.data() + out_begin_[n + 1]};
  }
  // Message edges into n: sources and the message of each.
  std::span<const Node> sources(Node n) const { return {in_source_.data() + in_begin_[n], in_source_.data() + in_begin_[n + 1]}; }
  std::span<const MessageId> in_messages(Node n) const {
    return {in_message_.data() + in_begin_[n], in_message_.data() + in_begin_[n + 1]};
  }
  std::size_t message_edge_count() const { return out_target_.size(); }

private:
  std::vector<Node> first_node_;  // per process, and one past the last node
  std::vector<ProcessId> node_process_;
  std::vector<std::uint64_t> out_begin_, in_begin_;
  std::vector<Node> out_target_, in_source_;
  std::vector<MessageId> out_message_, in_message_;
};

}  // namespace ftsim::analysis
