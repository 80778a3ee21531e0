#include "protocols/buddy/buddy_protocol.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "protocols/buddy/buddy_messages.hpp"

#ifdef FTSIM_BUDDY_MUTANTS
#include "tests/support/buddy_mutants.hpp"  // a test build only: the mutation check's planted faults
#else
#define FTSIM_BUDDY_MUTANT(name) false
#endif

namespace ftsim::protocols {

namespace messages = buddy_messages;
using core::NodeId;
using graphs::HandleId;
using graphs::Version;
using messages::kNoBound;
using messages::kValueHandle;
using messages::MessageType;
using messages::version_key;

namespace {

std::uint64_t origin_checkpoint(NodeId origin, std::uint32_t c) { return (std::uint64_t(origin) << 32) | c; }
std::uint64_t origin_handle(NodeId origin, HandleId h) { return (std::uint64_t(origin) << 32) | h; }
// A stored save in the checkpoint store: origin (16 bits), checkpoint (16 bits), handle (32 bits);
// check_buddy_options keeps nodes and checkpoints below 65536.
std::uint64_t entry_key(NodeId origin, std::uint32_t c, HandleId h) {
  return (std::uint64_t(origin) << 48) | (std::uint64_t(c) << 32) | h;
}

}  // namespace

BuddyProtocol::BuddyProtocol(std::shared_ptr<const BuddyOptions> options, bool coordinator)
    : options_(std::move(options)), coordinator_(coordinator) {}

// ----------------------------------------------------------------------------- the plan

void BuddyProtocol::on_start(core::ProtocolContext& ctx) {
  if (coordinator_) return;
  build_plan(ctx);
  send_values(ctx, 1);
  try_validate(ctx);  // a node with no task before a cut and nothing to save: valid at once
}

void BuddyProtocol::send_values(core::ProtocolContext& ctx, std::uint32_t from_checkpoint) {
  // The VALUE entries are saved when the checkpoint is submitted: in an STF program, long before
  // its data (here, at the start, or at a restart from the job's input).
  if (options_->value_bytes == 0) return;
  for (std::uint32_t c = from_checkpoint; c <= options_->saves.checkpoints(); ++c) {
    for (NodeId buddy : options_->buddies.buddies(ctx.node())) {
      messages::send(ctx, buddy, messages::ValueEntries{c}, core::Traffic::checkpoint, options_->value_bytes);
      ++ctx.counters().cp_data_normal_count;
      ctx.counters().cp_data_normal_total_size += options_->value_bytes;
      local_[c - 1].bytes += options_->value_bytes;
    }
  }
}

void BuddyProtocol::build_plan(core::ProtocolContext& ctx) {
  const NodeId me = ctx.node();
  const auto& saves = options_->saves;
  local_.assign(saves.checkpoints(), Local{});
  for (std::uint32_t c = 1; c <= saves.checkpoints(); ++c) {
    auto& waiting = local_[c - 1].waiting;
    for (const graphs::CheckpointSave& s : saves.of(c)) {
      if (s.from == me) {
        // Free when the buddy receives the version for its computation, whenever (Lion 2020 §IV-A:
        // "only one transfer is required"; the runtime sends it as soon as it is produced).
        own_saves_[version_key(s.handle, s.version)].push_back({c, s.buddy, s.transferred});
        if (std::find(waiting.begin(), waiting.end(), s.buddy) == waiting.end()) waiting.push_back(s.buddy);
      }
      if (s.buddy == me) {
        held_saves_[version_key(s.handle, s.version)].push_back({s.from, c, s.transferred});
        ++expected_[origin_checkpoint(s.from, c)];
      }
    }
    if (options_->value_bytes > 0) {
      // Every checkpoint has its VALUE entries, at every buddy.
      for (NodeId buddy : options_->buddies.buddies(me)) {
        if (std::find(waiting.begin(), waiting.end(), buddy) == waiting.end()) waiting.push_back(buddy);
      }
      for (NodeId origin = 0; origin < ctx.node_count(); ++origin) {
        const auto buddies = options_->buddies.buddies(origin);
        if (origin != me && std::find(buddies.begin(), buddies.end(), me) != buddies.end()) {
          ++expected_[origin_checkpoint(origin, c)];
        }
      }
    }
  }
  // The nodes whose data this node reads: they log what they send it, and learn from it when
  // they may drop those entries.
  const auto& graph = ctx.graph();
  std::vector<char> seen(ctx.node_count(), 0);
  producers_.clear();
  for (core::TaskId t : ctx.index().tasks_of(me)) {
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const NodeId p = graph.version_node(a.handle, graphs::version_read(a));
      if (p != me && p < ctx.node_count() && !seen[p]) {
        seen[p] = 1;
        producers_.push_back(p);
      }
    }
  }
}

bool BuddyProtocol::acks_for(NodeId origin, std::uint32_t checkpoint) const {
  // A replacement holds nothing of an origin before that origin protected itself again.
  if (!lost_held_) return true;
  auto it = protected_from_.find(origin);
  return it != protected_from_.end() && checkpoint >= it->second;
}

// ----------------------------------------------------------------------------- origin

void BuddyProtocol::on_task_completed(core::ProtocolContext& ctx, core::TaskId task, bool first_execution) {
  if (coordinator_) return;
  if (first_execution) {
    for (const graphs::Access& a : ctx.graph().accesses(task)) {
      if (graphs::writes(a.mode)) save_version(ctx, a.handle, a.version);
    }
  }
  if (!copies_waiting_.empty()) start_copies(ctx);  // a core is free: copy tasks first
  try_validate(ctx);
}

void BuddyProtocol::save_version(core::ProtocolContext& ctx, HandleId h, Version v) {
  auto it = own_saves_.find(version_key(h, v));
  if (it == own_saves_.end()) return;
  const std::uint64_t bytes = ctx.graph().bytes(h);
  for (const OwnSave& save : it->second) {
    Local& local = local_[save.checkpoint - 1];
    if (local.first_save < 0) local.first_save = ctx.now();
    local.last_save = ctx.now();
    if (save.cached) {
      // The buddy receives this version for its own computation: the save costs nothing.
      ++ctx.counters().cp_data_cached_count;
      ctx.counters().cp_data_cached_size += bytes;
      continue;
    }
    if (options_->cow) {
      // Copied now and sent from the copy: the next writer of h need not wait.
      const auto& entry = ctx.runtime().versions().at(core::VersionStore::key(h, v));
      messages::send(ctx, save.buddy, messages::SavedCopy{h, {v, entry.digest, entry.content}}, core::Traffic::checkpoint, bytes);
    } else {
      // Sent at once, through the runtime: a later writer of h waits until it has left.
      ctx.runtime().subscribe(h, v, save.buddy, core::Traffic::checkpoint);
    }
    ++ctx.counters().cp_data_normal_count;
    ctx.counters().cp_data_normal_total_size += bytes;
    local.bytes += bytes;
  }
}

void BuddyProtocol::try_validate(core::ProtocolContext& ctx) {
  const auto& saves = options_->saves;
  while (next_to_validate_ <= saves.checkpoints()) {
    const std::uint32_t c = next_to_validate_;
    Local& local = local_[c - 1];
    if (!local.waiting.empty() || !ctx.runtime().done_before(saves.position(c))) return;
    ++next_to_validate_;
    for (NodeId buddy : options_->buddies.buddies(ctx.node())) messages::send(ctx, buddy, messages::Validate{c});
    // Its buddies now keep c - 1 and c: it will never restart before c - 1 (log GC).
    if (c >= 2) {
      for (NodeId p : producers_) messages::send(ctx, p, messages::LogRelease{c - 1});
    }
    const double start = local.first_save >= 0 ? local.first_save : ctx.now();
    if (ctx.recording()) {
      ctx.record_span("checkpoint " + std::to_string(c), "checkpoint", start);
      ctx.note("checkpoint " + std::to_string(c) + " valid: first save at " + std::to_string(local.first_save) +
               " s, last save at " + std::to_string(local.last_save) + " s", "checkpoint");
    }
    core::CheckpointRecord record;
    record.id = c;
    record.started = start;
    record.saved = local.last_save >= 0 ? local.last_save : ctx.now();
    record.committed = ctx.now();
    record.bytes = local.bytes;
    record.partial = true;  // this node's share: the world merges the nodes' records
    ctx.record_checkpoint(record);
    // Its last validation (e.g. on an ack arriving after the job's last task) may end the run.
    if (next_to_validate_ > saves.checkpoints()) ctx.check_completion();
  }
}

// ----------------------------------------------------------------------------- buddy

core::ReceiveVerdict BuddyProtocol::on_receive(core::ProtocolContext& ctx, const core::Message& m) {
  if (coordinator_) return core::ReceiveVerdict::accept;
  if (restarting_ && m.traffic != core::Traffic::checkpoint) {
    // Replayed or re-sent data arriving before the checkpoint is installed: redelivered then.
    ++deferred_data_;
    return core::ReceiveVerdict::defer;
  }
  if (m.traffic != core::Traffic::checkpoint) return core::ReceiveVerdict::accept;
  receive_save(ctx, m);
  return core::ReceiveVerdict::consumed;  // checkpoint data: the protocol's, not the runtime's
}

void BuddyProtocol::receive_save(core::ProtocolContext& ctx, const core::Message& m) {
  auto it = held_saves_.find(version_key(m.handle, m.version));
  if (it == held_saves_.end()) return;
  for (const HeldSave& save : it->second) {
    if (save.origin == m.source && !save.cached) store(ctx, m, save);
  }
}

void BuddyProtocol::on_stored(core::ProtocolContext& ctx, const core::Message& m) {
  // A version for the computation: an application transfer, or the same version replayed to a
  // restarted node (its application transfer came before the restart).
  if (coordinator_ || (m.traffic != core::Traffic::application && m.traffic != core::Traffic::recovery)) return;
  auto it = held_saves_.find(version_key(m.handle, m.version));
  if (it == held_saves_.end()) return;
  for (const HeldSave& save : it->second) {
    // A cached save: the application transfer brought the version; the buddy keeps a copy.
    if (save.origin == m.source && save.cached) store(ctx, m, save);
  }
}

void BuddyProtocol::store(core::ProtocolContext& ctx, const core::Message& m, const HeldSave& save, bool copy) {
  const std::uint64_t key = entry_key(save.origin, save.checkpoint, m.handle);
  if (ctx.checkpoint_store().find(key)) return;  // already held (a duplicate)
  const std::uint64_t bytes = m.handle == kValueHandle ? options_->value_bytes : ctx.graph().bytes(m.handle);
  ctx.checkpoint_store().put(key, messages::SavedVersion{m.version, m.digest, m.content}.encode(), bytes);
  stored_[origin_handle(save.origin, m.handle)].push_back(save.checkpoint);
  if (copy && options_->copy_cost > 0) {
    copies_waiting_.emplace_back(save.origin, save.checkpoint);
    start_copies(ctx);
  } else {
    count_stored(ctx, save.origin, save.checkpoint);
  }
}

void BuddyProtocol::start_copies(core::ProtocolContext& ctx) {
  while (!copies_waiting_.empty()) {
    const std::uint64_t token = next_copy_token_;
    if (!ctx.run_activity(options_->copy_cost, token)) return;  // no core free: when a task ends
    ++next_copy_token_;
    copying_[token] = copies_waiting_.front();
    copies_waiting_.pop_front();
  }
}

void BuddyProtocol::on_activity_done(core::ProtocolContext& ctx, std::uint64_t token) {
  auto it = copying_.find(token);
  if (it == copying_.end()) return;
  const auto [origin, checkpoint] = it->second;
  copying_.erase(it);
  count_stored(ctx, origin, checkpoint);
  start_copies(ctx);
}

void BuddyProtocol::count_stored(core::ProtocolContext& ctx, NodeId origin, std::uint32_t checkpoint) {
  auto expected = expected_.find(origin_checkpoint(origin, checkpoint));
  if (expected != expected_.end() && expected->second > 0 && --expected->second == 0 && acks_for(origin, checkpoint)) {
    // Every entry of (origin, checkpoint) is here.
    messages::send(ctx, origin, messages::Ack{checkpoint});
  }
}

void BuddyProtocol::collect_garbage(core::ProtocolContext& ctx, NodeId origin, std::uint32_t valid) {
  // Checkpoint `valid` of origin is complete: of each datum, only the newest version saved at or
  // before it is needed (differential checkpoints refer to older entries for unmodified data).
  for (auto& [key, checkpoints] : stored_) {
    if (static_cast<NodeId>(key >> 32) != origin || checkpoints.size() < 2) continue;
    const HandleId h = static_cast<HandleId>(key & 0xffffffffu);
    std::uint32_t newest = 0;
    for (std::uint32_t c : checkpoints) {
      if (c <= valid) newest = std::max(newest, c);
    }
    std::erase_if(checkpoints, [&](std::uint32_t c) {
      if (c >= newest) return false;
      ctx.checkpoint_store().erase(entry_key(origin, c, h));
      return true;
    });
  }
}

void BuddyProtocol::on_control(core::ProtocolContext& ctx, const core::Message& m) {
  // The messages that name one of the origin's checkpoints: it must exist.
  const auto checked = [&](std::uint32_t c) {
    if (c == 0 || c > options_->saves.checkpoints()) throw core::WireError("buddy: checkpoint id out of range");
    return c;
  };
  switch (static_cast<MessageType>(m.control_type)) {
    case MessageType::recovery_info: on_recovery_info(ctx, m); return;
    case MessageType::info_request: send_recovery_info(ctx, m); return;
    case MessageType::replay_request: on_replay_request(ctx, m); return;
    case MessageType::restart_from: on_restart_from(ctx, m); return;
    case MessageType::restore_data: on_restore_data(ctx, m); return;
    case MessageType::reprotect: on_reprotect(ctx, m); return;
    case MessageType::saved_copy:
    {
      const messages::SavedCopy copy = messages::SavedCopy::decode(m);
      core::Message save;
      save.source = m.source;
      save.handle = copy.handle;
      save.version = copy.saved.version;
      save.digest = copy.saved.digest;
      save.content = copy.saved.content;
      receive_save(ctx, save);
    }
      return;
    case MessageType::ack:
    {
      const std::uint32_t c = checked(messages::Ack::decode(m).checkpoint);
      std::erase(local_[c - 1].waiting, m.source);
      auto r = reprotecting_.find(m.source);
      if (r != reprotecting_.end() && r->second == c && c < next_to_validate_) {
        // Re-protected with a checkpoint that was already valid here: valid at the new buddy too.
        messages::send(ctx, m.source, messages::Validate{c});
      }
      try_validate(ctx);
    }
      return;
    case MessageType::log_release: release_log(ctx, m.source, checked(messages::LogRelease::decode(m).checkpoint)); return;
    case MessageType::value_entries:
    {
      core::Message value;
      value.source = m.source;
      value.handle = kValueHandle;
      store(ctx, value, HeldSave{m.source, checked(messages::ValueEntries::decode(m).checkpoint), false}, false);
    }
      return;
    case MessageType::validate:
    {
      const std::uint32_t c = checked(messages::Validate::decode(m).checkpoint);
      // Keep the previous valid checkpoint as well: a restart may not be able to use the newest
      // (a message of its section still in transit, thesis Fig. 3.1), and the global state that
      // would let it go (every node past it) is not known here.
      if (!acks_for(m.source, c)) return;  // a replacement does not hold it
      auto& [older, newest] = valid_[m.source];
      if (c <= newest) return;
      older = newest;
      newest = c;
      if (older > 0) collect_garbage(ctx, m.source, older);
    }
      return;
  }
  throw core::WireError("buddy: unknown control message type " + std::to_string(m.control_type));
}

// ----------------------------------------------------------------------------- re-protection

void BuddyProtocol::reprotect(core::ProtocolContext& ctx, NodeId buddy, std::uint32_t incarnation) {
  // The buddy was replaced and holds nothing of this node: its later checkpoints, differential,
  // would refer to entries it lost. Choose the first checkpoint R (from the last valid one on)
  // whose full state — of each datum this node produced, its newest saved version at or before R
  // — and whose later saves already made are all still in memory (a version overwritten since and
  // not pinned by the log is gone), and send them in one message. The buddy can serve R once it
  // holds them and R is valid.
  const auto& saves = options_->saves;
  const auto& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  const NodeId me = ctx.node();
  for (Local& local : local_) std::erase(local.waiting, buddy);
  reprotecting_.erase(buddy);
  struct Entry {
    std::uint32_t checkpoint;
    const graphs::CheckpointSave* save;
  };
  // newest[h]: the newest save of h at or before the candidate, by any node (a datum may move).
  std::unordered_map<HandleId, Entry> newest;
  const auto available = [&](const graphs::CheckpointSave& s) {
    return runtime.status(graph.writer(s.handle, s.version)) != core::TaskStatus::done ||
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
      for (const graphs::CheckpointSave& s : saves.of(later)) {
        if (s.from == me && s.buddy == buddy && !available(s)) ok = false;
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
    const auto& entry = runtime.versions().at(core::VersionStore::key(s.handle, s.version));
    message.add(c, s.handle, {s.version, entry.digest, entry.content});
    bytes += graph.bytes(s.handle);
  };
  for (const auto& [h, e] : newest) add(e.checkpoint, *e.save);
  for (std::uint32_t later = chosen + 1; later <= saves.checkpoints(); ++later) {
    for (const graphs::CheckpointSave& s : saves.of(later)) add(later, s);
  }
  if (options_->value_bytes > 0) {
    for (std::uint32_t c = chosen; c <= saves.checkpoints(); ++c) {  // the VALUE entries, submitted long ago
      message.add(c, kValueHandle, messages::SavedVersion{});
      bytes += options_->value_bytes;
    }
  }
  messages::send(ctx, buddy, message, core::Traffic::checkpoint, bytes, incarnation);
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += bytes;
  reprotecting_[buddy] = chosen;
  // Its acknowledgement of R (and of the later checkpoints with entries) is awaited again.
  for (std::uint32_t c = std::max(chosen, next_to_validate_); c <= saves.checkpoints(); ++c) {
    bool has_entries = c == chosen || options_->value_bytes > 0;
    for (const graphs::CheckpointSave& s : saves.of(c)) has_entries = has_entries || (s.from == me && s.buddy == buddy);
    if (has_entries) local_[c - 1].waiting.push_back(buddy);
  }
  if (ctx.recording()) {
    ctx.note("protects its data again at node " + std::to_string(buddy) + " from checkpoint " + std::to_string(chosen) +
             ": " + std::to_string(message.count) + " entries, " + std::to_string(bytes) + " B", "checkpoint");
  }
  try_validate(ctx);
}

void BuddyProtocol::on_reprotect(core::ProtocolContext& ctx, const core::Message& m) {
  const messages::Reprotect reprotect = messages::Reprotect::decode(m);
  const std::uint32_t point = reprotect.checkpoint;
  const std::uint32_t checkpoints = static_cast<std::uint32_t>(options_->saves.checkpoints());
  if (point == 0 || point > checkpoints) throw core::WireError("buddy: re-protection checkpoint out of range");
  const NodeId origin = m.source;
  protected_from_[origin] = point;
  valid_.erase(origin);  // validations it saw before were of checkpoints it does not hold
  reprotect.for_each_entry([&](messages::Reprotect::Entry e) {
    core::Message save;
    save.source = origin;
    save.handle = e.handle;
    save.version = e.saved.version;
    save.digest = e.saved.digest;
    save.content = std::move(e.saved.content);
    if (e.checkpoint == 0 || e.checkpoint > checkpoints) throw core::WireError("buddy: re-protection entry out of range");
    store(ctx, save, HeldSave{origin, e.checkpoint, false}, false);  // the message is the copy
  });
  // Acknowledge R and the later checkpoints whose entries are all here now.
  for (std::uint32_t c = point; c <= checkpoints; ++c) {
    auto it = expected_.find(origin_checkpoint(origin, c));
    if (c == point ? (it == expected_.end() || it->second == 0) : (it != expected_.end() && it->second == 0)) {
      messages::send(ctx, origin, messages::Ack{c});
    }
  }
}

// ----------------------------------------------------------------------------- message log

core::SendVerdict BuddyProtocol::on_send(core::ProtocolContext& ctx, core::Message& m) {
  if (coordinator_ || !m.is_data || m.traffic != core::Traffic::application) return core::SendVerdict::send;
  // Logged by reference (§3.3): the entry names the version, which stays pinned in memory so that
  // a later writer does not destroy it (copy-on-write) until release_log drops the entry.
  const std::uint64_t key = next_log_key_++;
  ctx.log_store().put(key, core::log_record(m), ctx.graph().bytes(m.handle));
  log_[m.destination].push_back({version_key(m.handle, m.version), key});
  ctx.runtime().pin(m.handle, m.version);
  return core::SendVerdict::send;
}

void BuddyProtocol::release_log(core::ProtocolContext& ctx, NodeId reader, std::uint32_t checkpoint) {
  // `reader` will restart at checkpoint `checkpoint` or later: a version none of its tasks from
  // that cut on reads will never be replayed to it.
  if (released_by_.size() < ctx.node_count()) released_by_.resize(ctx.node_count(), 0);
  released_by_[reader] = 1;
  auto it = log_.find(reader);
  if (it == log_.end()) return;
  const core::TaskId cut = options_->saves.position(checkpoint);
  const auto& graph = ctx.graph();
  std::erase_if(it->second, [&](const LogEntry& e) {
    const HandleId h = static_cast<HandleId>(e.version_key >> 32);
    const Version v = static_cast<Version>(e.version_key & 0xffffffffu);
    for (core::TaskId r : ctx.index().readers(h, v)) {
      if (graph.node(r) == reader && r >= cut) return false;
    }
    ctx.log_store().erase(e.store_key);
    ctx.runtime().unpin(h, v);
    return true;
  });
}

// ----------------------------------------------------------------------------- local restart

std::uint32_t BuddyProtocol::checkpoint_section(core::TaskId task) const {
  const auto& saves = options_->saves;
  std::uint32_t c = 0;
  while (c < saves.checkpoints() && saves.position(c + 1) <= task) ++c;
  return c;
}

std::vector<std::uint64_t> BuddyProtocol::missing_from(core::ProtocolContext& ctx, NodeId producer) const {
  // The versions `producer` made that this node's remaining tasks read and that it does not hold.
  const auto& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  std::vector<std::uint64_t> missing;
  for (core::TaskId t : ctx.index().tasks_of(ctx.node())) {
    if (runtime.status(t) == core::TaskStatus::done) continue;
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const Version v = graphs::version_read(a);
      if (graph.version_node(a.handle, v) == producer && !runtime.holds(a.handle, v)) {
        missing.push_back(version_key(a.handle, v));
      }
    }
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

std::uint32_t BuddyProtocol::in_transit_bound(core::ProtocolContext& ctx, NodeId failed) const {
  // §3.5 step 1: the failed node restarts at a cut N and re-sends only what its tasks after N
  // produce. Whatever this node still waits for from it must come from a section >= N.
  std::uint32_t bound = kNoBound;
  for (std::uint64_t key : missing_from(ctx, failed)) {
    const HandleId h = static_cast<HandleId>(key >> 32);
    const Version v = static_cast<Version>(key & 0xffffffffu);
    bound = std::min(bound, v == 0 ? 0u : checkpoint_section(ctx.graph().writer(h, v)));
  }
  return bound;
}

std::pair<std::uint32_t, std::uint32_t> BuddyProtocol::servable(NodeId origin) const {
  auto it = valid_.find(origin);
  if (it == valid_.end()) return {0, 0};
  auto [older, newest] = it->second;
  if (!acks_for(origin, older)) older = 0;  // before the origin's re-protection: not held
  return {older, newest};
}

void BuddyProtocol::send_info_requests(core::ProtocolContext& ctx) {
  // A new round: answers to an earlier round (an earlier rollback of this same process) no
  // longer count, and every node may be asked again once per incarnation.
  ++round_;
  infos_.clear();
  asked_.clear();
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (n != ctx.node()) messages::send(ctx, n, messages::InfoRequest{round_});
  }
}

void BuddyProtocol::send_recovery_info(core::ProtocolContext& ctx, const core::Message& request) {
  if (coordinator_) return;
  const std::uint32_t round = messages::InfoRequest::decode(request).round;
  const NodeId failed = request.source;
  const std::uint32_t replacement = request.source_incarnation;
  const core::FailureNotice notice{failed, replacement, 0};
  const auto buddies = options_->buddies.buddies(notice.node);
  const bool buddy = std::find(buddies.begin(), buddies.end(), ctx.node()) != buddies.end();
  messages::RecoveryInfo info;
  info.requester_incarnation = notice.incarnation;
  info.round = round;
  // A node restarting itself waits for nothing yet: what it will need from the other comes by replay.
  info.bound = restarting_ ? kNoBound : in_transit_bound(ctx, notice.node);
  std::tie(info.older, info.newest) = buddy ? servable(notice.node) : std::pair<std::uint32_t, std::uint32_t>{0, 0};
  info.buddy = buddy;
  // A replacement has lost the failed node's data until a re-protection checkpoint is valid here.
  info.lost = buddy && lost_held_ && info.newest == 0;
  info.released = notice.node < released_by_.size() && released_by_[notice.node];
  messages::send(ctx, notice.node, info, core::Traffic::control, 0, replacement);
  if (restarting_) {
    // Two restarts overlap. An answer of the requester's current incarnation is kept (it is still
    // true: a process that rolls back alive keeps what it holds for others). One of a dead
    // predecessor is dropped, and the new incarnation asked once: the predecessor may have died
    // with this node's request unanswered. Each (node, incarnation) is asked at most once, so the
    // exchange ends however many restarts overlap (docs/protocols.md, "Concurrent restarts").
    if (chosen_ && failed == restore_source_ && replacement > restore_source_incarnation_) {
      chosen_ = false;  // the buddy sending the checkpoint died: choose again
    }
    if (!chosen_) {
      auto it = infos_.find(failed);
      if (it != infos_.end() && it->second.incarnation < replacement) infos_.erase(it);
      std::uint32_t& asked = asked_[failed];  // incarnation + 1 asked by name, 0 if none
      if (infos_.find(failed) == infos_.end() && asked < replacement + 1) {
        asked = replacement + 1;
        messages::send(ctx, failed, messages::InfoRequest{round_}, core::Traffic::control, 0, replacement);
      }
    }
    // Once restored, ask the requester for what its predecessor may have been replaying here.
    auto later = std::find_if(later_requests_.begin(), later_requests_.end(),
                              [&](const auto& r) { return r.first == failed; });
    if (later == later_requests_.end()) {
      later_requests_.emplace_back(failed, replacement);
    } else {
      later->second = std::max(later->second, replacement);
    }
    return;
  }
  if (restarted_) send_replay_request(ctx, failed, replacement);
}

void BuddyProtocol::send_replay_request(core::ProtocolContext& ctx, NodeId failed, std::uint32_t replacement) {
  // This node restarted and may still wait for versions the failed node was replaying to it when
  // it died: ask its replacement for them by name.
  messages::send(ctx, failed, messages::ReplayRequest{missing_from(ctx, failed)}, core::Traffic::control, 0, replacement);
}

void BuddyProtocol::on_replay_request(core::ProtocolContext& ctx, const core::Message& m) {
  if (restarting_) {
    deferred_.push_back(m);  // served once this node has its own state back
    return;
  }
  serve(ctx, m.source, messages::ReplayRequest::decode(m).keys, core::FailureNotice{m.source, m.source_incarnation > 0 ? m.source_incarnation - 1 : 0, 0});
}

bool BuddyProtocol::serve(core::ProtocolContext& ctx, NodeId to, const std::vector<std::uint64_t>& keys,
                          const core::FailureNotice& cause) {
  // Sends the versions of `keys` (all produced here) that `to` needs: from memory (the log pins
  // what was sent), an initial value read again from the input; one not produced yet goes by the
  // normal path. One produced and gone (this node restarted since, and its log before its restart
  // cut went with its predecessor) is the cascade of Lion 2022 §3.5: this node rolls back too, to
  // a checkpoint before the task that wrote it, and its re-execution sends it again.
  const auto& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  core::FailureEffect effect;
  std::uint32_t cascade = kNoBound;
  for (std::uint64_t key : keys) {
    const HandleId h = static_cast<HandleId>(key >> 32);
    const Version v = static_cast<Version>(key & 0xffffffffu);
    if (!runtime.holds(h, v)) {
      if (v == 0) {
        runtime.reload_initial(h);
      } else if (runtime.status(graph.writer(h, v)) == core::TaskStatus::done) {
        cascade = std::min(cascade, checkpoint_section(graph.writer(h, v)));
        continue;
      } else {
        continue;  // not produced yet: its normal send will go
      }
    }
    runtime.subscribe(h, v, to, core::Traffic::recovery);
    if (ctx.recording()) {
      Replay& replay = replays_[to];
      if (replay.pending++ == 0) replay.began = ctx.now();
    }
    ++effect.messages_replayed;
    effect.bytes_replayed += graph.bytes(h);
  }
  last_effect_ = effect;
  if (cascade == kNoBound) return true;
  roll_back(ctx, cascade, cause);
  return false;
}

void BuddyProtocol::roll_back(core::ProtocolContext& ctx, std::uint32_t limit, const core::FailureNotice& cause) {
  if (restarting_) {
    // Already restoring: a tighter limit is fine until the checkpoint is chosen.
    if (!chosen_) {
      cascade_limit_ = std::min(cascade_limit_, limit);
      return;
    }
    if (restart_point_ <= limit) return;
    ctx.fail_run("node " + std::to_string(ctx.node()) + " must roll back to checkpoint " + std::to_string(limit) +
                 " or earlier for node " + std::to_string(cause.node) + " while restoring checkpoint " +
                 std::to_string(restart_point_) + " (cascade of Lion 2022 §3.5 during a restore: not supported)");
    return;
  }
  if (ctx.recording()) {
    ctx.note("rolls back to checkpoint " + std::to_string(limit) + " or earlier: node " + std::to_string(cause.node) +
             " needs versions it wrote before its own restart (the cascade of Lion 2022 §3.5)", "recovery");
  }
  // As a restart, but alive: it keeps what it holds for other nodes; its log goes (the versions it
  // refers to are replaced by the restored ones, and its re-execution logs its sends again).
  ctx.runtime().abort();
  for (const auto& entry : log_) {
    for (const LogEntry& e : entry.second) ctx.log_store().erase(e.store_key);
  }
  log_.clear();
  restarting_ = true;
  cascading_ = true;
  cascade_limit_ = limit;
  chosen_ = false;
  restart_incarnation_ = ctx.incarnation();
  restart_began_ = ctx.now();
  failure_ = cause;
  send_info_requests(ctx);
}

void BuddyProtocol::on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info) {
  if (coordinator_) return;
  build_plan(ctx);
  restarting_ = true;
  lost_held_ = true;  // what it held as a buddy died with its predecessor
  restart_incarnation_ = info.incarnation;
  restart_began_ = ctx.now();
  failure_ = core::FailureNotice{ctx.node(), info.incarnation - 1, 0};
  // §3.5: ask every other node for its bound and, from the buddies, what they hold.
  send_info_requests(ctx);
}

void BuddyProtocol::on_recovery_info(core::ProtocolContext& ctx, const core::Message& m) {
  const messages::RecoveryInfo answer = messages::RecoveryInfo::decode(m);
  Info info;
  info.incarnation = m.source_incarnation;
  info.bound = answer.bound;
  info.servable = answer.newest;
  info.older = answer.older;
  info.buddy = answer.buddy;
  info.lost = answer.lost;
  info.released = answer.released;
  if (!restarting_ || chosen_ || answer.requester_incarnation != restart_incarnation_ || answer.round != round_) return;
  infos_[m.source] = info;
  if (infos_.size() + 1 < ctx.node_count()) return;
  // §3.5: N = the newest checkpoint a live buddy can serve that no survivor's wait forbids.
  std::uint32_t bound = kNoBound;
  bool released = false;
  for (const auto& [node, i] : infos_) {
    bound = std::min(bound, i.bound);
    released = released || i.released;
  }
  if (cascading_) bound = std::min(bound, cascade_limit_);
  NodeId source = ctx.node();
  std::uint32_t chosen = 0;
  bool any_buddy_holds = false;  // some buddy did not lose what it held of this node
  for (NodeId b : options_->buddies.buddies(ctx.node())) {
    auto it = infos_.find(b);
    if (it == infos_.end() || it->second.lost) continue;
    any_buddy_holds = true;
    for (std::uint32_t c : {it->second.servable, it->second.older}) {
      if (c > chosen && c <= bound) {
        chosen = c;
        source = b;
      }
    }
  }
  // With no checkpoint to use, it restarts from the job's input, which needs every message it
  // ever received: possible only while no sender has dropped log entries for it.
  if (chosen == 0 && released) {
    if (cascading_) {
      ctx.fail_run("unrecoverable: node " + std::to_string(failure_.node) + " needs versions that node " +
                   std::to_string(ctx.node()) + " wrote before its own restart, and node " + std::to_string(ctx.node()) +
                   " cannot roll back to checkpoint " + std::to_string(cascade_limit_) +
                   " or earlier (the cascade of Lion 2022 §3.5): its buddies no longer hold one and its senders have "
                   "dropped the log entries a restart from the job's input would need");
      return;
    }
    ctx.fail_run(any_buddy_holds
                     ? "unrecoverable: node " + std::to_string(ctx.node()) +
                           " failed, messages still in transit forbid the checkpoints its buddies hold, and its "
                           "senders have dropped the log entries a restart from the job's input would need"
                     : "unrecoverable: node " + std::to_string(ctx.node()) +
                           " failed and every one of its buddies had lost its checkpoint data (a node and all of "
                           "its buddies failed before the data was protected again)");
    return;
  }
  restart_point_ = chosen;
  restore_source_ = source;
  restore_source_incarnation_ = source == ctx.node() ? 0 : infos_.at(source).incarnation;
  chosen_ = true;
  messages::RestartFrom restart;
  restart.failed_incarnation = failure_.incarnation;
  restart.checkpoint = chosen;
  restart.source = source;
  restart.cause_node = failure_.node;  // the failure it recovers from (another node's, in a cascade)
  restart.alive = cascading_;
  const core::Bytes body = restart.encode();
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (n != ctx.node()) ctx.send_control(n, static_cast<std::uint32_t>(messages::RestartFrom::type), body);
  }
  if (chosen == 0) {
    on_restore_data(ctx, core::Message{});  // from the job's input: nothing to fetch
  }
}

messages::RestartFrom BuddyProtocol::read_restart_from(const core::Message& m) {
  const messages::RestartFrom r = messages::RestartFrom::decode(m);
  if (r.checkpoint > options_->saves.checkpoints()) throw core::WireError("buddy: restart checkpoint out of range");
  return r;
}

void BuddyProtocol::on_restart_from(core::ProtocolContext& ctx, const core::Message& m) {
  // The keeper's part needs only what this node holds for others: served at once, even while
  // this node restarts itself, so that no restore ever waits for another restore. The origin's
  // part (replays, re-protection) needs its own state: deferred until it has it back.
  keep_for_restart(ctx, m.source, read_restart_from(m));
  if (restarting_) {
    deferred_.push_back(m);
    return;
  }
  replay_for_restart(ctx, m);
}

void BuddyProtocol::keep_for_restart(core::ProtocolContext& ctx, NodeId failed, const messages::RestartFrom& r) {
  const std::uint32_t n = r.checkpoint;
  // As its buddy: a restart from the job's input saves everything again, so a replacement that
  // had lost that node's data holds it again from checkpoint 1 on (a restart from a checkpoint
  // re-protects it explicitly, see on_restore_data).
  if (n == 0 && lost_held_ && !r.alive) {
    protected_from_[failed] = 1;
    valid_.erase(failed);
  }
  // Acknowledge again the later checkpoints held complete (§3.3).
  for (std::uint32_t c = n + 1; c <= options_->saves.checkpoints(); ++c) {
    auto it = expected_.find(origin_checkpoint(failed, c));
    if (it != expected_.end() && it->second == 0 && acks_for(failed, c)) messages::send(ctx, failed, messages::Ack{c});
  }
  if (r.source != ctx.node() || n == 0) return;
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
    if (newest == n && FTSIM_BUDDY_MUTANT(restore_before_cut)) {
      newest = 0;  // planted: the newest entry strictly before N
      for (std::uint32_t c : checkpoints) {
        if (c < n) newest = std::max(newest, c);
      }
    }
    if (newest == 0) continue;
    const auto* entry = ctx.checkpoint_store().find(entry_key(failed, newest, h));
    if (!entry) continue;
    if (h == kValueHandle) {
      bytes += options_->value_bytes;  // the application's VALUE entries go back with the data
      continue;
    }
    data.add(h, entry->content);
    bytes += graph.bytes(h);
  }
  messages::send(ctx, failed, data, core::Traffic::restore, bytes);
}

void BuddyProtocol::replay_for_restart(core::ProtocolContext& ctx, const core::Message& m) {
  const messages::RestartFrom r = read_restart_from(m);
  const std::uint32_t n = r.checkpoint;
  const core::FailureNotice cause{r.cause_node, r.failed_incarnation, 0};
  const NodeId failed = m.source;
  const auto& graph = ctx.graph();
  const core::TaskId cut = n == 0 ? 0 : options_->saves.position(n);
  // Replay (§3.3): every version this node produced that the restarted node will read from cut N
  // on.
  std::vector<std::uint64_t> keys;
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    for (Version v = 0; v <= graph.final_version(h); ++v) {
      if (graph.version_node(h, v) != ctx.node()) continue;
      bool needed = false;
      for (core::TaskId reader : ctx.index().readers(h, v)) needed = needed || (graph.node(reader) == failed && reader >= cut);
      if (needed) keys.push_back(version_key(h, v));
    }
  }
  serve(ctx, failed, keys, cause);  // on a cascade this node rolls back too; the rest still holds
  const core::FailureEffect effect = last_effect_;
  if (ctx.recording()) {
    ctx.note("replays " + std::to_string(effect.messages_replayed) + " messages (" + std::to_string(effect.bytes_replayed) +
             " B) to node " + std::to_string(failed) + ", restarting at checkpoint " + std::to_string(n), "recovery");
  }
  ctx.record_failure_effect(cause, effect);
  // As its origin: the restarted buddy lost what it held; protect this node's data again.
  const auto mine = options_->buddies.buddies(ctx.node());
  if (!r.alive && std::find(mine.begin(), mine.end(), failed) != mine.end()) reprotect(ctx, failed, m.source_incarnation);
}

void BuddyProtocol::on_restore_data(core::ProtocolContext& ctx, const core::Message& m) {
  if (!restarting_ || !chosen_) return;
  if (restart_point_ > 0 && (m.source != restore_source_ || messages::RestoreData::checkpoint_of(m) != restart_point_)) {
    return;  // from an earlier choice whose source died since
  }
  const auto& graph = ctx.graph();
  core::ProtocolRuntime runtime = ctx.runtime();
  const std::uint32_t n = restart_point_;
  const core::TaskId cut = n == 0 ? 0 : options_->saves.position(n);
  core::NodeSnapshot snapshot = runtime.initial_snapshot();  // the job's input of the data it owns
  const auto local = ctx.index().tasks_of(ctx.node());
  for (std::size_t i = 0; i < local.size(); ++i) snapshot.done[i] = local[i] < cut ? 1 : 0;
  const auto at_cut = std::find_if(local.begin(), local.end(), [&](core::TaskId t) { return t >= cut; });
  if (at_cut != local.end() && FTSIM_BUDDY_MUTANT(cut_task_not_run)) {
    snapshot.done[at_cut - local.begin()] = 1;  // planted: the task at the cut done without running
  }
  if (n > 0) {
    const messages::RestoreData data = messages::RestoreData::decode(m);
    if (data.checkpoint != n) throw core::WireError("buddy: restore data of another checkpoint");
    data.for_each_entry([&](HandleId h, messages::SavedVersion saved) {
      core::VersionStore::Entry version;
      version.digest = saved.digest;
      version.content = std::move(saved.content);
      version.bytes = graph.bytes(h);
      // The restored version replaces the job's input of h (an own version lives until a newer
      // one replaces it: no reader of version 0 is left after a cut that wrote h).
      if (saved.version > 0) snapshot.store.erase(core::VersionStore::key(h, 0));
      snapshot.store[core::VersionStore::key(h, saved.version)] = version;
    });
  }
  runtime.restore(snapshot);
  runtime.rebuild();
  if (n == 0) {
    runtime.send_initial_values();
    send_values(ctx, 1);  // the application submits every checkpoint again
  }
  restarting_ = false;
  if (deferred_data_ > 0 && FTSIM_BUDDY_MUTANT(early_replays_dropped)) ctx.discard_deferred();  // planted: lost
  deferred_data_ = 0;
  ctx.redeliver_deferred();  // the data that came before the restore, in order (a cached save among them)
  next_to_validate_ = n + 1;
  const std::string point = n == 0 ? "from scratch" : "checkpoint " + std::to_string(n);
  core::FailureEffect effect;
  effect.processes_rolled_back = 1;
  if (cascading_) {
    // Rolled back for another node's failure: one more process rolled back for it.
    cascading_ = false;
    ctx.record_failure_effect(failure_, effect);
  } else {
    effect.restart_point = point;
    ctx.record_failure_effect(failure_, effect);
    // This node's earlier failures too, if a replacement died before it had recovered.
    for (std::uint32_t incarnation = 0; incarnation <= failure_.incarnation; ++incarnation) {
      ctx.record_recovered(core::FailureNotice{ctx.node(), incarnation, 0});
    }
  }
  if (ctx.recording()) {
    ctx.record_span("restore " + point, "recovery", restart_began_);
    ctx.note("restarted from " + point, "recovery");
  }
  // Buddies that had lost this node's data (replaced before it failed, its re-protection lost with
  // it) get the restored checkpoint again.
  if (n > 0) {
    for (NodeId b : options_->buddies.buddies(ctx.node())) {
      auto it = infos_.find(b);
      if (it != infos_.end() && it->second.lost) reprotect(ctx, b, core::kAnyIncarnation);
    }
  }
  try_validate(ctx);
  restarted_ = true;
  for (const auto& [node, incarnation] : later_requests_) send_replay_request(ctx, node, incarnation);
  later_requests_.clear();
  auto deferred = std::move(deferred_);
  deferred_.clear();
  for (std::size_t i = 0; i < deferred.size(); ++i) {
    if (restarting_) {
      deferred_.push_back(deferred[i]);  // a replay rolled this node back again: after that restore
    } else if (static_cast<MessageType>(deferred[i].control_type) == MessageType::restart_from) {
      replay_for_restart(ctx, deferred[i]);  // its keeper's part was served on arrival
    } else {
      on_control(ctx, deferred[i]);
    }
  }
  ctx.check_completion();  // nothing may be left to run after the cut
}

void BuddyProtocol::on_data_released(core::ProtocolContext& ctx, const core::Message& m) {
  if (m.traffic != core::Traffic::recovery) return;
  auto it = replays_.find(m.destination);
  if (it == replays_.end() || it->second.pending == 0) return;
  // The replay span: from the first replayed message to the last one on the wire.
  if (--it->second.pending == 0) ctx.record_span("replay to node " + std::to_string(m.destination), "recovery", it->second.began);
}

std::string BuddyProtocol::phase(core::ProtocolContext& ctx) {
  if (coordinator_) return {};
  const auto list = [](const std::vector<NodeId>& nodes) {
    std::string text;
    for (std::size_t i = 0; i < nodes.size() && i < 8; ++i) text += (i ? ", " : "") + std::to_string(nodes[i]);
    return text + (nodes.size() > 8 ? ", ..." : "");
  };
  if (restarting_) {
    const std::string what = cascading_ ? "rollback for node " + std::to_string(failure_.node) + " (cascade)"
                                        : "restart of incarnation " + std::to_string(restart_incarnation_);
    if (chosen_) {
      return what + ": waiting for checkpoint " + std::to_string(restart_point_) + " from node " +
             std::to_string(restore_source_);
    }
    std::vector<NodeId> waiting;
    for (NodeId n = 0; n < ctx.node_count(); ++n) {
      if (n != ctx.node() && !infos_.contains(n)) waiting.push_back(n);
    }
    return what + ": waiting for the recovery info of nodes " + list(waiting) + " (round " + std::to_string(round_) + ")";
  }
  if (next_to_validate_ > options_->saves.checkpoints()) return {};
  const std::string checkpoint = "checkpoint " + std::to_string(next_to_validate_);
  if (!ctx.runtime().done_before(options_->saves.position(next_to_validate_))) {
    return ctx.runtime().remaining_tasks() == 0 ? checkpoint + ": its tasks before the cut are not done" : std::string();
  }
  return checkpoint + ": waiting for the acknowledgements of nodes " + list(local_[next_to_validate_ - 1].waiting);
}

bool BuddyProtocol::finished(core::ProtocolContext&) {
  return coordinator_ || (!restarting_ && next_to_validate_ > options_->saves.checkpoints());
}

}  // namespace ftsim::protocols
