#include "protocols/buddy/buddy_origin.hpp"

#include <algorithm>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/node_list.hpp"

namespace ftsim::protocols::buddy {

using messages::kValueHandle;
using messages::version_key;
using node::NodeId;
using graphs::HandleId;
using graphs::Version;

void BuddyOrigin::plan(node::ProtocolContext& ctx) {
  const NodeId me = ctx.node();
  const auto& saves = options_.saves;
  checkpoints_.assign(saves.checkpoints(), OwnCheckpoint{});
  own_saves_.clear();
  saving_tasks_.assign((ctx.index().tasks_of(me).size() + 63) / 64, 0);
  if (options_.content) writer_.emplace(options_.content);
  for (std::uint32_t c = 1; c <= saves.checkpoints(); ++c) {
    auto& waiting = checkpoints_[c - 1].waiting;
    for (std::uint32_t i : saves.from(c, me)) {  // its own saves, not every node's
      const graphs::CheckpointSave& s = saves.save(i);
      // Free when the buddy receives the version for its computation, whenever (Lion 2020 §IV-A:
      // "only one transfer is required"; the runtime sends it as soon as it is produced).
      own_saves_.add(version_key(s.handle, s.version), {c, s.buddy, s.transferred});
      if (s.version > 0) {  // written by a task of this node (save_outputs asks about no other)
        const std::uint32_t slot = ctx.index().local_slot(ctx.graph().writer(s.handle, s.version));
        saving_tasks_[slot / 64] |= std::uint64_t(1) << (slot % 64);
      }
      if (std::find(waiting.begin(), waiting.end(), s.buddy) == waiting.end()) waiting.push_back(s.buddy);
    }
    if (options_.value_bytes > 0) {
      // Every checkpoint has its VALUE entries, at every buddy.
      for (NodeId buddy : options_.buddies.buddies(me)) {
        if (std::find(waiting.begin(), waiting.end(), buddy) == waiting.end()) waiting.push_back(buddy);
      }
    }
  }
  own_saves_.seal();
  // The nodes whose data this node reads: they log what they send it, and learn from it when
  // they may drop those entries.
  // In the order first read; a set of the nodes seen, not a flag per node of the job (which, over
  // every node, costs N^2: 17 GB of memset at 131,072 nodes).
  const auto& graph = ctx.graph();
  node::FlatMap64<bool> seen;
  producers_.clear();
  for (node::TaskId t : ctx.index().tasks_of(me)) {
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const NodeId p = graph.version_node(a.handle, graphs::version_read(a));
      if (p != me && p < ctx.node_count() && seen.try_emplace(p).second) producers_.push_back(p);
    }
  }
}

void BuddyOrigin::send_values(node::ProtocolContext& ctx, std::uint32_t from_checkpoint) {
  // The VALUE entries are saved when the checkpoint is submitted: in an STF program, long before
  // its data (here, at the start, or at a restart from the job's input).
  if (options_.value_bytes == 0) return;
  for (std::uint32_t c = from_checkpoint; c <= options_.saves.checkpoints(); ++c) {
    for (NodeId buddy : options_.buddies.buddies(ctx.node())) {
      messages::send(ctx, buddy, messages::ValueEntries{c}, node::Traffic::checkpoint, options_.value_bytes);
      ++ctx.counters().cp_data_normal_count;
      ctx.counters().cp_data_normal_total_size += options_.value_bytes;
      checkpoints_[c - 1].bytes += options_.value_bytes;
      checkpoints_[c - 1].logical_bytes += writer_ ? options_.value_bytes : 0;
    }
  }
}

// ----------------------------------------------------------------------------- saves

void BuddyOrigin::save_outputs(node::ProtocolContext& ctx, node::TaskId task) {
  const std::uint32_t slot = ctx.index().local_slot(task);
  if (!(saving_tasks_[slot / 64] >> (slot % 64) & 1)) return;
  for (const graphs::Access& a : ctx.graph().accesses(task)) {
    if (graphs::writes(a.mode)) save_version(ctx, a.handle, a.version);
  }
}

std::int32_t BuddyOrigin::save_priority(HandleId h, Version v) const {
  if (options_.checkpoint_priority.empty()) return 0;
  const auto planned = own_saves_.find(version_key(h, v));
  return planned.empty() ? 0 : options_.priority_of_checkpoint(planned.front().checkpoint);
}

void BuddyOrigin::save_version(node::ProtocolContext& ctx, HandleId h, Version v) {
  const auto planned = own_saves_.find(version_key(h, v));
  if (planned.empty()) return;
  const std::uint64_t bytes = ctx.graph().bytes(h);
  for (const OwnSave& save : planned) {
    OwnCheckpoint& checkpoint = checkpoints_[save.checkpoint - 1];
    if (checkpoint.first_save < 0) checkpoint.first_save = ctx.now();
    checkpoint.last_save = ctx.now();
    if (save.cached) {
      // The buddy receives this version for its own computation: the save costs nothing.
      ++ctx.counters().cp_data_cached_count;
      ctx.counters().cp_data_cached_size += bytes;
      if (writer_) writer_->forget(save.buddy, h);  // its copy there is not one this node encoded
      continue;
    }
    if (writer_) {
      // /checkpoint_data: a datum image (zero blocks, the blocks changed since its last save to
      // that buddy, zstd), sent from the encoded copy once hashing and compressing took a core.
      const auto& entry = ctx.runtime().versions().at(node::VersionStore::key(h, v));
      const bool full = content::full_checkpoint(*options_.content, save.checkpoint);
      const content::DatumWriter::Image image = writer_->write(ctx, save.buddy, h, v, entry.content, full, save.checkpoint);
      Encoding encoding{save.buddy, messages::SavedCopy{h, {v, entry.digest, image.image}}, image.stored_bytes,
                        image.charge_seconds};
      ++ctx.counters().cp_data_normal_count;
      ctx.counters().cp_data_normal_total_size += image.stored_bytes;
      checkpoint.bytes += image.stored_bytes;
      checkpoint.logical_bytes += image.logical_bytes;
      checkpoint.encode_seconds += image.hash_seconds + image.compress_seconds;
      encoding.done = encoding.seconds <= 0;  // on MPI the encoding ran already
      encodes_.push_back(std::move(encoding));
      continue;
    }
    if (options_.cow) {
      // Copied now and sent from the copy: the next writer of h need not wait.
      const auto& entry = ctx.runtime().versions().at(node::VersionStore::key(h, v));
      messages::send(ctx, save.buddy, messages::SavedCopy{h, {v, entry.digest, entry.content}}, node::Traffic::checkpoint, bytes);
    } else {
      // Sent at once, through the runtime: a later writer of h waits until it has left.
      ctx.runtime().subscribe(h, v, save.buddy, node::Traffic::checkpoint);
    }
    ++ctx.counters().cp_data_normal_count;
    ctx.counters().cp_data_normal_total_size += bytes;
    checkpoint.bytes += bytes;
  }
  start_encodes(ctx);
}

void BuddyOrigin::start_encodes(node::ProtocolContext& ctx) {
  // The saves whose encoding is done leave, in order; then those waiting start on the free cores.
  while (!encodes_.empty() && encodes_.front().done) {
    const Encoding& e = encodes_.front();
    messages::send(ctx, e.buddy, e.copy, node::Traffic::checkpoint, e.bytes);
    encodes_.pop_front();
  }
  for (Encoding& e : encodes_) {
    if (e.done || e.token != 0) continue;
    const std::uint64_t token = kEncodeTokenBit | next_encode_;
    if (!ctx.run_activity(e.seconds, token)) return;  // no core free: when a task ends
    ++next_encode_;
    e.token = token;
  }
}

void BuddyOrigin::on_encode_done(node::ProtocolContext& ctx, std::uint64_t token) {
  for (Encoding& e : encodes_) {
    if (e.token == token) e.done = true;
  }
  start_encodes(ctx);
}

// ----------------------------------------------------------------------------- validation

void BuddyOrigin::raise_restart_floor(node::ProtocolContext& ctx, std::uint32_t floor) {
  restart_floor_ = floor;
  send_log_release(ctx);
}

void BuddyOrigin::send_log_release(node::ProtocolContext& ctx) {
  const std::uint32_t validated = next_to_validate_ - 1;
  const std::uint32_t release = std::min(validated > 0 ? validated - 1 : 0, restart_floor_);
  if (release == 0 || release <= released_) return;
  released_ = release;
  for (NodeId p : producers_) messages::send(ctx, p, messages::LogRelease{release});
}

void BuddyOrigin::try_validate(node::ProtocolContext& ctx) {
  const auto& saves = options_.saves;
  while (next_to_validate_ <= saves.checkpoints()) {
    const std::uint32_t c = next_to_validate_;
    OwnCheckpoint& checkpoint = checkpoints_[c - 1];
    if (!checkpoint.waiting.empty() || !ctx.runtime().done_before(saves.position(c))) return;
    ++next_to_validate_;
    // In a checkpoint trace, the node's checkpoint c is where it became valid: a cut of the task
    // graph is not an instant of the node (tasks after the cut may have run already).
    ctx.record_local_checkpoint(c);
    for (NodeId buddy : options_.buddies.buddies(ctx.node())) messages::send(ctx, buddy, messages::Validate{c});
    // Its buddies now keep c - 1 and c: it will never restart before c - 1 (log GC), nor, with
    // levels, before the oldest checkpoint a level may restart it from.
    send_log_release(ctx);
    const double start = checkpoint.first_save >= 0 ? checkpoint.first_save : ctx.now();
    if (ctx.recording()) {
      ctx.record_span("checkpoint " + std::to_string(c), "checkpoint", start);
      ctx.note("checkpoint " + std::to_string(c) + " valid: first save at " + std::to_string(checkpoint.first_save) +
               " s, last save at " + std::to_string(checkpoint.last_save) + " s", "checkpoint");
    }
    node::CheckpointRecord record;
    record.id = c;
    record.started = start;
    record.saved = checkpoint.last_save >= 0 ? checkpoint.last_save : ctx.now();
    record.committed = ctx.now();
    record.bytes = checkpoint.bytes;
    record.partial = true;  // this node's share: the world merges the nodes' records
    ctx.record_checkpoint(record);
    if (writer_ && checkpoint.logical_bytes > 0) {
      // /checkpoint_data: this node's share of checkpoint c, as one image record.
      ctx.counters().content.images.push_back({c, content::full_checkpoint(*options_.content, c), checkpoint.logical_bytes,
                                               checkpoint.bytes, checkpoint.encode_seconds});
    }
    // Its last validation (e.g. on an ack arriving after the job's last task) may end the run.
    if (next_to_validate_ > saves.checkpoints()) ctx.check_completion();
  }
}

void BuddyOrigin::on_ack(node::ProtocolContext& ctx, NodeId buddy, std::uint32_t c) {
  std::erase(checkpoints_[c - 1].waiting, buddy);
  auto r = reprotecting_.find(buddy);
  if (r != reprotecting_.end() && r->second == c && c < next_to_validate_) {
    // Re-protected with a checkpoint that was already valid here: valid at the new buddy too.
    messages::send(ctx, buddy, messages::Validate{c});
  }
  try_validate(ctx);
}

std::string BuddyOrigin::phase(node::ProtocolContext& ctx) const {
  if (all_valid()) return {};
  const std::string checkpoint = "checkpoint " + std::to_string(next_to_validate_);
  if (!ctx.runtime().done_before(options_.saves.position(next_to_validate_))) {
    return ctx.runtime().remaining_tasks() == 0 ? checkpoint + ": its tasks before the cut are not done" : std::string();
  }
  return checkpoint + ": waiting for the acknowledgements of nodes " + buddy_node_list(checkpoints_[next_to_validate_ - 1].waiting);
}

// ----------------------------------------------------------------------------- re-protection

void BuddyOrigin::reprotect(node::ProtocolContext& ctx, NodeId buddy, std::uint32_t incarnation) {
  // The buddy was replaced and holds nothing of this node: its later checkpoints, differential,
  // would refer to entries it lost. Choose the first checkpoint R (from the last valid one on)
  // whose full state — of each datum this node produced, its newest saved version at or before R
  // — and whose later saves already made are all still in memory (a version overwritten since and
  // not pinned by the log is gone), and send them in one message. The buddy can serve R once it
  // holds them and R is valid.
  const auto& saves = options_.saves;
  const auto& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  const NodeId me = ctx.node();
  for (OwnCheckpoint& checkpoint : checkpoints_) std::erase(checkpoint.waiting, buddy);
  reprotecting_.erase(buddy);
  if (writer_) writer_->forget(buddy);  // it holds nothing this node encoded: the next saves there are full
  struct Entry {
    std::uint32_t checkpoint;
    const graphs::CheckpointSave* save;
  };
  // newest[h]: the newest save of h at or before the candidate, by any node (a datum may move).
  std::unordered_map<HandleId, Entry> newest;
  const auto available = [&](const graphs::CheckpointSave& s) {
    return runtime.status(graph.writer(s.handle, s.version)) != node::TaskStatus::done ||
           runtime.holds(s.handle, s.version);
  };
  const std::uint32_t first = std::max<std::uint32_t>(1, next_to_validate_ - 1);
  std::uint32_t chosen = 0;
  for (std::uint32_t c = 1; c <= saves.checkpoints() && chosen == 0; ++c) {
    for (const graphs::CheckpointSave& s : saves.of(c)) {
      if (s.buddy == buddy || s.from != me) newest[s.handle] = {c, &s};
    }
    if (c < first) continue;
    bool ok = true;
    for (const auto& [h, e] : newest) ok = ok && (e.save->from != me || available(*e.save));
    for (std::uint32_t later = c + 1; ok && later <= saves.checkpoints(); ++later) {
      for (std::uint32_t i : saves.from(later, me)) {
        if (saves.save(i).buddy == buddy && !available(saves.save(i))) ok = false;
      }
    }
    if (ok) chosen = c;
  }
  if (chosen == 0) {
    if (ctx.recording()) {
      ctx.note("cannot protect its data again at node " + std::to_string(buddy) +
               ": every remaining checkpoint refers to versions already overwritten", "checkpoint");
    }
    try_validate(ctx);  // it no longer waits for that buddy
    return;
  }
  // The entries: the state at R, then the saves of later checkpoints already produced. Each is
  // filed under the checkpoint whose differential it belongs to, as the buddy's plan expects.
  messages::Reprotect message;
  message.checkpoint = chosen;
  std::uint64_t bytes = 0;
  const auto add = [&](std::uint32_t c, const graphs::CheckpointSave& s) {
    if (s.from != me || s.buddy != buddy || !runtime.holds(s.handle, s.version)) return;
    const auto& entry = runtime.versions().at(node::VersionStore::key(s.handle, s.version));
    message.add(c, s.handle, {s.version, entry.digest, entry.content});
    bytes += graph.bytes(s.handle);
  };
  for (const auto& [h, e] : newest) add(e.checkpoint, *e.save);
  for (std::uint32_t later = chosen + 1; later <= saves.checkpoints(); ++later) {
    for (std::uint32_t i : saves.from(later, me)) add(later, saves.save(i));
  }
  if (options_.value_bytes > 0) {
    for (std::uint32_t c = chosen; c <= saves.checkpoints(); ++c) {  // the VALUE entries, submitted long ago
      message.add(c, kValueHandle, messages::SavedVersion{});
      bytes += options_.value_bytes;
    }
  }
  messages::send(ctx, buddy, message, node::Traffic::checkpoint, bytes, incarnation);
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += bytes;
  reprotecting_[buddy] = chosen;
  // Its acknowledgement of R (and of the later checkpoints with entries) is awaited again.
  for (std::uint32_t c = std::max(chosen, next_to_validate_); c <= saves.checkpoints(); ++c) {
    bool has_entries = c == chosen || options_.value_bytes > 0;
    for (std::uint32_t i : saves.from(c, me)) has_entries = has_entries || saves.save(i).buddy == buddy;
    if (has_entries) checkpoints_[c - 1].waiting.push_back(buddy);
  }
  if (ctx.recording()) {
    ctx.note("protects its data again at node " + std::to_string(buddy) + " from checkpoint " + std::to_string(chosen) +
             ": " + std::to_string(message.count) + " entries, " + std::to_string(bytes) + " B", "checkpoint");
  }
  try_validate(ctx);
}

// ----------------------------------------------------------------------------- message log

void BuddyOrigin::log(node::ProtocolContext& ctx, const node::Message& m) {
  // Logged by reference (§3.3): the entry names the version, which stays pinned in memory so that
  // a later writer does not destroy it (copy-on-write) until release_log drops the entry. What it
  // names is in log_ (and the replay reads it there): the store only accounts the entry's bytes,
  // with no record to allocate for each message sent.
  const std::uint64_t key = next_log_key_++;
  ctx.log_store().put(key, node::Bytes{}, ctx.graph().bytes(m.handle));
  log_[m.destination].push_back({version_key(m.handle, m.version), key});
  ctx.runtime().pin(m.handle, m.version);
}

void BuddyOrigin::release_log(node::ProtocolContext& ctx, NodeId reader, std::uint32_t checkpoint) {
  // `reader` will restart at checkpoint `checkpoint` or later: a version none of its tasks from
  // that cut on reads will never be replayed to it.
  const auto at = std::lower_bound(released_by_.begin(), released_by_.end(), reader);
  if (at == released_by_.end() || *at != reader) released_by_.insert(at, reader);
  auto it = log_.find(reader);
  if (it == log_.end()) return;
  const node::TaskId cut = options_.saves.position(checkpoint);
  const auto& graph = ctx.graph();
  std::erase_if(it->second, [&](const LogEntry& e) {
    const HandleId h = messages::handle_of(e.version_key);
    const Version v = messages::version_of(e.version_key);
    for (node::TaskId r : ctx.index().readers(h, v)) {
      if (graph.node(r) == reader && r >= cut) return false;
    }
    ctx.log_store().erase(e.store_key);
    ctx.runtime().unpin(h, v);
    return true;
  });
}

void BuddyOrigin::drop_log(node::ProtocolContext& ctx) {
  for (const auto& entry : log_) {
    for (const LogEntry& e : entry.second) ctx.log_store().erase(e.store_key);
  }
  log_.clear();
}

}  // namespace ftsim::protocols::buddy
