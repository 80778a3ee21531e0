#include "protocols/buddy/buddy_recovery.hpp"

#include <algorithm>

#include "protocols/buddy/node_list.hpp"
#include "protocols/mutants.hpp"

namespace ftsim::protocols::buddy {

using node::NodeId;
using graphs::HandleId;
using graphs::Version;
using messages::kNoBound;

namespace {

// The versions `producer` made that this node's remaining tasks read and that it does not hold.
std::vector<std::uint64_t> missing_from(node::ProtocolContext& ctx, NodeId producer) {
  const auto& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  std::vector<std::uint64_t> missing;
  for (node::TaskId t : ctx.index().tasks_of(ctx.node())) {
    if (runtime.status(t) == node::TaskStatus::done) continue;
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const Version v = graphs::version_read(a);
      if (graph.version_node(a.handle, v) == producer && !runtime.holds(a.handle, v)) {
        missing.push_back(messages::version_key(a.handle, v));
      }
    }
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

// §3.5 step 1: the failed node restarts at a cut N and re-sends only what its tasks after N
// produce. Whatever this node still waits for from it must come from a section >= N. A node that
// restored since asks the restarted node by name for what it misses (send_replay_request), which
// serves it from its restored state or, for an initial value, from the input: N may then be any
// cut whose state holds the version (up to the last cut before the version's next writer).
std::uint32_t in_transit_bound(node::ProtocolContext& ctx, const BuddyOptions& options, NodeId failed, bool asks_by_name) {
  const auto& graph = ctx.graph();
  std::uint32_t bound = kNoBound;
  for (std::uint64_t key : missing_from(ctx, failed)) {
    const HandleId h = messages::handle_of(key);
    const Version v = messages::version_of(key);
    if (asks_by_name) {
      // (An initial value is read again from the input, whatever the restart checkpoint.)
      if (v > 0 && v < graph.final_version(h)) bound = std::min(bound, options.section_of(graph.writer(h, v + 1)));
    } else {
      bound = std::min(bound, v == 0 ? 0u : options.section_of(graph.writer(h, v)));
    }
  }
  return bound;
}

}  // namespace

// ----------------------------------------------------------------------------- this process recovers

void BuddyRecovery::start_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) {
  state_ = RecoveryState::collecting_info;
  recovery_.kind = Recovery::Kind::restart;
  recovery_.cause = node::FailureNotice{ctx.node(), info.incarnation - 1, 0};
  recovery_.incarnation = info.incarnation;
  recovery_.began = ctx.now();
  // §3.5: ask every other node for its bound and, from the buddies, what they hold.
  send_info_requests(ctx);
}

void BuddyRecovery::roll_back(node::ProtocolContext& ctx, std::uint32_t limit, const node::FailureNotice& cause,
                              NodeId needing) {
  // Who needs the versions, and for which failure (another node's, in a cascade of cascades).
  const std::string who = "node " + std::to_string(needing) +
                          (needing != cause.node ? " (rolling back for the failure of node " + std::to_string(cause.node) + ")" : "");
  if (recovering()) {
    // Already restoring: a tighter limit is fine until the checkpoint is chosen.
    if (state_ == RecoveryState::collecting_info) {
      recovery_.limit = std::min(recovery_.limit, limit);
      return;
    }
    if (choice_.checkpoint <= limit) return;
    ctx.fail_run("node " + std::to_string(ctx.node()) + " must roll back to checkpoint " + std::to_string(limit) +
                 " or earlier for " + who + " while restoring checkpoint " +
                 std::to_string(choice_.checkpoint) + " (cascade of Lion 2022 §3.5 during a restore: not supported)");
    return;
  }
  if (ctx.recording()) {
    ctx.note("rolls back to checkpoint " + std::to_string(limit) + " or earlier: " + who +
             " needs versions it wrote before its own restart (the cascade of Lion 2022 §3.5)", "recovery");
  }
  // As a restart, but alive: it keeps what it holds for other nodes; its log goes (the versions it
  // refers to are replaced by the restored ones, and its re-execution logs its sends again).
  ctx.runtime().abort();
  origin_.drop_log(ctx);
  origin_.forget_saves();  // /checkpoint_data: its next saves are full ones
  state_ = RecoveryState::collecting_info;
  recovery_.kind = Recovery::Kind::rollback;
  recovery_.limit = limit;
  recovery_.incarnation = ctx.incarnation();
  recovery_.began = ctx.now();
  recovery_.cause = cause;
  recovery_.needing = who;
  send_info_requests(ctx);
}

void BuddyRecovery::send_info_requests(node::ProtocolContext& ctx) {
  // A new round: answers to an earlier round (an earlier rollback of this same process) no
  // longer count, and every node may be asked again once per incarnation.
  ++round_.number;
  round_.answers.clear();
  round_.asked.clear();
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (n != ctx.node()) messages::send(ctx, n, messages::InfoRequest{round_.number});
  }
  // Levels: what each holds is in its manifest (a replacement knows nothing else; a storage that
  // died with the node answers nothing).
  round_.level_manifests.assign(levels_.count(), LevelManifest{});
  round_.level_struck.assign(levels_.count(), {});
  round_.manifests_unread = static_cast<std::uint32_t>(levels_.count());
  ++read_sequence_;
  for (std::uint32_t l = 0; l < levels_.count(); ++l) {
    ctx.storage_read(levels_.server(ctx, l), levels_.manifest_key(ctx),
                     level_tokens::make(level_tokens::kRead, true, l, read_sequence_, 0));
  }
}

void BuddyRecovery::on_recovery_info(node::ProtocolContext& ctx, NodeId from, std::uint32_t from_incarnation,
                                     const messages::RecoveryInfo& info) {
  if (state_ != RecoveryState::collecting_info || info.requester_incarnation != recovery_.incarnation ||
      info.round != round_.number) {
    return;
  }
  round_.answers[from] = Round::Answer{from_incarnation, info};
  if (round_complete(ctx)) choose_checkpoint(ctx);
}

void BuddyRecovery::choose_checkpoint(node::ProtocolContext& ctx) {
  const bool rollback = recovery_.kind == Recovery::Kind::rollback;
  // §3.5: N = the newest checkpoint a live buddy can serve that no survivor's wait forbids.
  std::uint32_t bound = kNoBound;
  bool released = false;
  for (const auto& [node, answer] : round_.answers) {
    bound = std::min(bound, answer.info.bound);
    released = released || answer.info.released;
  }
  if (rollback) bound = std::min(bound, recovery_.limit);
  NodeId source = ctx.node();
  std::uint32_t chosen = 0;
  bool any_buddy_holds = false;  // some buddy did not lose what it held of this node
  for (NodeId b : options_.buddies.buddies(ctx.node())) {
    auto it = round_.answers.find(b);
    if (it == round_.answers.end() || it->second.info.lost) continue;
    any_buddy_holds = true;
    for (std::uint32_t c : {it->second.info.newest, it->second.info.older}) {
      if (c > chosen && c <= bound) {
        chosen = c;
        source = b;
      }
    }
  }
  // Levels: a newer checkpoint on a level, or the same one on the node's own storage (no network).
  int level = -1;
  for (std::uint32_t l = 0; l < round_.level_manifests.size(); ++l) {
    // Its newest checkpoint that no bound forbids and that was not found incomplete.
    const LevelManifest& kept = round_.level_manifests[l];
    const std::uint32_t every = levels_.level(l).every;
    const auto& struck = round_.level_struck[l];
    std::uint32_t c = std::min(kept.newest, bound);
    c -= c % every;
    while (c > 0 && c >= kept.oldest && std::find(struck.begin(), struck.end(), c) != struck.end()) c -= every;
    if (c == 0 || c < kept.oldest) continue;
    if (c > chosen || (c == chosen && levels_.level(l).local && level < 0)) {
      chosen = c;
      source = ctx.node();
      level = static_cast<int>(l);
    }
  }
  // With no checkpoint to use, it restarts from the job's input, which needs every message it
  // ever received: possible only while no sender has dropped log entries for it.
  if (chosen == 0 && released) {
    const NodeId me = ctx.node();
    const std::string levels = levels_.enabled() ? "; no level holds a checkpoint it may restart from" : "";
    if (rollback) {
      ctx.fail_run("unrecoverable: " + recovery_.needing + " needs versions that node " +
                   std::to_string(me) + " wrote before its own restart, and node " + std::to_string(me) +
                   " cannot roll back to checkpoint " + std::to_string(recovery_.limit) +
                   " or earlier (the cascade of Lion 2022 §3.5): its buddies no longer hold one and its senders have "
                   "dropped the log entries a restart from the job's input would need" + levels);
      return;
    }
    ctx.fail_run(any_buddy_holds
                     ? "unrecoverable: node " + std::to_string(me) +
                           " failed, messages still in transit forbid the checkpoints its buddies hold, and its "
                           "senders have dropped the log entries a restart from the job's input would need" + levels
                     : "unrecoverable: node " + std::to_string(me) +
                           " failed and every one of its buddies had lost its checkpoint data (a node and all of "
                           "its buddies failed before the data was protected again)" + levels);
    return;
  }
  choice_.checkpoint = chosen;
  choice_.source = source;
  choice_.level = level;
  decode_token_ = 0;  // a restore still decoding for an earlier choice is void
  choice_.source_incarnation = source == ctx.node() ? 0 : round_.answers.at(source).incarnation;
  state_ = RecoveryState::awaiting_checkpoint;
  messages::RestartFrom restart;
  restart.failed_incarnation = recovery_.cause.incarnation;
  restart.checkpoint = chosen;
  restart.source = source;
  restart.cause_node = recovery_.cause.node;  // the failure it recovers from (another node's, in a cascade)
  restart.alive = rollback;
  const node::Bytes body = node::encode(restart);
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (n != ctx.node()) ctx.send_control(n, static_cast<std::uint32_t>(messages::RestartFrom::type), body);
  }
  if (chosen == 0) {
    on_restore_data(ctx, node::Message{});  // from the job's input: nothing to fetch
  } else if (level >= 0) {
    read_level_checkpoint(ctx);
  }
}

void BuddyRecovery::read_level_checkpoint(node::ProtocolContext& ctx) {
  // Each entry of the level checkpoint, read back by its key (the plan says which data it holds).
  const auto l = static_cast<std::uint32_t>(choice_.level);
  const auto& entries = levels_.entries(l, choice_.checkpoint);
  choice_.level_entries.assign(entries.size(), {});
  choice_.level_reads_left = static_cast<std::uint32_t>(entries.size());
  ++read_sequence_;
  if (ctx.recording()) {
    ctx.note("reads checkpoint " + std::to_string(choice_.checkpoint) + " from " + BuddyLevels::name(levels_.level(l)) +
                 " (" + std::to_string(entries.size()) + " entries)", "recovery");
  }
  if (entries.empty()) {
    install(ctx, choice_.level_entries);
    return;
  }
  for (std::uint32_t i = 0; i < entries.size(); ++i) {
    ctx.storage_read(levels_.server(ctx, l), levels_.entry_key(ctx, choice_.checkpoint, entries[i].first),
                     level_tokens::make(level_tokens::kRead, false, l, read_sequence_, i));
  }
}

void BuddyRecovery::on_level_read(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (level_tokens::sequence_of(token) != (read_sequence_ & 0xFFFFFF)) return;  // of an earlier round or choice
  const std::uint32_t l = level_tokens::level_of(token);
  if (l >= levels_.count()) throw node::WireError("buddy: level read of an unknown level");
  if (token & level_tokens::kManifest) {
    if (state_ != RecoveryState::collecting_info || round_.manifests_unread == 0) return;
    if (content) {
      const LevelManifest manifest = node::decode<LevelManifest>(*content);
      const std::uint32_t every = levels_.level(l).every;
      if (manifest.newest == 0 || manifest.newest > options_.saves.checkpoints() || manifest.newest % every != 0 ||
          manifest.oldest == 0 || manifest.oldest > manifest.newest || manifest.oldest % every != 0) {
        throw node::WireError("buddy: a level manifest names checkpoints " + std::to_string(manifest.oldest) + " to " +
                              std::to_string(manifest.newest));
      }
      round_.level_manifests[l] = manifest;
      if (ctx.recording()) {
        ctx.note(std::string(BuddyLevels::name(levels_.level(l))) + " holds its checkpoints " + std::to_string(manifest.oldest) +
                     " to " + std::to_string(manifest.newest), "recovery");
      }
    }
    --round_.manifests_unread;
    if (round_complete(ctx)) choose_checkpoint(ctx);
    return;
  }
  if (state_ != RecoveryState::awaiting_checkpoint || choice_.level != static_cast<int>(l)) return;
  const std::uint32_t index = level_tokens::value_of(token);
  const auto& entries = levels_.entries(l, choice_.checkpoint);
  if (index >= entries.size()) throw node::WireError("buddy: level read of an unknown entry");
  if (!content) {
    // The manifest named a checkpoint the level no longer holds whole: choose without that level.
    if (ctx.recording()) {
      ctx.note("checkpoint " + std::to_string(choice_.checkpoint) + " is not whole on " +
                   BuddyLevels::name(levels_.level(l)) + ": chooses again without it", "recovery");
    }
    // (Its other checkpoints may still be whole: only the one read is struck off.)
    round_.level_struck[l].push_back(choice_.checkpoint);
    ++read_sequence_;
    state_ = RecoveryState::collecting_info;
    choose_checkpoint(ctx);
    return;
  }
  messages::SavedVersion saved = node::decode<messages::SavedVersion>(*content);
  if (saved.version != entries[index].second) throw node::WireError("buddy: a level entry of another version");
  choice_.level_entries[index] = {entries[index].first, std::move(saved)};
  if (--choice_.level_reads_left == 0) install(ctx, choice_.level_entries);
}

void BuddyRecovery::on_restore_data(node::ProtocolContext& ctx, const node::Message& m) {
  if (state_ != RecoveryState::awaiting_checkpoint || choice_.level >= 0) return;
  if (choice_.checkpoint > 0 && (m.source != choice_.source || messages::RestoreData::checkpoint_of(m) != choice_.checkpoint)) {
    return;  // from an earlier choice whose source died since
  }
  std::vector<std::pair<HandleId, messages::SavedVersion>> entries;
  if (choice_.checkpoint > 0) {
    const auto data = node::decode<messages::RestoreData>(m);
    if (data.checkpoint != choice_.checkpoint) throw node::WireError("buddy: restore data of another checkpoint");
    data.for_each_entry([&](HandleId h, messages::SavedVersion saved) { entries.emplace_back(h, std::move(saved)); });
  }
  if (!options_.content) {
    install(ctx, entries);
    return;
  }
  // /checkpoint_data: each datum comes as its chain (its full entry, then the incrementals in
  // order): fold each into its version; decompressing takes a core first (a simulation).
  std::vector<std::pair<HandleId, messages::SavedVersion>> folded;
  double modelled = 0, measured = 0;
  for (std::size_t i = 0; i < entries.size();) {
    std::size_t end = i + 1;
    while (end < entries.size() && entries[end].first == entries[i].first) ++end;
    std::vector<const node::Content*> chain;
    for (std::size_t k = i; k < end; ++k) chain.push_back(entries[k].second.content.get());
    messages::SavedVersion last = entries[end - 1].second;
    last.content = content::read_datum_chain(*options_.content, chain, entries[i].first, modelled, measured);
    folded.emplace_back(entries[i].first, std::move(last));
    i = end;
  }
  if (!folded.empty()) {
    ++ctx.counters().content.restores;
    ctx.counters().content.restore_images += entries.size();
    for (const auto& [h, saved] : entries) {
      ctx.counters().content.restore_bytes +=
          content::is_datum_image(saved.content.get()) ? content::read_datum_header(*saved.content).stored_bytes : ctx.graph().bytes(h);
    }
    ctx.counters().content.decompress_seconds += modelled + measured;
  }
  if (modelled > 0) {
    // The restoring node runs nothing else: it decompresses on all its cores.
    decoded_ = std::move(folded);
    decode_token_ = kDecodeTokenBit | ++decode_sequence_;
    content::charge(ctx, modelled / options_.content->cores, decode_token_);
    return;
  }
  install(ctx, folded);
}

void BuddyRecovery::on_decoded(node::ProtocolContext& ctx, std::uint64_t token) {
  if (token != decode_token_ || state_ != RecoveryState::awaiting_checkpoint) return;
  decode_token_ = 0;
  const auto entries = std::move(decoded_);
  decoded_.clear();
  install(ctx, entries);
}

void BuddyRecovery::install(node::ProtocolContext& ctx, const std::vector<std::pair<HandleId, messages::SavedVersion>>& entries) {
  const auto& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  const std::uint32_t n = choice_.checkpoint;
  const node::TaskId cut = n == 0 ? 0 : options_.saves.position(n);
  node::NodeSnapshot snapshot = runtime.initial_snapshot();  // the job's input of the data it owns
  const auto local = ctx.index().tasks_of(ctx.node());
  for (std::size_t i = 0; i < local.size(); ++i) snapshot.done[i] = local[i] < cut ? 1 : 0;
  const auto at_cut = std::find_if(local.begin(), local.end(), [&](node::TaskId t) { return t >= cut; });
  if (at_cut != local.end() && FTSIM_MUTANT(cut_task_not_run)) {
    snapshot.done[at_cut - local.begin()] = 1;  // planted: the task at the cut done without running
  }
  if (n > 0) {
    for (const auto& [h, saved] : entries) {
      node::VersionStore::Entry version;
      version.digest = saved.digest;
      version.content = saved.content;
      version.bytes = graph.bytes(h);
      // The restored version replaces the job's input of h (an own version lives until a newer
      // one replaces it: no reader of version 0 is left after a cut that wrote h).
      if (saved.version > 0) snapshot.store.erase(node::VersionStore::key(h, 0));
      snapshot.store[node::VersionStore::key(h, saved.version)] = version;
    }
  }
  runtime.restore(snapshot);
  runtime.rebuild();
  if (n == 0) {
    runtime.send_initial_values();
    origin_.send_values(ctx, 1);  // the application submits every checkpoint again
  }
  state_ = RecoveryState::restored;
  if (deferred_data_ > 0 && FTSIM_MUTANT(early_replays_dropped)) ctx.discard_deferred();  // planted: lost
  deferred_data_ = 0;
  ctx.redeliver_deferred();  // the data that came before the restore, in order (a cached save among them)
  origin_.on_restored(n);
  if (levels_.enabled()) {
    // What the levels hold (their manifests) and, from cut n on, the level checkpoints to write.
    for (std::uint32_t l = 0; l < round_.level_manifests.size(); ++l) levels_.known_complete(l, round_.level_manifests[l]);
    levels_.begin(ctx, n);
    origin_.raise_restart_floor(ctx, levels_.restart_floor());
  }
  std::string point = n == 0 ? "from scratch" : "checkpoint " + std::to_string(n);
  if (n > 0 && levels_.enabled()) {
    // With levels, where it came from (results.json's restart_point).
    point += choice_.level >= 0 ? std::string(" from ") + BuddyLevels::name(levels_.level(static_cast<std::uint32_t>(choice_.level)))
                                : std::string(" from a buddy");
  }
  node::FailureEffect effect;
  effect.processes_rolled_back = 1;
  if (recovery_.kind == Recovery::Kind::rollback) {
    // Rolled back for another node's failure: one more process rolled back for it.
    ctx.record_failure_effect(recovery_.cause, effect);
  } else {
    effect.restart_point = point;
    ctx.record_failure_effect(recovery_.cause, effect);
    // This node's earlier failures too, if a replacement died before it had recovered.
    for (std::uint32_t incarnation = 0; incarnation <= recovery_.cause.incarnation; ++incarnation) {
      ctx.record_recovered(node::FailureNotice{ctx.node(), incarnation, 0});
    }
  }
  if (ctx.recording()) {
    ctx.record_span("restore " + point, "recovery", recovery_.began);
    ctx.note("restarted from " + point, "recovery");
  }
  // Buddies that had lost this node's data (replaced before it failed, its re-protection lost with
  // it) get the restored checkpoint again.
  if (n > 0) {
    for (NodeId b : options_.buddies.buddies(ctx.node())) {
      auto it = round_.answers.find(b);
      if (it != round_.answers.end() && it->second.info.lost) origin_.reprotect(ctx, b, node::kAnyIncarnation);
    }
  }
  origin_.try_validate(ctx);
  for (const auto& [node, incarnation] : later_replay_requests_) send_replay_request(ctx, node, incarnation);
  later_replay_requests_.clear();
  // The requests that waited for this node's state, in order of arrival.
  auto deferred = std::move(deferred_requests_);
  deferred_requests_.clear();
  for (DeferredRequest& d : deferred) {
    if (recovering()) {
      deferred_requests_.push_back(std::move(d));  // a replay rolled this node back again: after that restore
    } else if (const auto* restart = std::get_if<messages::RestartFrom>(&d.request)) {
      replay_for_restart(ctx, d.from, d.from_incarnation, *restart);  // its keeper's part was served on arrival
    } else {
      on_replay_request(ctx, d.from, d.from_incarnation, std::move(std::get<messages::ReplayRequest>(d.request)));
    }
  }
  ctx.check_completion();  // nothing may be left to run after the cut
}

node::ReceiveVerdict BuddyRecovery::on_data() {
  if (!recovering()) return node::ReceiveVerdict::accept;
  // Replayed or re-sent data arriving before the checkpoint is installed: redelivered then.
  ++deferred_data_;
  return node::ReceiveVerdict::defer;
}

// ----------------------------------------------------------------------------- other nodes recover

void BuddyRecovery::on_info_request(node::ProtocolContext& ctx, NodeId failed, std::uint32_t replacement,
                                    const messages::InfoRequest& request) {
  const BuddyKeeper::Holdings holdings = keeper_.holdings_of(ctx, failed);
  messages::RecoveryInfo info;
  info.requester_incarnation = replacement;
  info.round = request.round;
  // A node restarting itself waits for nothing yet: what it will need from the other comes by replay.
  info.bound = recovering() ? kNoBound : in_transit_bound(ctx, options_, failed, state_ == RecoveryState::restored);
  info.newest = holdings.newest;
  info.older = holdings.older;
  info.buddy = holdings.buddy;
  info.lost = holdings.lost;
  info.released = origin_.released_by(failed);
  messages::send(ctx, failed, info, node::Traffic::control, 0, replacement);
  if (recovering()) {
    // Two restarts overlap. An answer of the requester's current incarnation is kept (it is still
    // true: a process that rolls back alive keeps what it holds for others). One of a dead
    // predecessor is dropped, and the new incarnation asked once: the predecessor may have died
    // with this node's request unanswered. Each (node, incarnation) is asked at most once, so the
    // exchange ends however many restarts overlap (docs/protocols.md, "Concurrent restarts").
    if (state_ == RecoveryState::awaiting_checkpoint && failed == choice_.source &&
        replacement > choice_.source_incarnation) {
      state_ = RecoveryState::collecting_info;  // the buddy sending the checkpoint died: choose again
    }
    if (state_ == RecoveryState::collecting_info) {
      auto it = round_.answers.find(failed);
      if (it != round_.answers.end() && it->second.incarnation < replacement) round_.answers.erase(it);
      std::uint32_t& asked = round_.asked[failed];
      if (!round_.answers.contains(failed) && asked < replacement + 1) {
        asked = replacement + 1;
        messages::send(ctx, failed, messages::InfoRequest{round_.number}, node::Traffic::control, 0, replacement);
      }
    }
    // Once restored, ask the requester for what its predecessor may have been replaying here.
    auto later = std::find_if(later_replay_requests_.begin(), later_replay_requests_.end(),
                              [&](const auto& r) { return r.first == failed; });
    if (later == later_replay_requests_.end()) {
      later_replay_requests_.emplace_back(failed, replacement);
    } else {
      later->second = std::max(later->second, replacement);
    }
    return;
  }
  if (state_ == RecoveryState::restored) send_replay_request(ctx, failed, replacement);
}

void BuddyRecovery::on_restart_from(node::ProtocolContext& ctx, NodeId from, std::uint32_t from_incarnation,
                                    const messages::RestartFrom& restart) {
  if (restart.checkpoint > options_.saves.checkpoints()) throw node::WireError("buddy: restart checkpoint out of range");
  // The keeper's part needs only what this node holds for others: served at once, even while
  // this node restarts itself, so that no restore ever waits for another restore. The origin's
  // part (replays, re-protection) needs its own state: deferred until it has it back.
  keeper_.serve_restart(ctx, from, restart);
  if (recovering()) {
    deferred_requests_.push_back({from, from_incarnation, restart});
    return;
  }
  replay_for_restart(ctx, from, from_incarnation, restart);
}

void BuddyRecovery::replay_for_restart(node::ProtocolContext& ctx, NodeId restarted, std::uint32_t incarnation,
                                       const messages::RestartFrom& restart) {
  const std::uint32_t n = restart.checkpoint;
  const node::FailureNotice cause{restart.cause_node, restart.failed_incarnation, 0};
  // Replay (§3.3): every version this node produced that the restarted node will read from cut N on.
  // On a cascade this node rolls back too; the rest still holds.
  const node::FailureEffect effect = serve(ctx, restarted, replay_.needed_by(ctx, restarted, n), cause);
  if (ctx.recording()) {
    ctx.note("replays " + std::to_string(effect.messages_replayed) + " messages (" + std::to_string(effect.bytes_replayed) +
             " B) to node " + std::to_string(restarted) + ", restarting at checkpoint " + std::to_string(n), "recovery");
  }
  ctx.record_failure_effect(cause, effect);
  // As its origin: the restarted buddy lost what it held; protect this node's data again.
  const auto mine = options_.buddies.buddies(ctx.node());
  if (!restart.alive && std::find(mine.begin(), mine.end(), restarted) != mine.end()) {
    origin_.reprotect(ctx, restarted, incarnation);
  }
}

void BuddyRecovery::on_replay_request(node::ProtocolContext& ctx, NodeId from, std::uint32_t from_incarnation,
                                      messages::ReplayRequest request) {
  if (recovering()) {
    deferred_requests_.push_back({from, from_incarnation, std::move(request)});  // served once this node has its state back
    return;
  }
  serve(ctx, from, request.keys, node::FailureNotice{from, from_incarnation > 0 ? from_incarnation - 1 : 0, 0});
}

void BuddyRecovery::send_replay_request(node::ProtocolContext& ctx, NodeId failed, std::uint32_t replacement) {
  // This node restarted and may still wait for versions the failed node was replaying to it when
  // it died: ask its replacement for them by name.
  messages::send(ctx, failed, messages::ReplayRequest{missing_from(ctx, failed)}, node::Traffic::control, 0, replacement);
}

node::FailureEffect BuddyRecovery::serve(node::ProtocolContext& ctx, NodeId to, const std::vector<std::uint64_t>& keys,
                                         const node::FailureNotice& cause) {
  const BuddyReplay::Outcome outcome = replay_.serve(ctx, to, keys);
  if (outcome.rollback_to != kNoBound) roll_back(ctx, outcome.rollback_to, cause, to);
  return outcome.effect;
}

std::string BuddyRecovery::phase(node::ProtocolContext& ctx) const {
  const std::string what = recovery_.kind == Recovery::Kind::rollback
                               ? "rollback for node " + std::to_string(recovery_.cause.node) + " (cascade)"
                               : "restart of incarnation " + std::to_string(recovery_.incarnation);
  if (state_ == RecoveryState::awaiting_checkpoint) {
    return what + ": waiting for checkpoint " + std::to_string(choice_.checkpoint) + " from node " +
           std::to_string(choice_.source);
  }
  std::vector<NodeId> waiting;
  for (NodeId n = 0; n < ctx.node_count(); ++n) {
    if (n != ctx.node() && !round_.answers.contains(n)) waiting.push_back(n);
  }
  return what + ": waiting for the recovery info of nodes " + buddy_node_list(waiting) + " (round " +
         std::to_string(round_.number) + ")";
}

}  // namespace ftsim::protocols::buddy
