#include "protocols/global/global_xor.hpp"

namespace ftsim::protocols::global {

using namespace messages;

namespace {

std::span<const NodeId> set_of(const GlobalOptions& options, NodeId node) { return options.xor_sets[options.xor_set_of[node]]; }

}  // namespace

std::uint32_t send_xor_blocks(ProtocolContext& ctx, const GlobalOptions& options, std::uint32_t checkpoint,
                              const Bytes& encoded, std::uint64_t bytes) {
  const auto set = set_of(options, ctx.node());
  const auto k = static_cast<std::uint32_t>(set.size());
  const std::uint32_t me = options.xor_position[ctx.node()];
  for (std::uint32_t b = 0; b + 1 < k; ++b) {
    const auto block = xor_code::block_of(encoded, b, k);
    Control c = with(checkpoint, ctx.epoch());
    c.count = bytes;
    c.length = encoded.size();
    c.snapshot.assign(block.begin(), block.end());
    c.snapshot.content_bytes = c.snapshot.size();  // opaque data: its size is the share it stands for
    send(ctx, set[xor_code::holder_of(me, b, k)], kXorBlock, c, node::Traffic::checkpoint, xor_code::block_size(bytes, k));
  }
  return k - 1;
}

GlobalXor::GlobalXor(const GlobalOptions& options, const GlobalCopies& copies)
    : options_(options), copies_(copies), level_(options.level(LevelStorage::xor_group)) {}

void GlobalXor::on_block(ProtocolContext& ctx, NodeId from, const Control& c, bool acknowledge) {
  if (c.epoch < ctx.epoch()) return;  // from before a rollback
  if (!gathering_ || gathering_->checkpoint != c.checkpoint || gathering_->epoch != c.epoch) {
    // The first block of a checkpoint: what was gathered before is of one a failure cut short.
    const auto k = static_cast<std::uint32_t>(set_of(options_, ctx.node()).size());
    gathering_.emplace();
    gathering_->checkpoint = c.checkpoint;
    gathering_->epoch = c.epoch;
    gathering_->missing = k - 1;
    gathering_->parity.lengths.assign(k, 0);
    gathering_->parity.sizes.assign(k, 0);
    gathering_->acknowledge = acknowledge;
    charging_ = false;
  }
  Gathering& g = *gathering_;
  const std::uint32_t q = options_.xor_position[from];
  g.parity.lengths[q] = c.length;
  g.parity.sizes[q] = c.count;
  xor_code::xor_into(g.parity.block, c.snapshot);
  g.contributors.push_back(from);
  g.bytes += xor_code::block_size(c.count, static_cast<std::uint32_t>(g.parity.sizes.size()));
  if (--g.missing > 0) return;
  // Every block is in: the XOR takes a core for its bytes at the level's rate (a simulation).
  charging_ = true;
  content::charge(ctx, static_cast<double>(g.bytes) / level_->rate, kXorTokenBit | ++sequence_);
}

void GlobalXor::on_charged(ProtocolContext& ctx, std::uint64_t token) {
  if (!charging_ || (token & kSequenceMask) != sequence_ || !gathering_) return;
  charging_ = false;
  Gathering g = std::move(*gathering_);
  gathering_.reset();
  ctx.checkpoint_store().put(parity_key(g.checkpoint), g.parity.encode(), g.parity.simulated_size());
  if (!g.acknowledge) return;
  for (NodeId contributor : g.contributors) send(ctx, contributor, kCheckpointAck, with(g.checkpoint, g.epoch));
}

void GlobalXor::on_request(ProtocolContext& ctx, NodeId from, const Control& c) {
  const node::NodeSnapshot* copy = copies_.local_copy(c.checkpoint);
  if (c.count == 1) {
    // The block of its checkpoint that the replacement's parity covers (none to give: it goes on
    // without that parity block, as a set that lost a member's does).
    if (!copy) return;
    Bytes encoded;
    node::WireWriter out(encoded);
    copy->encode(out);
    const auto k = static_cast<std::uint32_t>(set_of(options_, ctx.node()).size());
    const auto block = xor_code::block_of(encoded, xor_code::block_for(options_.xor_position[from], options_.xor_position[ctx.node()], k), k);
    Control data = with(c.checkpoint, c.epoch);
    data.count = copy->bytes;
    data.length = encoded.size();
    data.snapshot.assign(block.begin(), block.end());
    data.snapshot.content_bytes = data.snapshot.size();
    send(ctx, from, kXorParityBlock, data, node::Traffic::restore, xor_code::block_size(copy->bytes, k));
    return;
  }
  const node::ProtocolStore::Entry* parity = ctx.checkpoint_store().find(parity_key(c.checkpoint));
  if (!copy || !parity) {
    send(ctx, from, kXorNotHeld, with(c.checkpoint, c.epoch));
    return;
  }
  Control pieces = with(c.checkpoint, c.epoch);
  node::WireWriter out(pieces.snapshot);
  copy->encode(out);  // the same bytes as at the save: the encoding is canonical
  pieces.snapshot.content_bytes = pieces.snapshot.size();
  pieces.count = copy->bytes;
  pieces.parity = parity->content;
  pieces.parity.content_bytes = pieces.parity.size();
  send(ctx, from, kXorPieces, pieces, node::Traffic::restore, copy->bytes + parity->bytes);
}

void XorRebuild::begin(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch) {
  const auto set = set_of(options_, ctx.node());
  const auto k = set.size();
  active_ = true;
  checkpoint_ = checkpoint;
  epoch_ = epoch;
  missing_ = static_cast<std::uint32_t>(k - 1);
  data_.assign(k, Bytes{});
  sizes_.assign(k, 0);
  parity_.assign(k, xor_code::Parity{});
  received_bytes_ = 0;
  for (NodeId member : set) {
    if (member != ctx.node()) send(ctx, member, kXorRequest, with(checkpoint, epoch));
  }
}

void XorRebuild::request_parity(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch) {
  Control request = with(checkpoint, epoch);
  request.count = 1;
  for (NodeId member : set_of(options_, ctx.node())) {
    if (member != ctx.node()) send(ctx, member, kXorRequest, request);
  }
}

XorRebuild::Answer XorRebuild::on_pieces(ProtocolContext&, NodeId from, const Control& c) {
  if (!current(c)) return Answer::stale;
  const std::uint32_t q = options_.xor_position[from];
  data_[q] = c.snapshot;
  sizes_[q] = c.count;
  parity_[q] = xor_code::Parity::decode(c.parity);
  received_bytes_ += c.count + parity_[q].simulated_size();
  return --missing_ == 0 ? Answer::complete : Answer::waiting;
}

XorRebuild::Answer XorRebuild::on_not_held(const Control& c) {
  if (!current(c)) return Answer::stale;
  active_ = false;  // the later answers are stale
  return Answer::lost;
}

XorRebuild::Result XorRebuild::finish(ProtocolContext& ctx) {
  active_ = false;
  const std::uint32_t me = options_.xor_position[ctx.node()];
  xor_code::Rebuilt rebuilt = xor_code::rebuild(me, data_, sizes_, parity_);
  // Its parity block again, as it held it: a later failure in the set may need it.
  ctx.checkpoint_store().put(parity_key(checkpoint_), rebuilt.parity.encode(), rebuilt.parity.simulated_size());
  const double rate = options_.level(LevelStorage::xor_group)->rate;
  Result result{std::move(rebuilt.data), static_cast<double>(received_bytes_) / rate};
  data_.clear();
  parity_.clear();
  return result;
}

}  // namespace ftsim::protocols::global
