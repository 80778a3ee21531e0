#include "protocols/global/global_keeper.hpp"

#include <map>

namespace ftsim::protocols::global {

using namespace messages;

void GlobalKeeper::on_checkpoint_data(ProtocolContext& ctx, NodeId from, const Control& c) {
  ctx.checkpoint_store().put(checkpoint_key(from, c.checkpoint), c.snapshot, c.count);
  send(ctx, from, kCheckpointAck, with(c.checkpoint, c.epoch));
}

void GlobalKeeper::on_restore_request(ProtocolContext& ctx, NodeId from, const Control& c) {
  if (options_.content) {
    // /checkpoint_data: the chain of that checkpoint (its full image and the incrementals after it).
    std::uint64_t bytes = 0;
    const auto find = [&](std::uint32_t id) -> const Bytes* {
      const node::ProtocolStore::Entry* e = ctx.checkpoint_store().find(checkpoint_key(from, id));
      if (e) bytes += e->bytes;
      return e ? &e->content : nullptr;
    };
    const auto chain = content::collect_chain(find, c.checkpoint);
    if (chain.empty()) {
      send(ctx, from, kNotHeld, with(c.checkpoint, c.epoch));
      return;
    }
    Control data = with(c.checkpoint, c.epoch);
    data.snapshot = content::pack(chain);
    send(ctx, from, kRestoreData, data, node::Traffic::restore, bytes);
    return;
  }
  const node::ProtocolStore::Entry* copy = ctx.checkpoint_store().find(checkpoint_key(from, c.checkpoint));
  if (!copy) {
    send(ctx, from, kNotHeld, with(c.checkpoint, c.epoch));
    return;
  }
  Control data = with(c.checkpoint, c.epoch);
  data.snapshot = copy->content;
  send(ctx, from, kRestoreData, data, node::Traffic::restore, copy->bytes);
}

void GlobalKeeper::collect(ProtocolContext& ctx, std::uint32_t committed) {
  if (!options_.content) {
    // An XOR level's parity blocks (this node's) stay for the checkpoints a fallback may need.
    ctx.checkpoint_store().erase_if([&](std::uint64_t key) {
      return checkpoint_of(key) < committed && !(is_parity_key(key) && options_.keep_for_fallback(checkpoint_of(key), committed));
    });
    return;
  }
  // /checkpoint_data: what the committed checkpoint's chain needs stays (its full image and the
  // incrementals after it), for each origin held here.
  std::map<NodeId, std::uint32_t> first;  // per origin held here: the first image to keep
  ctx.checkpoint_store().for_each_key([&](std::uint64_t key) { first.emplace(origin_of(key), 0); });
  for (auto& [origin, keep] : first) {
    const auto find = [&](std::uint32_t id) -> const Bytes* {
      const node::ProtocolStore::Entry* e = ctx.checkpoint_store().find(checkpoint_key(origin, id));
      return e ? &e->content : nullptr;
    };
    const auto chain = content::collect_chain(find, committed);
    keep = chain.empty() ? committed : content::read_header(*chain.front()).checkpoint;
  }
  ctx.checkpoint_store().erase_if([&](std::uint64_t key) { return checkpoint_of(key) < first[origin_of(key)]; });
}

}  // namespace ftsim::protocols::global
