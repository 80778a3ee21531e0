// Ḡ^p (Besseron et al. 2006 §3.5.2, sent in step 2 of §3.5.5), in linear size.
//
// The paper's Ḡ^p gives each send executed since K the receives of its local transitive closure.
// On an iterative code without a checkpoint that is quadratic: a send at sweep i depends on the
// receives of every sweep before it, so the block grows as i² (gigabytes for a 64-node stencil of
// 1000 sweeps) and so does building it, one walk per send. Only the reachability matters to
// C_total (§3.5.5 step 5), so ftsim sends the walk itself, shared: one backward walk over the
// tasks of p executed since K (each task once), whose vertices are the sends and the tasks that
// more than one place reaches (and that depend on more than one thing). See RestrictedGraph
// (cck_planning.hpp).
#include <algorithm>
#include <stdexcept>

#include "graphs/ids.hpp"
#include "protocols/cck/cck_planning.hpp"
#include "protocols/cck/cck_version_source.hpp"
#include "sim/node/version_store.hpp"

namespace ftsim::protocols::cck {

using node::VersionStore;

node::Bytes RestrictedGraph::encode() const {
  node::Bytes out;
  node::WireWriter w(out);
  w.u8((restoring ? 1 : 0) | (lost_receives ? 2 : 0));
  w.u64(vertex_count());
  for (std::size_t i = 0; i < vertex_count(); ++i) {
    w.u32(i < sends.size() ? sends[i] : kSharedTask);
    w.u32(dep_offsets[i + 1] - dep_offsets[i]);
    for (std::uint32_t k = dep_offsets[i]; k < dep_offsets[i + 1]; ++k) w.u32(deps[k]);
  }
  w.u64(required.size());
  for (std::uint32_t d : required) w.u32(d);
  return out;
}

namespace {

constexpr std::uint32_t kTask = RestrictedGraph::kLocal;  // a walk's child that is a task (by walk id)

// The backward walk from the sends (and the pending re-executions) through the tasks of p executed
// since K, each task expanded once. A child is a receive (its transfer id) or a task (kTask | its
// walk id); every task records how many places (sends, tasks, the pending re-executions) reach it.
class LocalWalk {
public:
  LocalWalk(const PlanningContext& context, NodeId node, const LocalState& state)
      : context_(context), node_(node), state_(state), walk_id_(context.index.tasks_of(node).size(), graphs::kNone) {}

  // The children of one place, from the versions it needs: each distinct child once.
  void children_of(std::vector<std::uint64_t>& keys, std::vector<std::uint32_t>& out) {
    const std::size_t first = out.size();
    for (std::uint64_t key : keys) {
      const VersionSource source = version_source(context_, node_, state_, key);
      if (source.kind == VersionSource::Kind::receive) out.push_back(source.id);
      if (source.kind == VersionSource::Kind::reexecute) out.push_back(kTask | reach(source.id));
    }
    std::sort(out.begin() + first, out.end());
    out.erase(std::unique(out.begin() + first, out.end()), out.end());
    for (std::size_t i = first; i < out.size(); ++i) {
      if ((out[i] & kTask) != 0) ++parents_[out[i] & ~kTask];
    }
  }
  // Expands every task reached and not yet expanded (children recorded contiguously per task).
  void run() {
    std::vector<std::uint64_t> keys;
    while (!stack_.empty()) {
      const std::uint32_t d = stack_.back();
      stack_.pop_back();
      keys.clear();
      for (const graphs::Access& a : context_.graph.accesses(tasks_[d])) {
        if (graphs::reads(a.mode)) keys.push_back(VersionStore::key(a.handle, graphs::version_read(a)));
      }
      begin_[d] = static_cast<std::uint32_t>(children_.size());
      children_of(keys, children_);
      end_[d] = static_cast<std::uint32_t>(children_.size());
    }
  }

  std::size_t size() const { return tasks_.size(); }
  TaskId task(std::uint32_t d) const { return tasks_[d]; }
  std::uint32_t parents(std::uint32_t d) const { return parents_[d]; }
  const std::uint32_t* begin(std::uint32_t d) const { return children_.data() + begin_[d]; }
  const std::uint32_t* end(std::uint32_t d) const { return children_.data() + end_[d]; }

private:
  std::uint32_t reach(TaskId t) {
    std::uint32_t& d = walk_id_[context_.index.local_slot(t)];
    if (d == graphs::kNone) {
      d = static_cast<std::uint32_t>(tasks_.size());
      if (d >= kTask - 2) throw std::length_error("cck: too many tasks since the checkpoint for Ḡ's encoding");
      tasks_.push_back(t);
      parents_.push_back(0);
      begin_.push_back(0);
      end_.push_back(0);
      stack_.push_back(d);
    }
    return d;
  }

  const PlanningContext& context_;
  NodeId node_;
  const LocalState& state_;
  std::vector<std::uint32_t> walk_id_;  // per local slot: its walk id, or kNone
  std::vector<TaskId> tasks_;           // per walk id
  std::vector<std::uint32_t> parents_;  // per walk id: how many places reach it
  std::vector<std::uint32_t> begin_, end_;
  std::vector<std::uint32_t> children_;
  std::vector<std::uint32_t> stack_;  // reached, not yet expanded
};

// What stands for a shared task (a task reached from more than one place) where it is reached: its
// own vertex, nothing (it depends on no receive), or its one dependency (a receive or another
// shared task's vertex), so that chains of shared tasks with a single input cost no vertex.
constexpr std::uint32_t kVertex = 0xFFFFFFFFu;
constexpr std::uint32_t kEmpty = 0xFFFFFFFEu;

// Appends the dependencies of a place with the given children, in walk terms (receives, and
// kTask | the walk id of a shared task that is a vertex): shared tasks as what stands for them,
// and the children of tasks reached from this place only (each such task is reached from exactly
// one place, so it is listed exactly once in the whole graph). Sorted, each once.
void dependencies(const LocalWalk& walk, const std::vector<std::uint32_t>& stands, const std::uint32_t* first,
                  const std::uint32_t* last, std::vector<std::uint32_t>& out, std::vector<std::uint32_t>& stack) {
  const std::size_t start = out.size();
  auto take = [&](const std::uint32_t* from, const std::uint32_t* to) {
    for (const std::uint32_t* c = from; c != to; ++c) {
      const std::uint32_t d = *c & ~kTask;
      if ((*c & kTask) == 0) {
        out.push_back(*c);
      } else if (walk.parents(d) < 2) {
        stack.push_back(d);
      } else if (stands[d] == kVertex) {
        out.push_back(*c);
      } else if (stands[d] != kEmpty) {
        out.push_back(stands[d]);
      }
    }
  };
  take(first, last);
  while (!stack.empty()) {
    const std::uint32_t d = stack.back();
    stack.pop_back();
    take(walk.begin(d), walk.end(d));
  }
  std::sort(out.begin() + start, out.end());
  out.erase(std::unique(out.begin() + start, out.end()), out.end());
}

// From walk terms to the block's: a shared task's walk id to its vertex; sorted again.
void to_vertices(const std::vector<std::uint32_t>& vertex_of, std::vector<std::uint32_t>& deps, std::size_t start) {
  for (std::size_t i = start; i < deps.size(); ++i) {
    if ((deps[i] & kTask) != 0) deps[i] = RestrictedGraph::kLocal | vertex_of[deps[i] & ~kTask];
  }
  std::sort(deps.begin() + start, deps.end());
}

}  // namespace

RestrictedGraph build_restricted_graph(const PlanningContext& context, NodeId node, const LocalState& state) {
  RestrictedGraph g;
  g.dep_offsets.assign(1, 0);
  g.restoring = state.restoring;
  g.lost_receives = state.restoring || state.lost_receives;
  if (state.restoring) return g;  // restored at K: it has executed nothing since
  const auto& transfers = context.graph.transfers();
  if (transfers.size() >= RestrictedGraph::kLocal) throw std::length_error("cck: too many transfers for Ḡ's encoding");
  const auto local = context.index.tasks_of(node);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!state.executed[i] || state.at_checkpoint[i]) continue;
    for (std::uint32_t id : context.index.sends_after(local[i])) g.sends.push_back(id);
  }
  // Checkpoint 0 is the job's input: the initial values were sent after it.
  if (state.checkpoint == 0) {
    for (std::uint32_t id : context.index.initial_sends(node)) g.sends.push_back(id);
  }

  // The walk: each send's one child (the writer of its version, if re-executing it is the way to
  // produce it again), the pending re-executions' children (their inputs not in memory), then
  // every task reached.
  LocalWalk walk(context, node, state);
  std::vector<std::uint64_t> keys;
  std::vector<std::uint32_t> send_children;  // per send: its child, or kNone
  std::vector<std::uint32_t> one;
  for (std::uint32_t id : g.sends) {
    keys.assign(1, VersionStore::key(transfers[id].handle, transfers[id].version));
    one.clear();
    walk.children_of(keys, one);
    send_children.push_back(one.empty() ? graphs::kNone : one.front());
  }
  std::vector<std::uint32_t> pending_children;
  keys.clear();
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!state.executed[i] || state.done[i]) continue;
    for (const graphs::Access& a : context.graph.accesses(local[i])) {
      if (!graphs::reads(a.mode)) continue;
      const std::uint64_t key = VersionStore::key(a.handle, graphs::version_read(a));
      if (state.held.count(key) == 0) keys.push_back(key);
    }
  }
  walk.children_of(keys, pending_children);
  walk.run();

  // The shared tasks in TaskId order (a topological order: a task's inputs come from earlier
  // tasks), so that what stands for each is known before any place that reaches it is listed.
  std::vector<std::uint32_t> shared;
  for (std::uint32_t d = 0; d < walk.size(); ++d) {
    if (walk.parents(d) >= 2) shared.push_back(d);
  }
  std::sort(shared.begin(), shared.end(), [&](std::uint32_t a, std::uint32_t b) { return walk.task(a) < walk.task(b); });
  std::vector<std::uint32_t> stands(walk.size(), kVertex);
  std::vector<std::uint32_t> kept;                      // the shared tasks that are vertices
  std::vector<std::uint32_t> kept_offsets(1, 0), kept_deps;  // their dependencies, in walk terms
  std::vector<std::uint32_t> stack;
  for (std::uint32_t d : shared) {
    const std::size_t start = kept_deps.size();
    dependencies(walk, stands, walk.begin(d), walk.end(d), kept_deps, stack);
    if (kept_deps.size() - start <= 1) {
      stands[d] = kept_deps.size() == start ? kEmpty : kept_deps.back();
      kept_deps.resize(start);
      continue;
    }
    kept.push_back(d);
    kept_offsets.push_back(static_cast<std::uint32_t>(kept_deps.size()));
  }
  // The vertices: the sends, then the shared tasks kept.
  std::vector<std::uint32_t> vertex_of(walk.size(), graphs::kNone);
  for (std::uint32_t d : kept) {
    vertex_of[d] = static_cast<std::uint32_t>(g.sends.size() + g.shared.size());
    g.shared.push_back(walk.task(d));
  }
  for (std::size_t i = 0; i < g.sends.size(); ++i) {
    const std::uint32_t* child = &send_children[i];
    const std::size_t start = g.deps.size();
    dependencies(walk, stands, child, child + (*child == graphs::kNone ? 0 : 1), g.deps, stack);
    to_vertices(vertex_of, g.deps, start);
    g.dep_offsets.push_back(static_cast<std::uint32_t>(g.deps.size()));
  }
  for (std::size_t k = 0; k < kept.size(); ++k) {
    const std::size_t start = g.deps.size();
    g.deps.insert(g.deps.end(), kept_deps.begin() + kept_offsets[k], kept_deps.begin() + kept_offsets[k + 1]);
    to_vertices(vertex_of, g.deps, start);
    g.dep_offsets.push_back(static_cast<std::uint32_t>(g.deps.size()));
  }
  dependencies(walk, stands, pending_children.data(), pending_children.data() + pending_children.size(), g.required,
               stack);
  to_vertices(vertex_of, g.required, 0);
  return g;
}

}  // namespace ftsim::protocols::cck
