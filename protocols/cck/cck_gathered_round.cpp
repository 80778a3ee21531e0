// Steps 4-5 of §3.5.5 (Besseron et al. 2006): C_perdues and C_total, from the N gathered Ḡ blocks
// read where they are.
#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

#include "protocols/cck/cck_planning.hpp"

namespace ftsim::protocols::cck {

namespace {

// A block as RestrictedGraph::encode lays it out, read in place: flags (u8), the vertices (u64
// count; each: u32 id — a send's transfer id or kSharedTask —, u32 count, the u32 dependencies),
// the required dependencies (u64 count, u32 each). Reads are bounds-checked: a malformed block is
// a WireError, never read as garbage.
class BlockReader {
public:
  explicit BlockReader(const node::Bytes& block) : data_(block.data()), size_(block.size()) {}
  BlockReader(const node::Bytes& block, std::size_t at) : data_(block.data()), size_(block.size()), at_(at) {}

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
    if (value > (size_ - at_) / item_bytes) throw node::WireError("cck: a gathered block is truncated");
    return value;
  }
  void skip_u32s(std::uint64_t n) {
    if (n > (size_ - at_) / 4) throw node::WireError("cck: a gathered block is truncated");
    at_ += 4 * n;
  }
  std::size_t at() const { return at_; }
  void expect_done() const {
    if (at_ != size_) throw node::WireError("cck: a gathered block has bytes left over");
  }

private:
  void need(std::size_t n) const {
    if (n > size_ - at_) throw node::WireError("cck: a gathered block is truncated");
  }
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

// Where things are in one block, built the first time C_total reaches it: each vertex's offset
// (of its dependency count) and which vertices C_total has already followed.
struct BlockIndex {
  std::vector<std::size_t> vertex_at;
  std::vector<std::uint8_t> followed;
};

// The N gathered blocks: a send's dependencies are found in its sender's block. Every node reads
// every block C_total reaches (N blocks on N nodes: O(N²) in one simulation), so a send is found
// by its transfer id in a table over the transfer plan (filled when its sender's block is first
// read), not by a search.
class GatheredBlocks {
public:
  GatheredBlocks(const std::vector<node::SharedBytes>& blocks, const graphs::TaskGraph& graph)
      : blocks_(blocks), transfers_(graph.transfers()), indexes_(blocks.size()), vertex_of_send_(transfers_.size(), kNoVertex) {
    for (const node::SharedBytes& block : blocks_) {
      if (!block) throw node::WireError("cck: a gathered block is missing");
    }
  }

  const node::Bytes& block(NodeId q) const { return *blocks_[q]; }
  // The vertex of send `id` in its sender's block, if that block lists it among its sends
  // executed since K (the first time it lists it).
  std::optional<std::pair<NodeId, std::uint32_t>> find(std::uint32_t id) {
    if (id >= transfers_.size()) return std::nullopt;
    const NodeId q = transfers_[id].source;
    if (q >= blocks_.size()) return std::nullopt;
    index_of(q);
    if (vertex_of_send_[id] == kNoVertex) return std::nullopt;
    return std::pair(q, vertex_of_send_[id]);
  }
  // Marks vertex v of block q followed; false if it already was. A reference to a vertex the block
  // does not have is a WireError.
  bool follow(NodeId q, std::uint32_t v) {
    BlockIndex& index = index_of(q);
    if (v >= index.vertex_at.size()) throw node::WireError("cck: a gathered block names a vertex it does not have");
    if (index.followed[v]) return false;
    index.followed[v] = 1;
    return true;
  }
  std::size_t vertex_at(NodeId q, std::uint32_t v) { return index_of(q).vertex_at[v]; }

private:
  static constexpr std::uint32_t kNoVertex = 0xFFFFFFFFu;

  BlockIndex& index_of(NodeId q) {
    std::optional<BlockIndex>& index = indexes_[q];
    if (index) return *index;
    index.emplace();
    BlockReader in(*blocks_[q]);
    in.u8();
    const std::uint64_t vertices = in.count(8);
    index->vertex_at.reserve(vertices);
    for (std::uint64_t v = 0; v < vertices; ++v) {
      const std::uint32_t id = in.u32();
      // A send of q's block is a transfer from q (another id is not q's to describe).
      if (id < transfers_.size() && transfers_[id].source == q && vertex_of_send_[id] == kNoVertex) {
        vertex_of_send_[id] = static_cast<std::uint32_t>(v);
      }
      index->vertex_at.push_back(in.at());
      in.skip_u32s(in.u32());
    }
    index->followed.assign(vertices, 0);
    return *index;
  }

  const std::vector<node::SharedBytes>& blocks_;
  const graphs::TransferPlan& transfers_;
  std::vector<std::optional<BlockIndex>> indexes_;
  std::vector<std::uint32_t> vertex_of_send_;  // per transfer: its vertex in its sender's block
};

}  // namespace

GatheredRound gathered_round(const PlanningContext& context, const std::vector<node::SharedBytes>& blocks) {
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
  // from K, or has not run it yet) is sent again the usual way: nothing to replay. A shared task's
  // vertex is followed (once) for what it depends on, but is not a send: it never enters C_total.
  round.in_total.assign(plan.size(), 0);
  // Per block, its vertices whose dependencies are still to follow: one block is read at a time,
  // as far as its own references lead (a node's history is mostly one chain of its own tasks), so
  // that reading N blocks on each of N nodes stays within one block's worth of cache at a time.
  std::vector<std::vector<std::uint32_t>> pending(nodes);
  auto follow = [&](NodeId q, std::uint32_t v) {
    if (gathered.follow(q, v)) pending[q].push_back(v);
  };
  auto add = [&](std::uint32_t id) {
    if (round.contains(id)) return;
    const auto at = gathered.find(id);
    if (!at) return;
    round.in_total[id] = 1;
    round.total.push_back(id);
    follow(at->first, at->second);
  };
  auto dependency = [&](NodeId q, std::uint32_t d) {
    if ((d & RestrictedGraph::kLocal) != 0) {
      follow(q, d & ~RestrictedGraph::kLocal);
    } else {
      add(d);
    }
  };
  // C_perdues: sends of survivors to the processes that restart; and what pending re-executions need.
  for (NodeId q = 0; q < nodes; ++q) {
    BlockReader in(gathered.block(q));
    in.u8();
    const std::uint64_t vertices = in.count(8);
    for (std::uint64_t v = 0; v < vertices; ++v) {
      const std::uint32_t id = in.u32();
      in.skip_u32s(in.u32());
      if (id == RestrictedGraph::kSharedTask) continue;
      if (id >= plan.size()) throw node::WireError("cck: a gathered block names an unknown transfer");
      if (round.lost_receives[plan[id].destination]) add(id);
    }
    const std::uint64_t required = in.count(4);
    for (std::uint64_t i = 0; i < required; ++i) dependency(q, in.u32());
    in.expect_done();
  }
  for (bool more = true; more;) {
    more = false;
    for (NodeId q = 0; q < nodes; ++q) {
      more = more || !pending[q].empty();
      while (!pending[q].empty()) {
        const std::uint32_t v = pending[q].back();
        pending[q].pop_back();
        BlockReader in(gathered.block(q), gathered.vertex_at(q, v));
        const std::uint32_t deps = in.u32();
        for (std::uint32_t k = 0; k < deps; ++k) dependency(q, in.u32());
      }
    }
  }
  return round;
}

}  // namespace ftsim::protocols::cck
