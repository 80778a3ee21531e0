#include "protocols/cck/cck_round_memo.hpp"

#include <cstdint>
#include <functional>

namespace ftsim::protocols::cck {

namespace {

// Buckets by the buffers' identities (cheap); equality below decides. Equal contents in distinct
// buffers hash apart: a miss, computed again, never a wrong answer.
std::size_t hash_of(const std::vector<core::SharedBytes>& blocks) {
  std::size_t h = blocks.size();
  for (const core::SharedBytes& block : blocks) {
    h ^= std::hash<const void*>{}(block.get()) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  }
  return h;
}

bool same_input(const std::vector<core::SharedBytes>& a, const std::vector<core::SharedBytes>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;  // the same immutable buffer: the same bytes
    if (!a[i] || !b[i] || *a[i] != *b[i] || a[i]->content_bytes != b[i]->content_bytes) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<const GatheredRound> RoundMemo::get(const PlanningContext& context,
                                                    const std::vector<core::SharedBytes>& blocks) {
  const std::size_t hash = hash_of(blocks);
  for (const Entry& entry : entries_) {
    if (entry.hash == hash && same_input(entry.key, blocks)) {
      ++reused_;
      return entry.value;
    }
  }
  std::vector<RestrictedGraph> graphs;
  graphs.reserve(blocks.size());
  for (const core::SharedBytes& block : blocks) {
    if (!block) throw core::WireError("cck: a gathered block is missing");
    core::WireReader in(*block);
    graphs.push_back(RestrictedGraph::decode(in));
    in.expect_done();
  }
  auto value = std::make_shared<const GatheredRound>(gathered_round(context, graphs));
  ++computed_;
  entries_.push_front(Entry{hash, blocks, value});
  if (entries_.size() > kEntries) entries_.pop_back();
  return value;
}

}  // namespace ftsim::protocols::cck
