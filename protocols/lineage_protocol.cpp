#include "protocols/lineage_protocol.hpp"

#include <deque>
#include <set>
#include <tuple>

namespace ftsim::protocols {

using core::NodeId;
using core::TaskId;
using core::TaskStatus;
using graphs::Access;
using graphs::HandleId;
using graphs::Version;

namespace {
constexpr std::uint32_t kPlanMessage = 1;
constexpr std::uint64_t kInstructionBytes = 16;
Version version_read(const Access& a) { return a.mode == graphs::AccessMode::RW ? a.version - 1 : a.version; }
}  // namespace

void LineageProtocol::on_task_completed(core::ProtocolContext& ctx, TaskId task, bool) {
  if (shared_->marked.empty() || !shared_->marked[task]) return;
  shared_->marked[task] = 0;
  --shared_->outstanding;
  check_recovered(ctx);
}

void LineageProtocol::on_restart(core::ProtocolContext& ctx) {
  // The replacement starts empty; what it must do comes from the plan (made at detection).
  ctx.runtime().rebuild();
  check_recovered(ctx);
}

void LineageProtocol::on_failure_detected(core::ProtocolContext& ctx, NodeId) {
  if (coordinator_) plan(ctx);
}

bool LineageProtocol::finished(core::ProtocolContext&) { return shared_->outstanding == 0; }

void LineageProtocol::check_recovered(core::ProtocolContext& ctx) {
  if (shared_->outstanding != 0) return;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (!ctx.alive(n)) return;
  }
  for (auto& failure : ctx.metrics().failures) {
    if (failure.recovered_at < 0 && failure.detected_at >= 0) failure.recovered_at = ctx.now();
  }
  ctx.check_completion();
}

void LineageProtocol::plan(core::ProtocolContext& ctx) {
  const graphs::TaskGraph& graph = ctx.graph();
  const core::RuntimeIndex& index = ctx.index();
  core::TaskTable& tasks = ctx.tasks();
  const NodeId nodes = ctx.node_count();
  if (shared_->marked.empty()) shared_->marked.assign(graph.task_count(), 0);
  core::FailureRecord* record = ctx.latest_failure();
  if (record) {
    record->restart_point = "lineage";
    record->processes_rolled_back = 1;
  }

  struct Need {
    HandleId handle;
    Version version;
    NodeId node;
  };
  std::deque<Need> queue;
  std::set<std::tuple<HandleId, Version, NodeId>> seen;
  auto need = [&](HandleId h, Version v, NodeId d) {
    if (seen.emplace(h, v, d).second) queue.push_back({h, v, d});
  };
  auto holds = [&](NodeId n, HandleId h, Version v) { return ctx.runtime_of(n).store().holds(h, v); };
  // Will (h, v) be produced on node d by a task that has not run there yet?
  auto produced_later_on = [&](HandleId h, Version v, NodeId d) {
    if (v == 0) return false;
    const TaskId w = graph.writer(h, v);
    return graph.node(w) == d && tasks.status[w] != TaskStatus::done;
  };

  // 1. What remaining tasks need and nobody will provide the usual way.
  for (NodeId d = 0; d < nodes; ++d) {
    for (TaskId t : index.tasks_of(d)) {
      if (tasks.status[t] == TaskStatus::done) continue;
      for (const Access& a : graph.accesses(t)) {
        if (!graphs::reads(a.mode)) continue;
        const Version v = version_read(a);
        if (produced_later_on(a.handle, v, d) || holds(d, a.handle, v)) continue;
        // A writer that never ran will send it with the transfer plan when it runs.
        if (v > 0 && !tasks.executed_once[graph.writer(a.handle, v)]) continue;
        need(a.handle, v, d);
      }
    }
  }
  // 2. Final results that were lost.
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    const Version v = graph.final_version(h);
    const NodeId holder = graph.version_node(h, v);
    if (holds(holder, h, v) || produced_later_on(h, v, holder)) continue;
    if (v > 0 && !tasks.executed_once[graph.writer(h, v)]) continue;
    need(h, v, holder);
  }

  // 3. Provide each need: re-send from a live holder, reload an initial value, or re-execute.
  std::vector<std::uint64_t> instructions(nodes, 0);
  while (!queue.empty()) {
    const Need n = queue.front();
    queue.pop_front();
    NodeId source = graphs::kNone;
    const NodeId home = graph.version_node(n.handle, n.version);
    if (ctx.alive(home) && holds(home, n.handle, n.version)) source = home;
    for (NodeId s = 0; s < nodes && source == graphs::kNone; ++s) {
      if (ctx.alive(s) && holds(s, n.handle, n.version)) source = s;
    }
    if (source != graphs::kNone) {
      ctx.runtime_of(source).subscribe(n.handle, n.version, n.node, core::Traffic::recovery);
      ++instructions[source];
      if (record) {
        ++record->messages_replayed;
        record->bytes_replayed += graph.bytes(n.handle);
      }
      continue;
    }
    if (n.version == 0) {
      // An initial value is the job's input: its owner reads it again.
      const NodeId owner = graph.owner(n.handle);
      ctx.runtime_of(owner).store().add_own(n.handle, 0, graph.bytes(n.handle));
      if (owner != n.node) ctx.runtime_of(owner).subscribe(n.handle, 0, n.node, core::Traffic::recovery);
      ++instructions[owner];
      continue;
    }
    const TaskId writer = graph.writer(n.handle, n.version);
    const NodeId p = graph.node(writer);
    if (tasks.status[writer] == TaskStatus::done) {
      ctx.runtime_of(p).mark_for_reexecution(writer);
      shared_->marked[writer] = 1;
      ++shared_->outstanding;
      ++instructions[p];
      if (record) {
        ++record->tasks_reexecuted;
        record->work_lost_seconds += ctx.task_seconds(writer);
      }
      // Its inputs must be at p when it runs again.
      for (const Access& a : graph.accesses(writer)) {
        if (!graphs::reads(a.mode)) continue;
        const Version v = version_read(a);
        if (v > 0) {
          const TaskId w2 = graph.writer(a.handle, v);
          // Produced locally by a task that will (re-)run first: the edge orders them.
          if (graph.node(w2) == p && tasks.status[w2] != TaskStatus::done) continue;
        }
        if (!holds(p, a.handle, v)) need(a.handle, v, p);
      }
    }
    if (n.node != p) ctx.runtime_of(p).subscribe(n.handle, n.version, n.node, core::Traffic::recovery);
  }

  if (ctx.trace()) {
    std::uint64_t total = 0;
    for (auto count : instructions) total += count;
    ctx.trace()->marker(ctx.node(), "lineage recovery plan: " + std::to_string(total) + " instructions", ctx.now());
  }
  // 4. Tell the nodes (the instructions' cost) and restart their scheduling from the new state.
  for (NodeId d = 0; d < nodes; ++d) {
    if (instructions[d] > 0) ctx.send_control(d, kPlanMessage, instructions[d] * kInstructionBytes);
    if (ctx.alive(d)) ctx.runtime_of(d).rebuild();
  }
  check_recovered(ctx);
}

}  // namespace ftsim::protocols
