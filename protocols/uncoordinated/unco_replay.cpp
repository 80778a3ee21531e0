#include "protocols/uncoordinated/unco_replay.hpp"

#include <algorithm>

#include "protocols/mutants.hpp"
#include "protocols/uncoordinated/unco_metrics.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;

void Replays::begin_round() {
  pending_lists_.clear();
  orphans_.clear();
  orphan_count_.clear();
  requests_.clear();
  lists_unanswered_ = 0;
  ready_ = 0;
  status_ = Status::running;
}

void Replays::send_lists(node::ProtocolContext& ctx, const messages::Line& line, std::uint32_t round) {
  // l. 62-64: the orphans it keeps, per sender and per phase of reception.
  std::map<node::NodeId, messages::Lists> lists;
  for (const Receipt& r : log_.orphans(line)) {
    lists[r.source].orphans.push_back({r.version, r.epoch, r.send_phase});
    if (orphans_.emplace(SentKey{r.source, r.version}, r.phase).second) ++orphan_count_[r.phase];
    if (ctx.recording()) {
      ctx.note("orphan " + ctx.graph().handle_name(messages::handle_of(r.version)) + " v" + std::to_string(messages::version_of(r.version)) +
                   " from node " + std::to_string(r.source) + " (date " + std::to_string(r.date) + " > " + std::to_string(line.dates[r.source]) +
                   ", sent in epoch " + std::to_string(r.send_epoch) + ", received in phase " + std::to_string(r.phase) + ")",
               "recovery");
    }
  }
  // What it lacks: its senders send it again from memory, or their re-execution does (l. 65-67
  // in the receiver's words: see docs/protocols.md).
  for (const auto& [source, version] : missing_versions(ctx)) lists[source].needed.push_back(version);
  lists_unanswered_ = 0;
  for (auto& [to, l] : lists) {
    l.round = round;
    messages::send(ctx, to, l);
    ++lists_unanswered_;
  }
  auto pending = std::move(pending_lists_);
  pending_lists_.clear();
  for (const auto& [from, l] : pending) on_lists(ctx, from, l);
  serve(ctx);
  if (lists_unanswered_ == 0) notify(ctx, round);
}

void Replays::on_lists(node::ProtocolContext& ctx, node::NodeId from, const messages::Lists& lists) {
  for (const messages::Lists::Orphan& o : lists.orphans) {
    log_.suppress(from, o);
    // Not sent again by this process's re-execution (done before its restart point): it counts
    // as passed (the receiver's orphan count must reach zero).
    const graphs::HandleId h = messages::handle_of(o.version);
    const graphs::Version v = messages::version_of(o.version);
    const bool again = v == 0 ? rolled_to_start_ : ctx.runtime().status(ctx.graph().writer(h, v)) != node::TaskStatus::done;
    if (!again && options_.logging == Logging::send_deterministic) messages::send(ctx, from, messages::OrphanSent{o.version});
  }
  for (std::uint64_t v : lists.needed) requests_.emplace_back(from, v);
  messages::send(ctx, from, messages::ListsAck{lists.round});
  serve(ctx);
}

void Replays::on_lists_ack(node::ProtocolContext& ctx, const messages::ListsAck& ack, std::uint32_t round) {
  if (ack.round == round && lists_unanswered_ > 0 && --lists_unanswered_ == 0) notify(ctx, round);
}

void Replays::notify(node::ProtocolContext& ctx, std::uint32_t round) {
  messages::Notification n;
  n.round = round;
  n.rolled_back = status_ == Status::rolled_back;
  n.phase = blocked_phase_;
  n.epoch = clock_.epoch();
  if (options_.logging == Logging::send_deterministic) {
    for (const auto& [phase, count] : orphan_count_) {
      if (count > 0) n.orphan_phases.push_back(phase);
    }
  }
  messages::send(ctx, ctx.coordinator(), n);
}

void Replays::orphan_replayed(node::ProtocolContext& ctx, node::NodeId from, std::uint64_t version, std::uint32_t round) {
  auto it = orphans_.find({from, version});
  if (it == orphans_.end()) return;
  const std::uint32_t phase = it->second;
  orphans_.erase(it);
  auto count = orphan_count_.find(phase);
  if (count == orphan_count_.end() || --count->second > 0) return;
  orphan_count_.erase(count);
  // l. 31-32: every orphan of that phase was passed again.
  if (options_.logging == Logging::send_deterministic) messages::send(ctx, ctx.coordinator(), messages::NoOrphanPhase{round, phase});
}

bool Replays::may_run() const {
  // l. 73: a rolled-back process runs once the orphans of the phases before its own are
  // replayed, a blocked one once those of its phase are too.
  if (ready_ == kNoEpoch) return true;
  if (options_.logging != Logging::send_deterministic) return false;
  return status_ == Status::rolled_back ? blocked_phase_ <= ready_ + 1 : blocked_phase_ <= ready_;
}

void Replays::resumed(node::ProtocolContext& ctx) {
  if (!rolled_to_start_) return;
  rolled_to_start_ = false;
  ctx.runtime().send_initial_values();  // its re-execution from the input: the orphans among them are suppressed
}

void Replays::end() {
  status_ = Status::running;
  orphans_.clear();
  orphan_count_.clear();
}

std::string Replays::phase() const {
  if (lists_unanswered_ > 0) return "waiting for " + std::to_string(lists_unanswered_) + " answers to its lists";
  return std::string(status_ == Status::rolled_back ? "rolled back" : "blocked") + " in phase " + std::to_string(blocked_phase_) +
         ", waiting for READY";
}

// ----------------------------------------------------------------------------- re-sends

std::vector<std::pair<node::NodeId, std::uint64_t>> Replays::missing_versions(node::ProtocolContext& ctx) const {
  // The versions its unfinished tasks read that it does not hold and that another node sends it.
  const auto& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  const auto& sources = options_.sources[node_];
  std::vector<std::pair<node::NodeId, std::uint64_t>> missing;
  for (node::TaskId t : ctx.index().tasks_of(node_)) {
    if (runtime.status(t) == node::TaskStatus::done) continue;
    for (const graphs::Access& a : graph.accesses(t)) {
      if (!graphs::reads(a.mode)) continue;
      const graphs::Version v = graphs::version_read(a);
      if (runtime.holds(a.handle, v)) continue;
      const std::uint64_t key = messages::version_key(a.handle, v);
      auto it = std::lower_bound(sources.begin(), sources.end(), std::make_pair(key, node::NodeId(0)));
      if (it == sources.end() || it->first != key || it->second == node_) continue;
      missing.emplace_back(it->second, key);
    }
  }
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  return missing;
}

void Replays::serve(node::ProtocolContext& ctx) {
  if (requests_.empty()) return;
  const auto& graph = ctx.graph();
  node::ProtocolRuntime runtime = ctx.runtime();
  std::vector<SentKey> waiting;
  for (const SentKey& request : requests_) {
    const auto [to, key] = request;
    const graphs::HandleId h = messages::handle_of(key);
    const graphs::Version v = messages::version_of(key);
    // Its re-execution sends it (a task after its restart point, or its input sent again).
    const bool again = v == 0 ? rolled_to_start_ : runtime.status(graph.writer(h, v)) != node::TaskStatus::done;
    if (again) continue;
    if (options_.logging == Logging::send_deterministic) {
      const std::optional<std::uint32_t> phase = log_.logged_phase(request);
      if (phase && ready_ != kNoEpoch && *phase > ready_ &&
          !(*phase == ready_ + 1 && FTSIM_MUTANT(replay_one_phase_early))) {  // planted: one phase early
        waiting.push_back(request);  // Fig. 4 l. 40: a logged message waits for ReadyPhase of its phase
        continue;
      }
    }
    if (!runtime.holds(h, v)) {
      if (v != 0) {
        ctx.fail_run("uncoordinated: protocol bug: node " + std::to_string(node_) + " cannot send " + graph.handle_name(h) +
                     " version " + std::to_string(v) + " again to node " + std::to_string(to) +
                     ": neither in its memory nor re-executed after its restart point");
        return;
      }
      runtime.reload_initial(h);  // an input is read again
    }
    runtime.subscribe(h, v, to, node::Traffic::recovery);
    ctx.counters().add(kMessagesReplayed);
    ctx.counters().add(kBytesReplayed, graph.bytes(h));
  }
  requests_ = std::move(waiting);
}

}  // namespace ftsim::protocols::uncoordinated
