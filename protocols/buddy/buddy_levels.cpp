#include "protocols/buddy/buddy_levels.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>


namespace ftsim::protocols::buddy {

using graphs::HandleId;
using graphs::Version;
using messages::version_key;

void BuddyLevels::plan(node::ProtocolContext& ctx) {
  levels_.assign(options_.levels.size(), Level{});
  by_version_.clear();
  generation_ = 0;
  begun_at_ = 0;
  if (!enabled()) return;
  const auto& saves = options_.saves;
  // The state at cut c: of each datum this node saves, the version of its newest save up to c (a
  // save is the last version before a cut; a datum not saved since the job's input is read again
  // from the input, as a buddy restore does).
  std::unordered_map<HandleId, Version> current;
  for (std::uint32_t c = 1; c <= saves.checkpoints(); ++c) {
    for (std::uint32_t i : saves.from(c, ctx.node())) {
      const graphs::CheckpointSave& s = saves.save(i);
      if (s.version > 0) current[s.handle] = s.version;
    }
    for (std::uint32_t l = 0; l < levels_.size(); ++l) {
      if (c % options_.levels[l].every != 0) continue;
      LevelCheckpoint checkpoint;
      checkpoint.id = c;
      checkpoint.entries.assign(current.begin(), current.end());
      std::sort(checkpoint.entries.begin(), checkpoint.entries.end());
      levels_[l].checkpoints.push_back(std::move(checkpoint));
    }
  }
  for (std::uint32_t l = 0; l < levels_.size(); ++l) {
    const auto& checkpoints = levels_[l].checkpoints;
    for (std::uint32_t k = 0; k < checkpoints.size(); ++k) {
      for (const auto& [h, v] : checkpoints[k].entries) by_version_.add(version_key(h, v), Target{l, k});
    }
  }
  by_version_.seal();
}

void BuddyLevels::begin(node::ProtocolContext& ctx, std::uint32_t n) {
  if (!enabled()) return;
  ++generation_;
  begun_at_ = n;
  const node::TaskId cut = n == 0 ? 0 : options_.saves.position(n);
  for (std::uint32_t l = 0; l < levels_.size(); ++l) {
    Level& level = levels_[l];
    level.manifest_in_flight = false;  // one of an abandoned plan: its answer is ignored
    level.manifest_wanted = level.complete;
    for (LevelCheckpoint& c : level.checkpoints) {
      c.pending = c.id > n;
      if (!c.pending) continue;
      c.remaining = static_cast<std::uint32_t>(c.entries.size());
      // The versions written before cut n are not produced again: they are in the restored state.
      for (const auto& [h, v] : c.entries) {
        if (ctx.graph().writer(h, v) < cut) write_entry(ctx, l, c, h, v);
      }
      if (c.entries.empty()) {
        c.remaining = 1;  // nothing to write: complete at once
        entry_done(ctx, l, c);
      }
    }
  }
}

void BuddyLevels::on_task_completed(node::ProtocolContext& ctx, node::TaskId task) {
  if (!enabled()) return;
  for (const graphs::Access& a : ctx.graph().accesses(task)) {
    if (!graphs::writes(a.mode)) continue;
    for (const Target& t : by_version_.find(version_key(a.handle, a.version))) {
      LevelCheckpoint& c = levels_[t.level].checkpoints[t.index];
      if (c.pending) write_entry(ctx, t.level, c, a.handle, a.version);
    }
  }
}

void BuddyLevels::write_entry(node::ProtocolContext& ctx, std::uint32_t level, LevelCheckpoint& c, HandleId h, Version v) {
  const auto& store = ctx.runtime().versions();
  const auto it = store.find(node::VersionStore::key(h, v));
  if (it == store.end()) {
    ctx.fail_run("buddy: node " + std::to_string(ctx.node()) + " does not hold version " + std::to_string(v) +
                 " of datum " + std::to_string(h) + " for its level checkpoint " + std::to_string(c.id) + " (a bug)");
    return;
  }
  const messages::SavedVersion saved{v, it->second.digest, it->second.content};
  c.stored = true;
  ctx.storage_write(server(ctx, level), entry_key(ctx, c.id, h), node::encode(saved), ctx.graph().bytes(h),
                    level_tokens::make(level_tokens::kWrite, false, level, generation_, c.id));
}

bool BuddyLevels::on_written(node::ProtocolContext& ctx, std::uint64_t token) {
  if (level_tokens::sequence_of(token) != (generation_ & 0xFFFFFF)) return false;  // an abandoned plan's
  const std::uint32_t l = level_tokens::level_of(token);
  const std::uint32_t id = level_tokens::value_of(token);
  if (l >= levels_.size()) throw node::WireError("buddy: storage token of an unknown level");
  Level& level = levels_[l];
  if (token & level_tokens::kManifest) {
    level.manifest_in_flight = false;
    level.complete = std::max(level.complete, id);
    if (ctx.recording()) {
      ctx.note("level checkpoint " + std::to_string(id) + " complete on " + name(options_.levels[l]), "checkpoint");
    }
    erase_older(ctx, l);
    if (level.manifest_wanted > level.complete) write_manifest(ctx, l);
    return true;
  }
  const std::uint32_t index = id / options_.levels[l].every - 1;
  if (id % options_.levels[l].every != 0 || index >= level.checkpoints.size()) {
    throw node::WireError("buddy: storage token of an unknown level checkpoint");
  }
  LevelCheckpoint& c = level.checkpoints[index];
  if (c.pending) entry_done(ctx, l, c);
  return false;
}

void BuddyLevels::entry_done(node::ProtocolContext& ctx, std::uint32_t l, LevelCheckpoint& c) {
  if (--c.remaining > 0) return;
  c.pending = false;
  Level& level = levels_[l];
  if (c.id <= level.manifest_wanted) {
    erase_older(ctx, l);  // complete after a newer one: superseded already
    return;
  }
  level.manifest_wanted = c.id;
  if (!level.manifest_in_flight) write_manifest(ctx, l);
}

void BuddyLevels::write_manifest(node::ProtocolContext& ctx, std::uint32_t l) {
  // One manifest write at a time: a later one never lands before an earlier one.
  Level& level = levels_[l];
  level.manifest_in_flight = true;
  ctx.storage_write(server(ctx, l), manifest_key(ctx), node::encode(LevelManifest{level.manifest_wanted}),
                    sizeof(std::uint32_t),
                    level_tokens::make(level_tokens::kWrite, true, l, generation_, level.manifest_wanted));
}

void BuddyLevels::erase_older(node::ProtocolContext& ctx, std::uint32_t l) {
  // The entries of the level checkpoints older than the complete one go (not one being written).
  Level& level = levels_[l];
  for (LevelCheckpoint& c : level.checkpoints) {
    if (c.id >= level.complete || !c.stored || c.pending) continue;
    for (const auto& [h, v] : c.entries) ctx.storage_erase(server(ctx, l), entry_key(ctx, c.id, h));
    c.stored = false;
  }
}

void BuddyLevels::known_complete(std::uint32_t l, std::uint32_t checkpoint) {
  if (l >= levels_.size() || checkpoint == 0) return;
  Level& level = levels_[l];
  level.complete = std::max(level.complete, checkpoint);
  level.manifest_wanted = std::max(level.manifest_wanted, checkpoint);
  const std::uint32_t index = checkpoint / options_.levels[l].every - 1;
  if (index < level.checkpoints.size()) level.checkpoints[index].stored = true;  // erased once superseded
}

std::uint32_t BuddyLevels::restart_floor() const {
  if (!enabled()) return messages::kNoBound;
  std::uint32_t floor = messages::kNoBound;
  for (const Level& level : levels_) floor = std::min(floor, level.complete);
  return floor;
}

bool BuddyLevels::all_written() const {
  for (const Level& level : levels_) {
    if (level.manifest_in_flight || level.manifest_wanted > level.complete) return false;
    for (const LevelCheckpoint& c : level.checkpoints) {
      if (c.pending) return false;
    }
  }
  return true;
}

std::uint32_t BuddyLevels::server(node::ProtocolContext& ctx, std::uint32_t level) const {
  if (options_.levels[level].local) return node::kLocalStorage;
  return ctx.node() % std::max(1u, ctx.storage_servers());
}

std::uint64_t BuddyLevels::manifest_key(node::ProtocolContext& ctx) const {
  return options_.entry_keys.key(ctx.node(), 0, messages::kValueHandle);  // checkpoint 0 holds no entry
}

std::uint64_t BuddyLevels::entry_key(node::ProtocolContext& ctx, std::uint32_t checkpoint, HandleId h) const {
  return options_.entry_keys.key(ctx.node(), checkpoint, h);
}

const std::vector<std::pair<HandleId, Version>>& BuddyLevels::entries(std::uint32_t level, std::uint32_t checkpoint) const {
  return levels_[level].checkpoints[checkpoint / options_.levels[level].every - 1].entries;
}

std::string BuddyLevels::phase() const {
  for (std::uint32_t l = 0; l < levels_.size(); ++l) {
    for (const LevelCheckpoint& c : levels_[l].checkpoints) {
      if (c.pending) {
        return "writing level checkpoint " + std::to_string(c.id) + " to " + name(options_.levels[l]) + ": " +
               std::to_string(c.remaining) + " of " + std::to_string(c.entries.size()) + " entries left";
      }
    }
    if (levels_[l].manifest_in_flight) return "writing the manifest of " + std::string(name(options_.levels[l]));
  }
  return {};
}

}  // namespace ftsim::protocols::buddy
