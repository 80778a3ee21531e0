// The failure-free part of Fig. 3: what every data message carries, the receipts, the
// acknowledgements and the logging rule, and the garbage collection.
#include "protocols/uncoordinated/unco_process.hpp"

#include <algorithm>

#include "protocols/uncoordinated/unco_metrics.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;
using messages::version_key;

Process::Process(const Options& options, core::NodeId node)
    : options_(options), node_(node), random_(options.seed * 0x9e3779b97f4a7c15ull + node * 1315423911ull + 7) {
  epoch_ = options_.first_epoch[node_];
  epoch_dates_ = {date_};
  if (options_.content) writer_.emplace(options_.content);
}

void Process::on_start(core::ProtocolContext& ctx) { arm_checkpoint_timer(ctx); }

core::SendVerdict Process::on_send(core::ProtocolContext& ctx, core::Message& m) {
  if (m.traffic != core::Traffic::application && m.traffic != core::Traffic::recovery) return core::SendVerdict::send;
  const SentKey key{m.destination, version_key(m.handle, m.version)};
  const auto stamp = [&](const Sent& s) {
    m.set_header(0, s.date);
    m.set_header(1, s.epoch);
    if (options_.logging == Logging::send_deterministic) m.set_header(2, s.phase);
  };
  auto it = sent_.find(key);
  if (auto orphan = suppress_.find(key); orphan != suppress_.end() && m.traffic == core::Traffic::application) {
    // A re-send of a rolled-back process that its receiver already has (an orphan): send-
    // determinism makes it the same message, so it is not sent; the receiver counts it replayed.
    ctx.counters().add(kOrphansSuppressed);
    if (options_.logging == Logging::send_deterministic) messages::send(ctx, m.destination, messages::OrphanSent{key.second});
    // It is still a send of this execution, received in the receiver's epoch of the orphan: if
    // the receiver rolls back past it, it must come again, from the log or by re-execution.
    if (it != sent_.end()) forget(ctx, it);
    Sent s;
    s.date = ++date_;
    s.epoch = epoch_;
    // The phase of the send its receiver kept, not of this execution: what the receiver sent
    // after it depends on that phase (a replay of it later must not wait for a newer one).
    s.phase = options_.logging == Logging::send_deterministic ? orphan->second.second : phase_;
    s.acked = true;
    s.receiver_epoch = orphan->second.first;
    if (options_.logging == Logging::send_deterministic && s.epoch >= s.receiver_epoch) {
      auto& spe = spe_[{s.epoch, m.destination}];
      spe = std::max(spe, s.receiver_epoch);
    } else {
      ctx.runtime().pin(m.handle, m.version);
      log_entry(ctx, key, sent_[key] = s);
    }
    return core::SendVerdict::suppress;
  }
  if (m.traffic == core::Traffic::recovery && it != sent_.end()) {
    stamp(it->second);  // a replay from memory: the message as it was first sent
    m.logged = options_.logging != Logging::none;
    return core::SendVerdict::send;
  }
  if (it != sent_.end()) forget(ctx, it);  // sent before a rollback that undid the send
  ++date_;  // l. 15
  Sent s;
  s.date = date_;
  s.epoch = epoch_;
  s.phase = phase_;
  stamp(s);
  ctx.counters().add(kDataMessages);
  ctx.counters().add(kPiggybackedBytes, 4ull * options_.header_words());
  // Under the send-deterministic rule every message waits in the sender's memory for its
  // acknowledgement (NonAck): until then it is in a log it can replay.
  m.logged = options_.logging != Logging::none;
  keep(ctx, key, s);
  return core::SendVerdict::send;
}

bool Process::stale(const core::Message& m, std::uint32_t send_epoch) const {
  // Sent before a rollback of its sender (an older generation) from a state that rollback undid:
  // the re-execution sends it again.
  auto it = rollbacks_.find(m.source);
  if (it == rollbacks_.end()) return false;
  for (const auto& [round, restart] : it->second) {
    if (round > m.epoch && send_epoch >= restart) return true;
  }
  return false;
}

core::ReceiveVerdict Process::on_receive(core::ProtocolContext& ctx, const core::Message& m) {
  if (m.traffic != core::Traffic::application && m.traffic != core::Traffic::recovery) return core::ReceiveVerdict::accept;
  // Not while stopped for a recovery (until the line is applied) or saving a checkpoint.
  if (replacement_ || recovery_ == Recovery::stopped || recovery_ == Recovery::restoring || stage_ == Stage::writing) {
    return core::ReceiveVerdict::defer;
  }
  const std::uint32_t send_date = m.header_word(0), send_epoch = m.header_word(1);
  const std::uint32_t send_phase = options_.logging == Logging::send_deterministic ? m.header_word(2) : 0;
  if (stale(m, send_epoch)) return core::ReceiveVerdict::drop_orphan;
  const SentKey key{m.source, version_key(m.handle, m.version)};
  if (received_.count(key) || ctx.runtime().holds(m.handle, m.version)) {
    if (options_.logging != Logging::none) messages::send(ctx, m.source, messages::Ack{key.second, send_date, epoch_, true});
    orphan_replayed(ctx, m.source, key.second);  // an orphan sent again (l. 29-32)
    return core::ReceiveVerdict::drop_duplicate;
  }
  // l. 21-26: the phase grows past a logged message (the causality path is broken there).
  const bool logged = options_.logging == Logging::send_deterministic ? send_epoch < epoch_ : options_.logging == Logging::all;
  if (options_.logging == Logging::send_deterministic) phase_ = std::max(phase_, logged ? send_phase + 1 : send_phase);
  ++date_;
  ++progress_;
  fresh_ = false;  // no longer exactly at the checkpoint it restored: a newer line restores it again
  receipts_.push_back({m.source, key.second, send_date, send_epoch, phase_, epoch_, send_phase});
  received_.insert(key);
  if (options_.logging != Logging::none) {  // l. 27; the classic protocol tracks receipts only
    messages::send(ctx, m.source, messages::Ack{key.second, send_date, epoch_, false});
    ctx.counters().add(kAcks);
  }
  return core::ReceiveVerdict::accept;
}

void Process::on_ack(core::ProtocolContext& ctx, core::NodeId from, const messages::Ack& ack) {
  auto it = sent_.find({from, ack.version});
  if (it == sent_.end() || it->second.date != ack.date || it->second.acked) return;
  Sent& s = it->second;
  s.acked = true;
  s.receiver_epoch = ack.epoch;
  if (options_.logging == Logging::send_deterministic) {
    if (s.epoch < ack.epoch) {  // l. 36-37: from the past to the future, logged
      log_entry(ctx, it->first, s);
      ctx.counters().add(kMessagesLogged);
      ctx.counters().add(kLoggedBytes, ctx.graph().bytes(messages::handle_of(ack.version)));
    } else {  // l. 39
      auto& spe = spe_[{s.epoch, from}];
      spe = std::max(spe, ack.epoch);
      ctx.record_log_change(from, messages::handle_of(ack.version), messages::version_of(ack.version), false);
      forget(ctx, it);
    }
  }
  if (stage_ == Stage::draining) try_checkpoint(ctx);
  if (ctx.runtime().remaining_tasks() == 0) ctx.check_completion();  // the last acknowledgement may end the run
}

void Process::keep(core::ProtocolContext& ctx, const SentKey& key, Sent sent) {
  ctx.runtime().pin(messages::handle_of(key.second), messages::version_of(key.second));
  Sent& s = sent_[key] = sent;
  if (options_.logging == Logging::send_deterministic) return;  // logged once acknowledged
  log_entry(ctx, key, s);
  if (options_.logging == Logging::all) {
    ctx.counters().add(kMessagesLogged);
    ctx.counters().add(kLoggedBytes, ctx.graph().bytes(messages::handle_of(key.second)));
  }
}

void Process::log_entry(core::ProtocolContext& ctx, const SentKey& key, Sent& sent) {
  if (sent.store_key == 0) sent.store_key = next_store_key_++;
  core::Bytes record;
  core::WireWriter out(record);
  out.u32(key.first);
  out.u64(key.second);
  ctx.log_store().put(sent.store_key, std::move(record), ctx.graph().bytes(messages::handle_of(key.second)));
  ctx.counters().raise_to(kLogPeakBytes, ctx.log_store().bytes());
}

void Process::forget(core::ProtocolContext& ctx, std::map<SentKey, Sent>::iterator it) {
  const graphs::HandleId h = messages::handle_of(it->first.second);
  const graphs::Version v = messages::version_of(it->first.second);
  if (it->second.store_key != 0) ctx.log_store().erase(it->second.store_key);
  // During a recovery a version may still be asked for: it stays in memory until the end.
  if (recovery_ == Recovery::none) {
    ctx.runtime().unpin(h, v);
  } else {
    unpin_later_.emplace_back(h, v);
  }
  sent_.erase(it);
}

void Process::on_floor(core::ProtocolContext& ctx, std::uint32_t floor) {
  // §III-A.4: no process restarts below the smallest current epoch. Checkpoints that start an
  // earlier epoch, messages received in an earlier epoch, dependencies and receipts of messages
  // sent in an earlier epoch can go. Entries restored after a failure keep their receive epoch
  // of the checkpoint, which a replay since may have changed: they stay.
  if (floor <= floor_ || options_.logging == Logging::none || recovery_ != Recovery::none) return;
  const std::uint32_t first = options_.first_epoch[node_];
  if (writer_) {
    // /checkpoint_data: the oldest checkpoint a restart may use keeps its chain (its full image
    // and the incrementals after it); the images before that chain go.
    if (floor > first && floor - first <= checkpoints_) {
      for (std::uint32_t c : writer_->release_before(floor - first)) ctx.storage_erase(server(ctx), storage_key(c));
    }
  } else {
    for (std::uint32_t c = std::max<std::uint32_t>(1, floor_ > first ? floor_ - first : 1); first + c < floor && c <= checkpoints_; ++c) {
      ctx.storage_erase(server(ctx), storage_key(c));
    }
  }
  floor_ = floor;
  for (auto it = sent_.begin(); it != sent_.end();) {
    const Sent& s = it->second;
    auto next = std::next(it);
    if (s.acked && s.confirmed && s.receiver_epoch < floor) forget(ctx, it);
    it = next;
  }
  std::erase_if(spe_, [&](const auto& entry) { return entry.first.first < floor; });
  std::erase_if(receipts_, [&](const Receipt& r) {
    if (r.send_epoch >= floor) return false;
    received_.erase({r.source, r.version});
    return true;
  });
}

}  // namespace ftsim::protocols::uncoordinated
