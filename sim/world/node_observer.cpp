#include "sim/world/node_observer.hpp"

#include "sim/config/stop_request.hpp"

namespace ftsim::world {

std::vector<node::Digest> failure_free_digests(const graphs::TaskGraph& graph, bool interruptible) {
  // In submission order every read sees the current version of its handle (STF semantics).
  std::vector<node::Digest> current(graph.handle_count());
  for (HandleId h = 0; h < graph.handle_count(); ++h) current[h] = node::initial_digest(h);
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    if (interruptible && (t & 0xfffff) == 0 && stop_requested()) throw Interrupted("interrupted while computing the expected digests");
    node::Digest digest = node::task_seed(graph.kernel(t), t);
    for (const graphs::Access& a : graph.accesses(t)) {
      if (graphs::reads(a.mode)) digest = node::combine_digest(digest, current[a.handle]);
    }
    for (const graphs::Access& a : graph.accesses(t)) {
      if (graphs::writes(a.mode)) current[a.handle] = node::output_digest(digest, a.handle);
    }
  }
  return current;
}

NodeObserver::NodeObserver(NodeId node, const node::RuntimeIndex& index)
    : node_(node), index_(index), runs_(index.tasks_of(node).size(), 0) {}

NodeObserver::Execution NodeObserver::observe(TaskId task) {
  const std::uint32_t slot = index_.local_slot(task);
  Execution execution;
  execution.again = runs_[slot] > 0;
  if (runs_[slot] < UINT16_MAX) ++runs_[slot];
  ++executions_;
  if (!lost_done_.empty() && lost_done_[slot]) {
    lost_done_[slot] = 0;
    execution.redoes_lost_work = true;
    execution.failure = lost_failure_;
  }
  return execution;
}

void NodeObserver::lose(const node::NodeRuntime& runtime, std::size_t failure) {
  const auto local = index_.tasks_of(node_);
  lost_done_.assign(local.size(), 0);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (runtime.status(local[i]) == node::TaskStatus::done) lost_done_[i] = 1;
  }
  lost_failure_ = failure;
}

void NodeObserver::check_oracle(const graphs::TaskGraph& graph, const node::NodeRuntime* runtime,
                                const std::vector<HandleId>& final_handles, const std::vector<node::Digest>& expected,
                                OracleFindings& findings) const {
  for (HandleId h : final_handles) {
    const graphs::Version final_version = graph.final_version(h);
    std::string what = graph.handle_name(h) + " v" + std::to_string(final_version) + " on node " + std::to_string(node_);
    if (!runtime) {
      findings.add_missing(what + " (node down)");
      continue;
    }
    const auto& entries = runtime->store().entries();
    auto it = entries.find(node::VersionStore::key(h, final_version));
    if (it == entries.end()) {
      findings.add_missing(std::move(what));
    } else if (it->second.digest != expected[h]) {
      findings.add_wrong(what + ": digest differs from the failure-free run");
    }
  }
  if (!runtime) return;
  for (TaskId t : index_.tasks_of(node_)) {
    if (runtime->status(t) != node::TaskStatus::done) {
      findings.add_missing("task " + graph.task_name(t) + " not done");
    } else if (!ran(t)) {
      // A restored task ran before the checkpoint that holds its outputs: done but never run is
      // a task completed without its execution.
      findings.add_missing("task " + graph.task_name(t) + " done but never ran");
    }
  }
}

std::string NodeObserver::stall_line(const node::NodeRuntime* runtime) const {
  if (!runtime) return "node " + std::to_string(node_) + ": dead, never replaced";
  if (runtime->remaining_tasks() == 0) return {};
  std::string line = "node " + std::to_string(node_) + ": " + std::to_string(runtime->remaining_tasks()) +
                     " tasks left" + (runtime->paused() ? " (paused by the protocol)" : "");
  for (TaskId t : runtime->waiting_sample(3)) line += "; " + runtime->describe_wait(t);
  return line;
}

std::vector<std::vector<HandleId>> final_handles_by_node(const graphs::TaskGraph& graph) {
  std::vector<std::vector<HandleId>> by_node(graph.node_count());
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    by_node[graph.version_node(h, graph.final_version(h))].push_back(h);
  }
  return by_node;
}

}  // namespace ftsim::world
