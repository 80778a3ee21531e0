#include "protocols/buddy/buddy_keeper.hpp"

#include <algorithm>
#include <tuple>

#include "protocols/mutants.hpp"

namespace ftsim::protocols::buddy {

using messages::kValueHandle;
using messages::version_key;
using node::NodeId;
using graphs::HandleId;

namespace {

std::uint64_t origin_checkpoint(NodeId origin, std::uint32_t c) { return (std::uint64_t(origin) << 32) | c; }
std::uint64_t origin_handle(NodeId origin, HandleId h) { return (std::uint64_t(origin) << 32) | h; }

}  // namespace

void BuddyKeeper::plan(node::ProtocolContext& ctx) {
  const NodeId me = ctx.node();
  const auto& saves = options_.saves;
  held_saves_.clear();
  for (std::uint32_t c = 1; c <= saves.checkpoints(); ++c) {
    for (std::uint32_t i : saves.kept_by(c, me)) {  // its own share, not every node's saves
      const graphs::CheckpointSave& s = saves.save(i);
      held_saves_.add(version_key(s.handle, s.version), {s.from, c, s.transferred});
      ++expected_[origin_checkpoint(s.from, c)];
    }
    if (options_.value_bytes > 0) {
      // Every checkpoint has its VALUE entries, at every buddy.
      for (NodeId origin : options_.buddies.kept_for(me)) {
        if (origin != me) ++expected_[origin_checkpoint(origin, c)];
      }
    }
  }
  held_saves_.seal();
}

// ----------------------------------------------------------------------------- saves arriving

void BuddyKeeper::on_checkpoint_data(node::ProtocolContext& ctx, const node::Message& m) {
  receive_save(ctx, m.source, m.handle, messages::SavedVersion{m.version, m.digest, m.content});
}

void BuddyKeeper::on_saved_copy(node::ProtocolContext& ctx, NodeId origin, const messages::SavedCopy& copy) {
  receive_save(ctx, origin, copy.handle, copy.saved);
}

void BuddyKeeper::receive_save(node::ProtocolContext& ctx, NodeId origin, HandleId h, const messages::SavedVersion& saved) {
  for (const HeldSave& save : held_saves_.find(version_key(h, saved.version))) {
    if (save.origin == origin && !save.cached) store(ctx, save.origin, save.checkpoint, h, saved, true);
  }
}

void BuddyKeeper::on_stored(node::ProtocolContext& ctx, const node::Message& m) {
  // A version for the computation: an application transfer, or the same version replayed to a
  // restarted node (its application transfer came before the restart).
  if (m.traffic != node::Traffic::application && m.traffic != node::Traffic::recovery) return;
  for (const HeldSave& save : held_saves_.find(version_key(m.handle, m.version))) {
    // A cached save: the application transfer brought the version; the buddy keeps a copy.
    if (save.origin == m.source && save.cached) {
      store(ctx, save.origin, save.checkpoint, m.handle, messages::SavedVersion{m.version, m.digest, m.content}, true);
    }
  }
}

void BuddyKeeper::on_value_entries(node::ProtocolContext& ctx, NodeId origin, std::uint32_t checkpoint) {
  store(ctx, origin, checkpoint, kValueHandle, messages::SavedVersion{}, false);
}

void BuddyKeeper::store(node::ProtocolContext& ctx, NodeId origin, std::uint32_t checkpoint, HandleId h,
                        const messages::SavedVersion& saved, bool copy) {
  const std::uint64_t key = options_.entry_keys.key(origin, checkpoint, h);
  if (ctx.checkpoint_store().find(key)) return;  // already held (a duplicate)
  std::uint64_t bytes = h == kValueHandle ? options_.value_bytes : ctx.graph().bytes(h);
  if (options_.content && h != kValueHandle) {
    // /checkpoint_data: a datum image holds what it stores (a cached or re-protected copy is raw).
    Link link{saved.version, false, 0};
    if (content::is_datum_image(saved.content.get())) {
      const content::DatumHeader header = content::read_datum_header(*saved.content);
      bytes = header.stored_bytes;
      link.incremental = !header.full;
      link.base = header.base;
    }
    if (link.incremental && !holds_version(origin, h, link.base)) {
      // An incremental image whose base this node does not hold: encoded for its predecessor
      // (this node is a replacement the origin did not know of yet). Useless here, as if lost in
      // flight: the origin's re-protection sends the data again, and its next saves are full.
      return;
    }
    links_[key] = link;
  }
  ctx.checkpoint_store().put(key, node::encode(saved), bytes);
  stored_[origin_handle(origin, h)].push_back(checkpoint);
  if (copy && options_.copy_cost > 0) {
    copies_waiting_.emplace_back(origin, checkpoint);
    start_copies(ctx);
  } else {
    count_stored(ctx, origin, checkpoint);
  }
}

void BuddyKeeper::start_copies(node::ProtocolContext& ctx) {
  while (!copies_waiting_.empty()) {
    const std::uint64_t token = next_copy_token_;
    if (!ctx.run_activity(options_.copy_cost, token)) return;  // no core free: when a task ends
    ++next_copy_token_;
    copying_[token] = copies_waiting_.front();
    copies_waiting_.pop_front();
  }
}

void BuddyKeeper::on_copy_done(node::ProtocolContext& ctx, std::uint64_t token) {
  auto it = copying_.find(token);
  if (it == copying_.end()) return;
  const auto [origin, checkpoint] = it->second;
  copying_.erase(it);
  count_stored(ctx, origin, checkpoint);
  start_copies(ctx);
}

void BuddyKeeper::count_stored(node::ProtocolContext& ctx, NodeId origin, std::uint32_t checkpoint) {
  auto expected = expected_.find(origin_checkpoint(origin, checkpoint));
  if (expected != expected_.end() && expected->second > 0 && --expected->second == 0 && acks_for(origin, checkpoint)) {
    // Every entry of (origin, checkpoint) is here.
    messages::send(ctx, origin, messages::Ack{checkpoint});
  }
}

// ----------------------------------------------------------------------------- validity and garbage

void BuddyKeeper::on_validate(node::ProtocolContext& ctx, NodeId origin, std::uint32_t c) {
  // Keep the previous valid checkpoint as well: a restart may not be able to use the newest
  // (a message of its section still in transit, thesis Fig. 3.1), and the global state that
  // would let it go (every node past it) is not known here.
  if (!acks_for(origin, c)) return;  // a replacement does not hold it
  auto& [older, newest] = valid_[origin];
  if (c <= newest) return;
  older = newest;
  newest = c;
  if (older > 0) collect_garbage(ctx, origin, older);
}

void BuddyKeeper::collect_garbage(node::ProtocolContext& ctx, NodeId origin, std::uint32_t valid) {
  // Checkpoint `valid` of origin is complete: of each datum, only the newest version saved at or
  // before it is needed (differential checkpoints refer to older entries for unmodified data).
  for (auto& [key, checkpoints] : stored_) {
    if (static_cast<NodeId>(key >> 32) != origin || checkpoints.size() < 2) continue;
    const HandleId h = static_cast<HandleId>(key & 0xffffffffu);
    std::uint32_t newest = 0;
    for (std::uint32_t c : checkpoints) {
      if (c <= valid) newest = std::max(newest, c);
    }
    // /checkpoint_data: an entry kept keeps the entries its chain builds on.
    std::vector<std::uint32_t> needed;
    if (options_.content && h != kValueHandle) {
      for (std::uint32_t c : checkpoints) {
        if (c < newest) continue;
        for (std::uint32_t link : chain_of(origin, h, c)) needed.push_back(link);
      }
    }
    std::erase_if(checkpoints, [&](std::uint32_t c) {
      if (c >= newest || std::find(needed.begin(), needed.end(), c) != needed.end()) return false;
      ctx.checkpoint_store().erase(options_.entry_keys.key(origin, c, h));
      links_.erase(options_.entry_keys.key(origin, c, h));
      return true;
    });
  }
}

bool BuddyKeeper::holds_version(NodeId origin, HandleId h, graphs::Version v) const {
  auto stored = stored_.find(origin_handle(origin, h));
  if (stored == stored_.end()) return false;
  for (std::uint32_t c : stored->second) {
    auto link = links_.find(options_.entry_keys.key(origin, c, h));
    if (link != links_.end() && link->second.version == v) return true;
  }
  return false;
}

std::vector<std::uint32_t> BuddyKeeper::chain_of(NodeId origin, HandleId h, std::uint32_t c) const {
  std::vector<std::uint32_t> chain{c};
  auto stored = stored_.find(origin_handle(origin, h));
  for (std::uint32_t at = c;;) {
    auto link = links_.find(options_.entry_keys.key(origin, at, h));
    if (link == links_.end() || !link->second.incremental) return chain;
    // The entry of its base version (the newest checkpoint's, if several hold it).
    std::uint32_t base = 0;
    if (stored != stored_.end()) {
      for (std::uint32_t other : stored->second) {
        auto l = links_.find(options_.entry_keys.key(origin, other, h));
        if (other < at && l != links_.end() && l->second.version == link->second.base) base = std::max(base, other);
      }
    }
    if (base == 0) return {};
    chain.insert(chain.begin(), base);
    at = base;
  }
}

bool BuddyKeeper::acks_for(NodeId origin, std::uint32_t checkpoint) const {
  if (!replacement_) return true;
  auto it = protected_from_.find(origin);
  return it != protected_from_.end() && checkpoint >= it->second;
}

// ----------------------------------------------------------------------------- re-protection

void BuddyKeeper::on_reprotect(node::ProtocolContext& ctx, NodeId origin, const messages::Reprotect& reprotect) {
  const std::uint32_t checkpoints = static_cast<std::uint32_t>(options_.saves.checkpoints());
  const std::uint32_t point = reprotect.checkpoint;
  if (point == 0 || point > checkpoints) throw node::WireError("buddy: re-protection checkpoint out of range");
  protected_from_[origin] = point;
  valid_.erase(origin);  // validations it saw before were of checkpoints it does not hold
  reprotect.for_each_entry([&](const messages::Reprotect::Entry& e) {
    if (e.checkpoint == 0 || e.checkpoint > checkpoints) throw node::WireError("buddy: re-protection entry out of range");
    store(ctx, origin, e.checkpoint, e.handle, e.saved, false);  // the message is the copy
  });
  // Acknowledge R and the later checkpoints whose entries are all here now.
  for (std::uint32_t c = point; c <= checkpoints; ++c) {
    auto it = expected_.find(origin_checkpoint(origin, c));
    if (c == point ? (it == expected_.end() || it->second == 0) : (it != expected_.end() && it->second == 0)) {
      messages::send(ctx, origin, messages::Ack{c});
    }
  }
}

// ----------------------------------------------------------------------------- another node's restart

std::pair<std::uint32_t, std::uint32_t> BuddyKeeper::servable(NodeId origin) const {
  auto it = valid_.find(origin);
  if (it == valid_.end()) return {0, 0};
  auto [older, newest] = it->second;
  if (!acks_for(origin, older)) older = 0;  // before the origin's re-protection: not held
  return {older, newest};
}

BuddyKeeper::Holdings BuddyKeeper::holdings_of(node::ProtocolContext& ctx, NodeId origin) const {
  Holdings holdings;
  const auto buddies = options_.buddies.buddies(origin);
  holdings.buddy = std::find(buddies.begin(), buddies.end(), ctx.node()) != buddies.end();
  if (!holdings.buddy) return holdings;
  std::tie(holdings.older, holdings.newest) = servable(origin);
  // A replacement has lost the origin's data until a re-protection checkpoint is valid here.
  holdings.lost = replacement_ && holdings.newest == 0;
  return holdings;
}

void BuddyKeeper::serve_restart(node::ProtocolContext& ctx, NodeId failed, const messages::RestartFrom& restart) {
  const std::uint32_t n = restart.checkpoint;
  // As its buddy: a restart from the job's input saves everything again, so a replacement that
  // had lost that node's data holds it again from checkpoint 1 on (a restart from a checkpoint
  // re-protects it explicitly, see BuddyRecovery::on_restore_data).
  if (n == 0 && replacement_ && !restart.alive) {
    protected_from_[failed] = 1;
    valid_.erase(failed);
  }
  // Acknowledge again the later checkpoints held complete (§3.3).
  for (std::uint32_t c = n + 1; c <= options_.saves.checkpoints(); ++c) {
    auto it = expected_.find(origin_checkpoint(failed, c));
    if (it != expected_.end() && it->second == 0 && acks_for(failed, c)) messages::send(ctx, failed, messages::Ack{c});
  }
  if (restart.source != ctx.node() || n == 0) return;
  // The source buddy sends checkpoint N back: of each datum of the origin, its newest entry <= N.
  const auto& graph = ctx.graph();
  messages::RestoreData data;
  data.checkpoint = n;
  std::uint64_t bytes = 0;
  for (const auto& [key, checkpoints] : stored_) {
    if (static_cast<NodeId>(key >> 32) != failed) continue;
    const HandleId h = static_cast<HandleId>(key & 0xffffffffu);
    std::uint32_t newest = 0;
    for (std::uint32_t c : checkpoints) {
      if (c <= n) newest = std::max(newest, c);
    }
    if (newest == n && FTSIM_MUTANT(restore_before_cut)) {
      newest = 0;  // planted: the newest entry strictly before N
      for (std::uint32_t c : checkpoints) {
        if (c < n) newest = std::max(newest, c);
      }
    }
    if (newest == 0) continue;
    const auto* entry = ctx.checkpoint_store().find(options_.entry_keys.key(failed, newest, h));
    if (!entry) continue;
    if (h == kValueHandle) {
      bytes += options_.value_bytes;  // the application's VALUE entries go back with the data
      continue;
    }
    if (options_.content) {
      // /checkpoint_data: the datum's chain, its full entry first.
      const std::vector<std::uint32_t> chain = chain_of(failed, h, newest);
      if (chain.empty()) throw node::WireError("buddy: the chain of a datum image is broken at its keeper");
      for (std::uint32_t c : chain) {
        const auto* link = ctx.checkpoint_store().find(options_.entry_keys.key(failed, c, h));
        data.add(h, link->content);
        bytes += link->bytes;
      }
      continue;
    }
    data.add(h, entry->content);
    bytes += graph.bytes(h);
  }
  messages::send(ctx, failed, data, node::Traffic::restore, bytes);
}

}  // namespace ftsim::protocols::buddy
