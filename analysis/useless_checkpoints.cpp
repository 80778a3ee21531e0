#include "analysis/useless_checkpoints.hpp"

#include <algorithm>
#include <limits>

#include "analysis/rollback_dependency_graph.hpp"

namespace ftsim::analysis {

namespace {

using Node = RollbackDependencyGraph::Node;
constexpr Node kNone = std::numeric_limits<Node>::max();
constexpr MessageId kLocalEdge = std::numeric_limits<MessageId>::max();

// Calls f(target, message) for each successor of n (message kLocalEdge for the local edge).
template <class F>
void for_each_successor(const RollbackDependencyGraph& graph, Node n, F&& f) {
  if (const auto next = graph.local_successor(n)) f(*next, kLocalEdge);
  const auto targets = graph.targets(n);
  const auto messages = graph.out_messages(n);
  for (std::size_t e = 0; e < targets.size(); ++e) f(targets[e], messages[e]);
}

template <class F>
void for_each_predecessor(const RollbackDependencyGraph& graph, Node n, F&& f) {
  if (const auto previous = graph.local_predecessor(n)) f(*previous, kLocalEdge);
  const auto sources = graph.sources(n);
  const auto messages = graph.in_messages(n);
  for (std::size_t e = 0; e < sources.size(); ++e) f(sources[e], messages[e]);
}

// Tarjan's strongly connected components, iteratively (a recursion would overflow the stack on
// long chains). Returns the component of each node.
std::vector<Node> strongly_connected_components(const RollbackDependencyGraph& graph) {
  const std::size_t nodes = graph.node_count();
  std::vector<Node> component(nodes, kNone), index(nodes, kNone), low(nodes, 0);
  std::vector<Node> stack;
  std::vector<std::uint8_t> on_stack(nodes, 0);
  // The depth-first path: a node and the next of its successors to look at (0 = local edge).
  struct Frame {
    Node node;
    std::uint64_t next;
  };
  std::vector<Frame> path;
  Node counter = 0, components = 0;
  for (Node root = 0; root < nodes; ++root) {
    if (index[root] != kNone) continue;
    path.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = 1;
    while (!path.empty()) {
      Frame& frame = path.back();
      const Node n = frame.node;
      const auto targets = graph.targets(n);
      const bool has_local = graph.local_successor(n).has_value();
      const std::uint64_t successor_count = targets.size() + 1;
      bool descended = false;
      while (frame.next < successor_count) {
        const std::uint64_t e = frame.next++;
        Node next;
        if (e == 0) {
          if (!has_local) continue;
          next = n + 1;
        } else {
          next = targets[e - 1];
        }
        if (index[next] == kNone) {
          index[next] = low[next] = counter++;
          stack.push_back(next);
          on_stack[next] = 1;
          path.push_back({next, 0});
          descended = true;
          break;
        }
        if (on_stack[next]) low[n] = std::min(low[n], index[next]);
      }
      if (descended) continue;
      if (low[n] == index[n]) {
        Node member;
        do {
          member = stack.back();
          stack.pop_back();
          on_stack[member] = 0;
          component[member] = components;
        } while (member != n);
        ++components;
      }
      path.pop_back();
      if (!path.empty()) low[path.back().node] = std::min(low[path.back().node], low[n]);
    }
  }
  return component;
}

// Searches of the R-graph restricted to one component, with reusable marks.
class ComponentSearch {
public:
  ComponentSearch(const RollbackDependencyGraph& graph, const std::vector<Node>& component)
      : graph_(graph), component_(component), stamp_(graph.node_count(), 0), hop_(graph.node_count(), kNone),
        hop_message_(graph.node_count(), kLocalEdge) {}

  std::uint64_t work() const { return work_; }

  // Shortest path start -> goal inside their component, as its messages; false if the budget
  // ran out first.
  bool shortest(Node start, Node goal, std::uint64_t budget, std::vector<MessageId>& messages) {
    new_search();
    const Node scc = component_[goal];
    queue_.assign(1, start);  // a FIFO: queue_[head] is next
    mark(start, kNone, kLocalEdge);
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const Node n = queue_[head];
      bool found = false;
      for_each_successor(graph_, n, [&](Node next, MessageId m) {
        ++work_;
        if (found || component_[next] != scc || marked(next)) return;
        mark(next, n, m);
        if (next == goal) found = true;
        queue_.push_back(next);
      });
      if (found) {
        messages.clear();
        for (Node at = goal; at != start; at = hop_[at]) {
          if (hop_message_[at] != kLocalEdge) messages.push_back(hop_message_[at]);
        }
        std::reverse(messages.begin(), messages.end());
        return true;
      }
      if (work_ > budget) return false;
    }
    return false;  // cannot happen: start and goal share a component
  }

  // Breadth-first tree from `root` inside its component, forward (hop = parent toward the root)
  // or backward (hop = next node toward the root); hop[root] = root.
  void grow_tree(Node root, bool forward, std::vector<Node>& hop, std::vector<MessageId>& message) {
    const Node scc = component_[root];
    queue_.assign(1, root);
    hop[root] = root;
    for (std::size_t head = 0; head < queue_.size(); ++head) {
      const Node n = queue_[head];
      auto visit = [&](Node next, MessageId m) {
        if (component_[next] != scc || hop[next] != kNone) return;
        hop[next] = n;
        message[next] = m;
        queue_.push_back(next);
      };
      if (forward) {
        for_each_successor(graph_, n, visit);
      } else {
        for_each_predecessor(graph_, n, visit);
      }
    }
  }

private:
  void new_search() { ++generation_; }
  bool marked(Node n) const { return stamp_[n] == generation_; }
  void mark(Node n, Node from, MessageId m) {
    stamp_[n] = generation_;
    hop_[n] = from;
    hop_message_[n] = m;
  }

  const RollbackDependencyGraph& graph_;
  const std::vector<Node>& component_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t generation_ = 0;
  std::vector<Node> hop_;
  std::vector<MessageId> hop_message_;
  std::vector<Node> queue_;  // breadth-first searches, reused
  std::uint64_t work_ = 0;
};

}  // namespace

UselessCheckpoints find_useless_checkpoints(const Trace& trace, bool with_z_cycles, std::uint64_t shortest_search_budget) {
  const RollbackDependencyGraph graph(trace);
  const std::vector<Node> component = strongly_connected_components(graph);
  UselessCheckpoints result;
  for (ProcessId p = 0; p < trace.process_count(); ++p) {
    for (CheckpointIndex k = 1; k <= trace.checkpoint_count(p); ++k) {
      if (component[graph.node(p, k)] == component[graph.node(p, k + 1)]) result.checkpoints.emplace_back(p, k);
    }
  }
  if (!with_z_cycles) return result;

  ComponentSearch search(graph, component);
  // Root walks, built on first need per component.
  std::vector<Node> forward_hop, backward_hop;
  std::vector<MessageId> forward_message, backward_message;
  std::vector<std::uint8_t> trees_built;
  auto root_walk = [&](Node start, Node goal, std::vector<MessageId>& messages) {
    if (forward_hop.empty()) {
      forward_hop.assign(graph.node_count(), kNone);
      backward_hop.assign(graph.node_count(), kNone);
      forward_message.assign(graph.node_count(), kLocalEdge);
      backward_message.assign(graph.node_count(), kLocalEdge);
      trees_built.assign(graph.node_count(), 0);
    }
    // The root of a component: the goal of its first useless checkpoint met.
    const Node scc = component[goal];
    if (!trees_built[scc]) {
      trees_built[scc] = 1;
      search.grow_tree(goal, true, forward_hop, forward_message);
      search.grow_tree(goal, false, backward_hop, backward_message);
    }
    // The root is the one node of the component whose hop is itself.
    messages.clear();
    Node at = start;
    while (backward_hop[at] != at) {  // start -> root along the backward tree
      if (backward_message[at] != kLocalEdge) messages.push_back(backward_message[at]);
      at = backward_hop[at];
    }
    std::vector<MessageId> second;
    for (Node n = goal; forward_hop[n] != n; n = forward_hop[n]) {  // root -> goal along the forward tree
      if (forward_message[n] != kLocalEdge) second.push_back(forward_message[n]);
    }
    messages.insert(messages.end(), second.rbegin(), second.rend());
  };

  for (const auto& [p, k] : result.checkpoints) {
    ZCycle cycle{p, k, {}};
    const Node start = graph.node(p, k + 1), goal = graph.node(p, k);
    if (search.work() > shortest_search_budget ||
        !search.shortest(start, goal, shortest_search_budget, cycle.messages)) {
      root_walk(start, goal, cycle.messages);
    }
    result.z_cycles.push_back(std::move(cycle));
  }
  return result;
}

bool is_z_cycle(const Trace& trace, ProcessId p, CheckpointIndex k, const std::vector<MessageId>& messages) {
  if (messages.empty() || p >= trace.process_count() || k > trace.checkpoint_count(p)) return false;
  // The checkpoint interval of an event at position i: checkpoints at or before i.
  auto interval = [&](ProcessId q, Position i) {
    const auto& positions = trace.checkpoint_positions(q);
    return CheckpointIndex(std::upper_bound(positions.begin(), positions.end(), i) - positions.begin());
  };
  for (MessageId m : messages) {
    if (m >= trace.message_count() || !trace.received(m)) return false;
  }
  const MessageId first = messages.front(), last = messages.back();
  if (trace.sender(first) != p || interval(p, trace.send_position(first)) < k) return false;  // sent after C(p,k)
  for (std::size_t i = 0; i + 1 < messages.size(); ++i) {
    const MessageId m = messages[i], next = messages[i + 1];
    const ProcessId q = trace.receiver(m);
    if (trace.sender(next) != q) return false;
    if (interval(q, trace.send_position(next)) < interval(q, trace.receive_position(m))) return false;
  }
  return trace.receiver(last) == p && interval(p, trace.receive_position(last)) < k;  // received before C(p,k)
}

}  // namespace ftsim::analysis
