#include "protocols/cck/cck_planning.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>

#include "sim/node/version_store.hpp"

namespace ftsim::protocols::cck {

using core::VersionStore;
using graphs::Access;

namespace {

// The local transitive closure of §3.5.2 and §3.5.4 on one node: what makes (h, v) available
// there again. A version is produced again by re-executing its writer if that writer ran since
// checkpoint K; read back from the node's copy of K if K holds it; received again (a receive
// task executed since K: its send must be replayed) if it came from another node since K. With
// `cut_held` (§3.7.1) a version still in memory ends the walk.
class Closure {
public:
  Closure(const PlanningContext& context, NodeId node, const LocalState& state, bool cut_held)
      : context_(context), node_(node), state_(state), cut_held_(cut_held) {}

  void need(HandleId h, Version v) {
    stack_.push_back(VersionStore::key(h, v));
    while (!stack_.empty()) {
      const std::uint64_t key = stack_.back();
      stack_.pop_back();
      visit(key);
    }
  }
  bool since_checkpoint(TaskId t) const {
    const std::uint32_t slot = context_.index.local_slot(t);
    return state_.executed[slot] && !state_.at_checkpoint[slot];
  }

  std::unordered_set<TaskId> tasks;
  std::unordered_set<std::uint64_t> reloads;
  std::unordered_set<std::uint32_t> receives;
  std::vector<std::uint64_t> missing;  // a version none of the rules provides (an inconsistent state)

private:
  void visit(std::uint64_t key) {
    if (!visited_.insert(key).second) return;
    const bool held = state_.held.count(key) != 0;
    if (cut_held_ && held) return;
    const graphs::TaskGraph& graph = context_.graph;
    const HandleId h = VersionStore::handle_of(key);
    const Version v = VersionStore::version_of(key);
    const bool own = v == 0 ? graph.owner(h) == node_ : graph.node(graph.writer(h, v)) == node_;
    if (own && v > 0) {
      const TaskId writer = graph.writer(h, v);
      if (since_checkpoint(writer)) {
        tasks.insert(writer);
        for (const Access& a : graph.accesses(writer)) {
          if (graphs::reads(a.mode)) stack_.push_back(VersionStore::key(a.handle, graphs::version_read(a)));
        }
        return;
      }
    }
    if (state_.checkpoint_versions.count(key) != 0) {
      if (!held) reloads.insert(key);
      return;
    }
    if (!own) {
      const std::uint32_t transfer = context_.transfers.find(h, v, node_);
      if (transfer != graphs::kNone) {
        receives.insert(transfer);
        return;
      }
    }
    if (!held) missing.push_back(key);
  }

  const PlanningContext& context_;
  NodeId node_;
  const LocalState& state_;
  bool cut_held_;
  std::unordered_set<std::uint64_t> visited_;
  std::vector<std::uint64_t> stack_;
};

template <class Set> std::vector<typename Set::value_type> sorted(const Set& set) {
  std::vector<typename Set::value_type> out(set.begin(), set.end());
  std::sort(out.begin(), out.end());
  return out;
}

// Re-executions already pending on the node (an earlier round of the same recovery marked them):
// their inputs not in memory must be provided again.
void need_pending_inputs(const PlanningContext& context, NodeId node, const LocalState& state, Closure& closure) {
  const auto local = context.index.tasks_of(node);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!state.executed[i] || state.done[i]) continue;
    closure.tasks.insert(local[i]);
    for (const Access& a : context.graph.accesses(local[i])) {
      if (!graphs::reads(a.mode)) continue;
      const Version v = graphs::version_read(a);
      if (state.held.count(VersionStore::key(a.handle, v)) == 0) closure.need(a.handle, v);
    }
  }
}

}  // namespace

// ----------------------------------------------------------------------------- Ḡ^p

core::Bytes RestrictedGraph::encode() const {
  core::Bytes out;
  core::WireWriter w(out);
  w.u8((restoring ? 1 : 0) | (lost_receives ? 2 : 0));
  w.u64(sends.size());
  for (std::size_t i = 0; i < sends.size(); ++i) {
    w.u32(sends[i]);
    w.u32(dep_offsets[i + 1] - dep_offsets[i]);
    for (std::uint32_t k = dep_offsets[i]; k < dep_offsets[i + 1]; ++k) w.u32(deps[k]);
  }
  w.u64(required.size());
  for (std::uint32_t id : required) w.u32(id);
  return out;
}

RestrictedGraph build_restricted_graph(const PlanningContext& context, NodeId node, const LocalState& state) {
  RestrictedGraph g;
  g.dep_offsets.assign(1, 0);
  g.restoring = state.restoring;
  g.lost_receives = state.restoring || state.lost_receives;
  if (state.restoring) return g;  // restored at K: it has executed nothing since
  const auto local = context.index.tasks_of(node);
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (!state.executed[i] || state.at_checkpoint[i]) continue;
    for (std::uint32_t id : context.index.sends_after(local[i])) g.sends.push_back(id);
  }
  // Checkpoint 0 is the job's input: the initial values were sent after it.
  if (state.checkpoint == 0) {
    for (std::uint32_t id : context.index.initial_sends(node)) g.sends.push_back(id);
  }
  for (std::uint32_t id : g.sends) {
    const graphs::Transfer& x = context.graph.transfers()[id];
    Closure closure(context, node, state, context.keep_in_memory);
    closure.need(x.handle, x.version);
    for (std::uint32_t r : sorted(closure.receives)) g.deps.push_back(r);
    g.dep_offsets.push_back(static_cast<std::uint32_t>(g.deps.size()));
  }
  Closure pending(context, node, state, context.keep_in_memory);
  need_pending_inputs(context, node, state, pending);
  g.required = sorted(pending.receives);
  return g;
}

// ----------------------------------------------------------------------------- C_total

namespace {

// A block as RestrictedGraph::encode lays it out, read in place: flags (u8), the sends (u64 count;
// each: u32 id, u32 count, the u32 receives it depends on), the required receives (u64 count, u32
// each). Reads are bounds-checked: a malformed block is a WireError, never read as garbage.
class BlockReader {
public:
  explicit BlockReader(const core::Bytes& block) : data_(block.data()), size_(block.size()) {}
  BlockReader(const core::Bytes& block, std::size_t at) : data_(block.data()), size_(block.size()), at_(at) {}

  std::uint8_t u8() {
    need(1);
    return data_[at_++];
  }
  std::uint32_t u32() {
    std::uint32_t value;
    need(sizeof value);
    std::memcpy(&value, data_ + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::uint64_t count(std::size_t item_bytes) {
    std::uint64_t value;
    need(sizeof value);
    std::memcpy(&value, data_ + at_, sizeof value);
    at_ += sizeof value;
    if (value > (size_ - at_) / item_bytes) throw core::WireError("cck: a gathered block is truncated");
    return value;
  }
  void skip_u32s(std::uint64_t n) {
    if (n > (size_ - at_) / 4) throw core::WireError("cck: a gathered block is truncated");
    at_ += 4 * n;
  }
  std::size_t at() const { return at_; }
  void expect_done() const {
    if (at_ != size_) throw core::WireError("cck: a gathered block has bytes left over");
  }

private:
  void need(std::size_t n) const {
    if (n > size_ - at_) throw core::WireError("cck: a gathered block is truncated");
  }
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// The N gathered blocks: a send's dependencies are found in its sender's block, through an index
// of that block (send id -> where its dependencies are) built the first time C_total reaches it.
class GatheredBlocks {
public:
  GatheredBlocks(const std::vector<core::SharedBytes>& blocks, const graphs::TaskGraph& graph)
      : blocks_(blocks), transfers_(graph.transfers()), indexes_(blocks.size()) {
    for (const core::SharedBytes& block : blocks_) {
      if (!block) throw core::WireError("cck: a gathered block is missing");
    }
  }

  const core::Bytes& block(NodeId q) const { return *blocks_[q]; }
  // Where the dependencies of send `id` are in its sender's block (the offset of their count), if
  // that block lists it among its sends executed since K.
  std::optional<std::pair<NodeId, std::size_t>> find(std::uint32_t id) {
    if (id >= transfers_.size()) return std::nullopt;
    const NodeId q = transfers_[id].source;
    if (q >= blocks_.size()) return std::nullopt;
    const std::vector<std::pair<std::uint32_t, std::size_t>>& index = index_of(q);
    const auto it = std::lower_bound(index.begin(), index.end(), std::pair<std::uint32_t, std::size_t>(id, 0));
    if (it == index.end() || it->first != id) return std::nullopt;
    return std::pair(q, it->second);
  }

private:
  const std::vector<std::pair<std::uint32_t, std::size_t>>& index_of(NodeId q) {
    std::optional<std::vector<std::pair<std::uint32_t, std::size_t>>>& index = indexes_[q];
    if (index) return *index;
    index.emplace();
    BlockReader in(*blocks_[q]);
    in.u8();
    const std::uint64_t sends = in.count(8);
    index->reserve(sends);
    for (std::uint64_t i = 0; i < sends; ++i) {
      const std::uint32_t id = in.u32();
      index->emplace_back(id, in.at());
      in.skip_u32s(in.u32());
    }
    std::sort(index->begin(), index->end());  // by id, then first listed
    return *index;
  }

  const std::vector<core::SharedBytes>& blocks_;
  const graphs::TransferPlan& transfers_;
  std::vector<std::optional<std::vector<std::pair<std::uint32_t, std::size_t>>>> indexes_;
};

}  // namespace

GatheredRound gathered_round(const PlanningContext& context, const std::vector<core::SharedBytes>& blocks) {
  const auto& plan = context.graph.transfers();
  GatheredBlocks gathered(blocks, context.graph);
  const auto nodes = static_cast<NodeId>(blocks.size());
  GatheredRound round;
  round.lost_receives.resize(nodes);
  for (NodeId q = 0; q < nodes; ++q) {
    const std::uint8_t flags = BlockReader(gathered.block(q)).u8();
    round.lost_receives[q] = (flags & 2) != 0 ? 1 : 0;
    if ((flags & 1) != 0) round.restoring.push_back(q);
  }
  // C_total (Definition 5): C_perdues and every send executed since K that a send of C_total
  // depends on. A receive whose send is not among the sends executed since K (its sender restarts
  // from K, or has not run it yet) is sent again the usual way: nothing to replay.
  std::unordered_set<std::uint32_t>& total = round.total;
  std::vector<std::pair<NodeId, std::size_t>> queue;  // sends of C_total whose dependencies are still to add
  auto add = [&](std::uint32_t id) {
    if (total.count(id) != 0) return;
    const auto at = gathered.find(id);
    if (at && total.insert(id).second) queue.push_back(*at);
  };
  // C_perdues: sends of survivors to the processes that restart; and what pending re-executions need.
  for (NodeId q = 0; q < nodes; ++q) {
    BlockReader in(gathered.block(q));
    in.u8();
    const std::uint64_t sends = in.count(8);
    for (std::uint64_t i = 0; i < sends; ++i) {
      const std::uint32_t id = in.u32();
      in.skip_u32s(in.u32());
      if (id >= plan.size()) throw core::WireError("cck: a gathered block names an unknown transfer");
      if (round.lost_receives[plan[id].destination]) add(id);
    }
    const std::uint64_t required = in.count(4);
    for (std::uint64_t i = 0; i < required; ++i) add(in.u32());
    in.expect_done();
  }
  while (!queue.empty()) {
    const auto [q, at] = queue.back();
    queue.pop_back();
    BlockReader in(gathered.block(q), at);
    const std::uint32_t deps = in.u32();
    for (std::uint32_t k = 0; k < deps; ++k) add(in.u32());
  }
  return round;
}

// ----------------------------------------------------------------------------- T^p

NodePlan plan_node(const PlanningContext& context, NodeId node, const LocalState& state, const RestrictedGraph& own,
                   const GatheredRound& round) {
  NodePlan plan;
  plan.restoring = round.restoring;
  if (state.restoring) return plan;
  const auto& transfers = context.graph.transfers();
  const std::unordered_set<std::uint32_t>& total = round.total;
  for (std::size_t i = 0; i < state.executed.size(); ++i) {
    if (state.executed[i] && !state.at_checkpoint[i]) ++plan.executed_since_checkpoint;
  }
  Closure closure(context, node, state, context.keep_in_memory);
  for (std::uint32_t id : own.sends) {
    if (round.lost_receives[transfers[id].destination]) ++plan.lost_sends;
    if (total.count(id) == 0) continue;
    plan.resends.push_back(id);
    closure.need(transfers[id].handle, transfers[id].version);
  }
  need_pending_inputs(context, node, state, closure);
  std::sort(plan.resends.begin(), plan.resends.end());
  plan.reexecute = sorted(closure.tasks);
  plan.reloads = sorted(closure.reloads);
  plan.missing = closure.missing;
  return plan;
}

NodePlan plan_node(const PlanningContext& context, NodeId node, const LocalState& state,
                   const std::vector<RestrictedGraph>& graphs) {
  std::vector<core::SharedBytes> blocks;
  blocks.reserve(graphs.size());
  for (const RestrictedGraph& g : graphs) blocks.push_back(std::make_shared<const core::Bytes>(g.encode()));
  return plan_node(context, node, state, graphs[node], gathered_round(context, blocks));
}

}  // namespace ftsim::protocols::cck
