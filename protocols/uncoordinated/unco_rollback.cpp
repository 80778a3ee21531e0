// The recovery of Figs. 3 and 4 on an application process: stop and report (l. 47-56), roll back
// to the line (l. 58-61), the orphans and what it lacks (l. 62-67, LISTS), the notification
// (l. 68), the phases (l. 70-74) and the orphans passed again (l. 29-32).
#include <algorithm>

#include "protocols/uncoordinated/unco_metrics.hpp"
#include "protocols/uncoordinated/unco_process.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;

namespace {
constexpr std::uint64_t kReadBit = 1ull << 60;
}  // namespace

void Process::on_failure_notice(core::ProtocolContext& ctx, const core::FailureNotice& notice) {
  cause_ = notice;
  stop(ctx);
}

void Process::stop(core::ProtocolContext& ctx) {
  // l. 55: blocked. What runs now is thrown away (it may be rolled back); data waits.
  if (recovery_ == Recovery::none) recovery_began_ = ctx.now();
  if (stage_ == Stage::writing) {
    if (pending_write_) {
      pending_write_.reset();  // /checkpoint_data: still encoding, nothing written: nothing to erase
    } else {
      abandoned_write_ = writing_;  // its completion is then erased
    }
    if (writer_) {
      // /checkpoint_data: the abandoned image is no checkpoint: the next one is full.
      writer_->release_after(checkpoints_);
      writer_->restart_chain();
    }
  }
  stage_ = Stage::running;  // a save in progress is abandoned
  writing_ = 0;
  core::ProtocolRuntime runtime = ctx.runtime();
  runtime.abort();
  runtime.pause();
  runtime.rebuild();  // what abort() took off the ready queue is ready again (it starts on resume)
  if (recovery_ != Recovery::restoring) recovery_ = Recovery::stopped;
}

void Process::on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info) {
  // A failed node's new process holds nothing: it waits for ROUND (with its last checkpoint).
  replacement_ = true;
  recovery_ = Recovery::stopped;
  recovery_began_ = ctx.now();
  cause_ = {node_, info.incarnation - 1, info.last_sequence};
  ctx.runtime().pause();
}

void Process::on_control(core::ProtocolContext& ctx, const core::Message& m) {
  using namespace messages;
  switch (m.control_type) {
    case kAck:
      // During a recovery the table it reported stays as it was at the failure notice: an
      // acknowledgement that comes later is applied once the recovery is over (until then the
      // message stays in its memory, replayable).
      if (recovery_ != Recovery::none || replacement_) {
        pending_acks_.emplace_back(m.source, Ack::decode(m.body));
      } else {
        on_ack(ctx, m.source, Ack::decode(m.body));
      }
      break;
    case kFloor: on_floor(ctx, Floor::decode(m.body).epoch); break;
    case kRound: {
      const Round round = Round::decode(m.body);
      if (round.round <= round_) break;
      round_ = round.round;
      line_.reset();
      pending_lists_.clear();
      orphans_.clear();
      orphan_count_.clear();
      requests_.clear();
      lists_unanswered_ = 0;
      ready_ = 0;
      status_ = Status::running;
      stop(ctx);
      if (recovery_ == Recovery::restoring) break;  // reports once its checkpoint is read back
      if (replacement_) {
        // l. 48: its last checkpoint; the coordinator may not know the very last one yet.
        recovery_ = Recovery::restoring;
        probing_ = true;
        probe_fallback_ = round.latest;
        restoring_ = round.latest + 1;
        read_checkpoint(ctx);
        break;
      }
      report(ctx);
      break;
    }
    case kLine: {
      Line line = Line::decode(m.body);
      if (line.round != round_ || recovery_ != Recovery::stopped) break;
      line_ = std::move(line);
      apply_line(ctx);
      break;
    }
    case kLists: {
      Lists lists = Lists::decode(m.body);
      if (lists.round != round_) break;
      if (recovery_ == Recovery::stopped || recovery_ == Recovery::restoring) {
        pending_lists_.emplace_back(m.source, std::move(lists));  // judged once this process is restored
        break;
      }
      on_lists(ctx, m.source, lists);
      break;
    }
    case kListsAck:
      if (ListsAck::decode(m.body).round == round_ && lists_unanswered_ > 0 && --lists_unanswered_ == 0) notify(ctx);
      break;
    case kReady: on_ready(ctx, Ready::decode(m.body)); break;
    case kOrphanSent: orphan_replayed(ctx, m.source, OrphanSent::decode(m.body).version); break;
    default: break;
  }
}

void Process::on_lists(core::ProtocolContext& ctx, core::NodeId from, const messages::Lists& lists) {
  for (const messages::Lists::Orphan& o : lists.orphans) {
    suppress_[{from, o.version}] = {o.epoch, o.phase};
    // Not sent again by this process's re-execution (done before its restart point): it counts
    // as passed (the receiver's orphan count must reach zero).
    const graphs::HandleId h = messages::handle_of(o.version);
    const graphs::Version v = messages::version_of(o.version);
    const bool again = v == 0 ? rolled_to_start_ : ctx.runtime().status(ctx.graph().writer(h, v)) != core::TaskStatus::done;
    if (!again && options_.logging == Logging::send_deterministic) messages::send(ctx, from, messages::OrphanSent{o.version});
  }
  for (std::uint64_t v : lists.needed) requests_.emplace_back(from, v);
  messages::send(ctx, from, messages::ListsAck{lists.round});
  serve_replays(ctx);
}

std::vector<messages::Dependency> Process::dependencies() const {
  std::vector<messages::Dependency> out;
  if (options_.send_rule()) {
    // SPE (l. 39): an unlogged message sent in epoch e to j, received there in epoch r: if j
    // restarts in r or before, this process restarts in e (before the send) to send it again.
    for (const auto& [key, receive_epoch] : spe_) out.push_back({key.second, receive_epoch, key.first});
    return out;
  }
  // The receive table (the classic protocol): a message received in epoch r, sent by k in epoch
  // e: if k restarts in e or before, the message is an orphan and this process restarts in r.
  std::map<std::pair<core::NodeId, std::uint32_t>, std::uint32_t> latest_send;  // (source, receive epoch) -> max send epoch
  for (const Receipt& r : receipts_) {
    auto& e = latest_send[{r.source, r.epoch}];
    e = std::max(e, r.send_epoch);
  }
  for (const auto& [key, send_epoch] : latest_send) out.push_back({key.first, send_epoch, key.second});
  return out;
}

void Process::report(core::ProtocolContext& ctx) {
  messages::Report report;
  report.round = round_;
  report.incarnation = ctx.incarnation();
  report.restart_epoch = restart_epoch_;
  report.epoch = epoch_;
  report.first_epoch = options_.first_epoch[node_];
  report.epoch_dates = epoch_dates_;
  report.dependencies = dependencies();
  messages::send(ctx, ctx.coordinator(), report);
}

void Process::apply_line(core::ProtocolContext& ctx) {
  const messages::Line& line = *line_;
  for (core::NodeId k = 0; k < line.epochs.size(); ++k) {
    if (line.epochs[k] != kNoEpoch) rollbacks_[k].emplace_back(line.round, line.epochs[k]);
  }
  // A receiver restarting before it got a message no longer has it: send it again if asked.
  std::erase_if(suppress_, [&](const auto& entry) {
    const std::uint32_t restart = line.epochs[entry.first.first];
    return restart != kNoEpoch && restart <= entry.second.first;
  });
  // A message its receiver may have lost by rolling back: that receiver asks for it if it needs it.
  for (auto& [key, s] : sent_) {
    if (!s.acked && line.epochs[key.first] != kNoEpoch) s.lost = true;
  }
  const std::uint32_t restart = line.epochs[node_];
  if (restart == kNoEpoch) {  // l. 73: not rolled back, blocked in its phase
    status_ = Status::blocked;
    restored(ctx);
    return;
  }
  status_ = Status::rolled_back;
  restart_epoch_ = restart;
  ctx.set_epoch(line.round);  // its messages from now on are of a new generation
  if (fresh_ && restart == epoch_) {  // still exactly at the checkpoint it restored (nothing received or run since)
    restored(ctx);
    return;
  }
  const std::uint32_t first = options_.first_epoch[node_];
  if (restart == first) {  // the job's input
    Saved start;
    start.snapshot = ctx.runtime().initial_snapshot();
    start.epoch = first;
    start.phase = 1;
    start.date = 1;
    start.epoch_dates = {1};
    recovery_ = Recovery::restoring;
    install(ctx, std::move(start), true);
    return;
  }
  // l. 60: that checkpoint, from stable storage.
  recovery_ = Recovery::restoring;
  restoring_ = restart - first;
  probing_ = false;
  read_checkpoint(ctx);
}

void Process::restored(core::ProtocolContext& ctx) {
  recovery_ = Recovery::applied;
  // The phase it is blocked (or rolled back) in: what it receives while it waits does not move it.
  blocked_phase_ = phase_;
  ctx.redeliver_deferred();  // what arrived meanwhile, judged against the line
  const messages::Line& line = *line_;
  // l. 62-64: the orphans it keeps, per sender and per phase of reception.
  std::map<core::NodeId, messages::Lists> lists;
  for (const Receipt& r : receipts_) {
    const std::uint32_t restart = line.epochs[r.source];
    if (restart == kNoEpoch || r.source == node_) continue;
    const bool orphan = options_.logging == Logging::send_deterministic ? r.date > line.dates[r.source] : r.send_epoch >= restart;
    if (!orphan) continue;
    lists[r.source].orphans.push_back({r.version, r.epoch, r.send_phase});
    if (orphans_.emplace(SentKey{r.source, r.version}, r.phase).second) ++orphan_count_[r.phase];
    if (ctx.recording()) {
      ctx.note("orphan " + ctx.graph().handle_name(messages::handle_of(r.version)) + " v" + std::to_string(messages::version_of(r.version)) +
               " from node " + std::to_string(r.source) + " (date " + std::to_string(r.date) + " > " + std::to_string(line.dates[r.source]) +
               ", sent in epoch " + std::to_string(r.send_epoch) + ", received in phase " + std::to_string(r.phase) + ")", "recovery");
    }
  }
  // What it lacks: its senders send it again from memory, or their re-execution does (l. 65-67
  // in the receiver's words: see docs/protocols.md).
  for (const auto& [source, version] : missing_versions(ctx)) lists[source].needed.push_back(version);
  lists_unanswered_ = 0;
  for (auto& [to, l] : lists) {
    l.round = round_;
    messages::send(ctx, to, l);
    ++lists_unanswered_;
  }
  auto pending = std::move(pending_lists_);
  pending_lists_.clear();
  for (const auto& [from, l] : pending) on_lists(ctx, from, l);
  serve_replays(ctx);
  if (lists_unanswered_ == 0) notify(ctx);
}

void Process::notify(core::ProtocolContext& ctx) {
  messages::Notification n;
  n.round = round_;
  n.rolled_back = status_ == Status::rolled_back;
  n.phase = blocked_phase_;
  n.epoch = epoch_;
  if (options_.logging == Logging::send_deterministic) {
    for (const auto& [phase, count] : orphan_count_) {
      if (count > 0) n.orphan_phases.push_back(phase);
    }
  }
  messages::send(ctx, ctx.coordinator(), n);
}

void Process::on_ready(core::ProtocolContext& ctx, const messages::Ready& ready) {
  if (ready.round != round_ || !line_) return;
  ready_ = ready.phase;
  serve_replays(ctx);
  maybe_run(ctx);
  if (ready.phase == kNoEpoch) end_recovery(ctx);
}

void Process::maybe_run(core::ProtocolContext& ctx) {
  if (recovery_ != Recovery::applied) return;
  // l. 73: a rolled-back process runs once the orphans of the phases before its own are
  // replayed, a blocked one once those of its phase are too.
  bool run = ready_ == kNoEpoch;
  if (!run && options_.logging == Logging::send_deterministic) {
    run = status_ == Status::rolled_back ? blocked_phase_ <= ready_ + 1 : blocked_phase_ <= ready_;
  }
  if (!run) return;
  recovery_ = Recovery::released;
  fresh_ = false;
  core::ProtocolRuntime runtime = ctx.runtime();
  runtime.resume();
  if (rolled_to_start_) {
    rolled_to_start_ = false;
    runtime.send_initial_values();  // its re-execution from the input: the orphans among them are suppressed
  }
}

void Process::end_recovery(core::ProtocolContext& ctx) {
  maybe_run(ctx);
  if (recovery_ != Recovery::released) return;
  if (ctx.recording()) ctx.record_span("recovery round " + std::to_string(round_), "recovery", recovery_began_);
  recovery_ = Recovery::none;
  restart_epoch_ = kNoEpoch;
  status_ = Status::running;
  orphans_.clear();
  orphan_count_.clear();
  for (const auto& [h, v] : unpin_later_) ctx.runtime().unpin(h, v);
  unpin_later_.clear();
  auto acks = std::move(pending_acks_);
  pending_acks_.clear();
  for (const auto& [from, ack] : acks) on_ack(ctx, from, ack);
  serve_replays(ctx);
  if (checkpoint_due_) {
    try_checkpoint(ctx);
  } else if (!timer_) {
    arm_checkpoint_timer(ctx);
  }
  ctx.check_completion();
}

void Process::orphan_replayed(core::ProtocolContext& ctx, core::NodeId from, std::uint64_t version) {
  auto it = orphans_.find({from, version});
  if (it == orphans_.end()) return;
  const std::uint32_t phase = it->second;
  orphans_.erase(it);
  auto count = orphan_count_.find(phase);
  if (count == orphan_count_.end() || --count->second > 0) return;
  orphan_count_.erase(count);
  // l. 31-32: every orphan of that phase was passed again.
  if (options_.logging == Logging::send_deterministic) messages::send(ctx, ctx.coordinator(), messages::NoOrphanPhase{round_, phase});
}

bool Process::finished(core::ProtocolContext&) const {
  if (recovery_ != Recovery::none || stage_ != Stage::running || replacement_) return false;
  // Its messages acknowledged (the last logging decisions made), as on MPI, where the job ends
  // only once every packet is received.
  if (options_.logging == Logging::none) return true;
  for (const auto& [key, s] : sent_) {
    if (!s.acked && !s.lost) return false;
  }
  return true;
}

std::string Process::phase(core::ProtocolContext& ctx) const {
  const std::string round = "recovery round " + std::to_string(round_) + ": ";
  switch (recovery_) {
    case Recovery::none: break;
    case Recovery::stopped:
      return round + (line_ ? "applying the line" : replacement_ ? "restarted, waiting for ROUND" : "stopped, waiting for the recovery line");
    case Recovery::restoring: return round + "reading checkpoint " + std::to_string(restoring_) + " back";
    case Recovery::applied:
      if (lists_unanswered_ > 0) return round + "waiting for " + std::to_string(lists_unanswered_) + " answers to its lists";
      return round + (status_ == Status::rolled_back ? "rolled back" : "blocked") + " in phase " + std::to_string(blocked_phase_) +
             ", waiting for READY";
    case Recovery::released: return round + "running again, waiting for the end of the phases";
  }
  if (stage_ == Stage::draining) {
    return ctx.runtime().quiescent() ? "checkpoint: waiting for acknowledgements" : "checkpoint: waiting for its tasks and sends";
  }
  if (stage_ == Stage::writing) return "checkpoint " + std::to_string(writing_) + ": writing to stable storage";
  if (options_.logging != Logging::none) {
    std::size_t waiting = 0;
    const SentKey* first = nullptr;
    for (const auto& [key, s] : sent_) {
      if (s.acked || s.lost) continue;
      if (waiting++ == 0) first = &key;
    }
    if (waiting > 0) {
      return "waiting for the acknowledgements of " + std::to_string(waiting) + " messages (" +
             ctx.graph().handle_name(messages::handle_of(first->second)) + " v" + std::to_string(messages::version_of(first->second)) +
             " to node " + std::to_string(first->first) + ")";
    }
  }
  return {};
}

}  // namespace ftsim::protocols::uncoordinated
