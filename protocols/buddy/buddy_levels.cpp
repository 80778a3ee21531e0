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
  if (!enabled()) return;
  for (Level& level : levels_) level.reported.assign(ctx.node_count(), 0);
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
  const node::TaskId cut = n == 0 ? 0 : options_.saves.position(n);
  for (std::uint32_t l = 0; l < levels_.size(); ++l) {
    Level& level = levels_[l];
    level.manifest_in_flight = false;  // one of an abandoned plan: its answer is ignored
    level.manifest_stale = false;
    level.manifest_wanted = level.complete;
    for (LevelCheckpoint& c : level.checkpoints) {
      c.pending = c.id > n;
      if (!c.pending) continue;
      c.whole = false;
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

BuddyLevels::Written BuddyLevels::on_written(node::ProtocolContext& ctx, std::uint64_t token) {
  if (level_tokens::sequence_of(token) != (generation_ & 0xFFFFFF)) return {};  // an abandoned plan's
  const std::uint32_t l = level_tokens::level_of(token);
  const std::uint32_t id = level_tokens::value_of(token);
  if (l >= levels_.size()) throw node::WireError("buddy: storage token of an unknown level");
  Level& level = levels_[l];
  if (token & level_tokens::kManifest) {
    level.manifest_in_flight = false;
    if (id > level.complete) {
      level.complete = id;
      level.reported[ctx.node()] = id;
      if (ctx.recording()) {
        ctx.note("level checkpoint " + std::to_string(id) + " complete on " + name(options_.levels[l]), "checkpoint");
      }
      // Every other node learns it: each keeps its level checkpoints from the oldest complete at all.
      const node::Bytes body = node::encode(messages::LevelDone{l, id});
      for (node::NodeId n = 0; n < ctx.node_count(); ++n) {
        if (n != ctx.node()) ctx.send_control(n, static_cast<std::uint32_t>(messages::LevelDone::type), body);
      }
    }
    erase_older(ctx, l);  // (which may write the manifest again)
    if (level.manifest_stale || level.manifest_wanted > level.complete) request_manifest(ctx, l);
    return {.manifest = true};
  }
  const std::uint32_t index = id / options_.levels[l].every - 1;
  if (id % options_.levels[l].every != 0 || index >= level.checkpoints.size()) {
    throw node::WireError("buddy: storage token of an unknown level checkpoint");
  }
  LevelCheckpoint& c = level.checkpoints[index];
  if (!c.pending) return {};
  entry_done(ctx, l, c);
  return {.whole = !c.pending};
}

void BuddyLevels::entry_done(node::ProtocolContext& ctx, std::uint32_t l, LevelCheckpoint& c) {
  if (--c.remaining > 0) return;
  c.pending = false;
  c.whole = true;
  Level& level = levels_[l];
  if (c.id <= level.manifest_wanted) {
    erase_older(ctx, l);  // whole after a newer one
    return;
  }
  level.manifest_wanted = c.id;
  request_manifest(ctx, l);
}

void BuddyLevels::request_manifest(node::ProtocolContext& ctx, std::uint32_t l) {
  // One manifest write at a time, so that a later one never lands before an earlier one; one asked
  // for meanwhile follows it.
  if (levels_[l].manifest_in_flight) {
    levels_[l].manifest_stale = true;
  } else {
    write_manifest(ctx, l);
  }
}

void BuddyLevels::write_manifest(node::ProtocolContext& ctx, std::uint32_t l) {
  Level& level = levels_[l];
  level.manifest_wanted = std::max(level.manifest_wanted, level.complete);
  level.manifest_in_flight = true;
  level.manifest_stale = false;
  const std::uint32_t oldest = oldest_kept(l, level.manifest_wanted);
  const LevelManifest manifest{level.manifest_wanted, oldest > 0 ? oldest : level.manifest_wanted};
  ctx.storage_write(server(ctx, l), manifest_key(ctx), node::encode(manifest), 2 * sizeof(std::uint32_t),
                    level_tokens::make(level_tokens::kWrite, true, l, generation_, level.manifest_wanted));
}

void BuddyLevels::erase_older(node::ProtocolContext& ctx, std::uint32_t l) {
  // It keeps from the oldest checkpoint complete at every node (0 while one has told nothing: then
  // it keeps all), and at least its own two newest (as a buddy keeps two: the newest is often too
  // new for the messages in transit at a failure).
  Level& level = levels_[l];
  std::uint32_t kept = level.complete;
  for (std::uint32_t reported : level.reported) kept = std::min(kept, reported);
  std::uint32_t newest = 0, second = 0;  // of those a manifest names
  for (const LevelCheckpoint& c : level.checkpoints) {
    if (c.whole && c.stored && c.id <= level.complete) {
      second = newest;
      newest = c.id;
    }
  }
  kept = std::min(kept, second > 0 ? second : newest);
  bool erased = false;
  for (LevelCheckpoint& c : level.checkpoints) {
    if (c.id >= kept || !c.stored || c.pending) continue;
    for (const auto& [h, v] : c.entries) ctx.storage_erase(server(ctx, l), entry_key(ctx, c.id, h));
    c.stored = false;
    erased = erased || c.whole;
    c.whole = false;
  }
  // The manifest names what is kept: written again (8 bytes) when its oldest went.
  if (erased && level.complete > 0) request_manifest(ctx, l);
}

std::uint32_t BuddyLevels::oldest_kept(std::uint32_t l, std::uint32_t upto) const {
  for (const LevelCheckpoint& c : levels_[l].checkpoints) {
    if (c.id > upto) break;
    if (c.whole && c.stored) return c.id;
  }
  return 0;
}

bool BuddyLevels::on_level_done(node::ProtocolContext& ctx, node::NodeId from, const messages::LevelDone& done) {
  if (done.level >= levels_.size() || from >= levels_[done.level].reported.size()) {
    throw node::WireError("buddy: LEVEL_DONE of an unknown level or node");
  }
  std::uint32_t& reported = levels_[done.level].reported[from];
  if (done.checkpoint <= reported) return false;
  reported = done.checkpoint;
  erase_older(ctx, done.level);
  return true;
}

void BuddyLevels::known_complete(std::uint32_t l, const LevelManifest& manifest) {
  if (l >= levels_.size() || manifest.newest <= levels_[l].complete) return;
  Level& level = levels_[l];
  level.complete = manifest.newest;
  level.manifest_wanted = std::max(level.manifest_wanted, manifest.newest);
  // Its predecessor's checkpoints: whole as far as the manifest says, erased once superseded.
  for (LevelCheckpoint& c : level.checkpoints) {
    if (c.id >= manifest.oldest && c.id <= manifest.newest && !c.pending) c.whole = c.stored = true;
  }
}

std::uint32_t BuddyLevels::restart_floor() const {
  if (!enabled()) return messages::kNoBound;
  std::uint32_t floor = messages::kNoBound;
  // Only what a manifest already names: a replacement knows of nothing else.
  for (std::uint32_t l = 0; l < levels_.size(); ++l) floor = std::min(floor, oldest_kept(l, levels_[l].complete));
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
