#include "protocols/uncoordinated/unco_log.hpp"

#include <algorithm>

#include "protocols/uncoordinated/unco_metrics.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;
using messages::version_key;

node::SendVerdict MessageLog::on_send(node::ProtocolContext& ctx, node::Message& m, bool recovering) {
  const SentKey key{m.destination, version_key(m.handle, m.version)};
  const auto stamp = [&](const Sent& s) {
    m.set_header(0, s.date);
    m.set_header(1, s.epoch);
    if (options_.logging == Logging::send_deterministic) m.set_header(2, s.phase);
  };
  auto it = sent_.find(key);
  if (auto orphan = suppress_.find(key); orphan != suppress_.end() && m.traffic == node::Traffic::application) {
    // A re-send of a rolled-back process that its receiver already has (an orphan): send-
    // determinism makes it the same message, so it is not sent; the receiver counts it replayed.
    ctx.counters().add(kOrphansSuppressed);
    if (options_.logging == Logging::send_deterministic) messages::send(ctx, m.destination, messages::OrphanSent{key.second});
    // It is still a send of this execution, received in the receiver's epoch of the orphan: if
    // the receiver rolls back past it, it must come again, from the log or by re-execution.
    if (it != sent_.end()) forget(ctx, it, recovering);
    Sent s;
    s.date = clock_.tick();
    s.epoch = clock_.epoch();
    // The phase of the send its receiver kept, not of this execution: what the receiver sent
    // after it depends on that phase (a replay of it later must not wait for a newer one).
    s.phase = options_.logging == Logging::send_deterministic ? orphan->second.second : clock_.phase();
    s.acked = true;
    s.receiver_epoch = orphan->second.first;
    if (options_.logging == Logging::send_deterministic && s.epoch >= s.receiver_epoch) {
      auto& spe = spe_[{s.epoch, m.destination}];
      spe = std::max(spe, s.receiver_epoch);
    } else {
      ctx.runtime().pin(m.handle, m.version);
      log_entry(ctx, key, sent_[key] = s);
    }
    return node::SendVerdict::suppress;
  }
  if (m.traffic == node::Traffic::recovery && it != sent_.end()) {
    stamp(it->second);  // a replay from memory: the message as it was first sent
    m.logged = options_.logging != Logging::none;
    return node::SendVerdict::send;
  }
  if (it != sent_.end()) forget(ctx, it, recovering);  // sent before a rollback that undid the send
  Sent s;
  s.date = clock_.tick();  // l. 15
  s.epoch = clock_.epoch();
  s.phase = clock_.phase();
  stamp(s);
  ctx.counters().add(kDataMessages);
  ctx.counters().add(kPiggybackedBytes, 4ull * options_.header_words());
  // Under the send-deterministic rule every message waits in the sender's memory for its
  // acknowledgement (NonAck): until then it is in a log it can replay.
  m.logged = options_.logging != Logging::none;
  keep(ctx, key, s);
  return node::SendVerdict::send;
}

bool MessageLog::stale(const node::Message& m, std::uint32_t send_epoch) const {
  // Sent before a rollback of its sender (an older generation) from a state that rollback undid:
  // the re-execution sends it again.
  auto it = rollbacks_.find(m.source);
  if (it == rollbacks_.end()) return false;
  for (const auto& [round, restart] : it->second) {
    if (round > m.epoch && send_epoch >= restart) return true;
  }
  return false;
}

node::ReceiveVerdict MessageLog::on_receive(node::ProtocolContext& ctx, const node::Message& m) {
  const std::uint32_t send_date = m.header_word(0), send_epoch = m.header_word(1);
  const std::uint32_t send_phase = options_.logging == Logging::send_deterministic ? m.header_word(2) : 0;
  if (stale(m, send_epoch)) return node::ReceiveVerdict::drop_orphan;
  const SentKey key{m.source, version_key(m.handle, m.version)};
  if (received_.count(key) || ctx.runtime().holds(m.handle, m.version)) {
    if (options_.logging != Logging::none) messages::send(ctx, m.source, messages::Ack{key.second, send_date, clock_.epoch(), true});
    return node::ReceiveVerdict::drop_duplicate;  // an orphan sent again (l. 29-32)
  }
  // l. 21-26: the phase grows past a logged message (the causality path is broken there).
  const bool logged = options_.logging == Logging::send_deterministic ? send_epoch < clock_.epoch() : options_.logging == Logging::all;
  if (options_.logging == Logging::send_deterministic) clock_.reach_phase(logged ? send_phase + 1 : send_phase);
  clock_.tick();
  receipts_.push_back({m.source, key.second, send_date, send_epoch, clock_.phase(), clock_.epoch(), send_phase});
  received_.insert(key);
  if (options_.logging != Logging::none) {  // l. 27; the classic protocol tracks receipts only
    messages::send(ctx, m.source, messages::Ack{key.second, send_date, clock_.epoch(), false});
    ctx.counters().add(kAcks);
  }
  return node::ReceiveVerdict::accept;
}

bool MessageLog::on_ack(node::ProtocolContext& ctx, node::NodeId from, const messages::Ack& ack) {
  auto it = sent_.find({from, ack.version});
  if (it == sent_.end() || it->second.date != ack.date || it->second.acked) return false;
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
      forget(ctx, it, false);
    }
  }
  return true;
}

void MessageLog::keep(node::ProtocolContext& ctx, const SentKey& key, Sent sent) {
  ctx.runtime().pin(messages::handle_of(key.second), messages::version_of(key.second));
  Sent& s = sent_[key] = sent;
  if (options_.logging == Logging::send_deterministic) return;  // logged once acknowledged
  log_entry(ctx, key, s);
  if (options_.logging == Logging::all) {
    ctx.counters().add(kMessagesLogged);
    ctx.counters().add(kLoggedBytes, ctx.graph().bytes(messages::handle_of(key.second)));
  }
}

void MessageLog::log_entry(node::ProtocolContext& ctx, const SentKey& key, Sent& sent) {
  if (sent.store_key == 0) sent.store_key = next_store_key_++;
  node::Bytes record;
  node::WireWriter out(record);
  out.u32(key.first);
  out.u64(key.second);
  ctx.log_store().put(sent.store_key, std::move(record), ctx.graph().bytes(messages::handle_of(key.second)));
  ctx.counters().raise_to(kLogPeakBytes, ctx.log_store().bytes());
}

void MessageLog::forget(node::ProtocolContext& ctx, std::map<SentKey, Sent>::iterator it, bool recovering) {
  const graphs::HandleId h = messages::handle_of(it->first.second);
  const graphs::Version v = messages::version_of(it->first.second);
  if (it->second.store_key != 0) ctx.log_store().erase(it->second.store_key);
  // During a recovery a version may still be asked for: it stays in memory until the end.
  if (!recovering) {
    ctx.runtime().unpin(h, v);
  } else {
    unpin_later_.emplace_back(h, v);
  }
  sent_.erase(it);
}

void MessageLog::collect(node::ProtocolContext& ctx, std::uint32_t floor) {
  // Messages received in an earlier epoch, dependencies and receipts of messages sent in an
  // earlier epoch can go. Entries restored after a failure keep their receive epoch of the
  // checkpoint, which a replay since may have changed: they stay.
  for (auto it = sent_.begin(); it != sent_.end();) {
    const Sent& s = it->second;
    auto next = std::next(it);
    if (s.acked && s.confirmed && s.receiver_epoch < floor) forget(ctx, it, false);
    it = next;
  }
  std::erase_if(spe_, [&](const auto& entry) { return entry.first.first < floor; });
  std::erase_if(receipts_, [&](const Receipt& r) {
    if (r.send_epoch >= floor) return false;
    received_.erase({r.source, r.version});
    return true;
  });
}

bool MessageLog::all_acked() const {
  for (const auto& [key, s] : sent_) {
    if (!s.acked && !s.lost) return false;
  }
  return true;
}

std::string MessageLog::waiting_acks(node::ProtocolContext& ctx) const {
  std::size_t waiting = 0;
  const SentKey* first = nullptr;
  for (const auto& [key, s] : sent_) {
    if (s.acked || s.lost) continue;
    if (waiting++ == 0) first = &key;
  }
  if (waiting == 0) return {};
  return "waiting for the acknowledgements of " + std::to_string(waiting) + " messages (" +
         ctx.graph().handle_name(messages::handle_of(first->second)) + " v" + std::to_string(messages::version_of(first->second)) +
         " to node " + std::to_string(first->first) + ")";
}

// ----------------------------------------------------------------------------- checkpoints

void MessageLog::add_logged_versions(node::ProtocolContext& ctx, node::NodeSnapshot& snapshot) const {
  node::ProtocolRuntime runtime = ctx.runtime();
  for (const auto& [key, s] : sent_) {
    const std::uint64_t k = node::VersionStore::key(messages::handle_of(key.second), messages::version_of(key.second));
    if (snapshot.store.count(k)) continue;
    auto it = runtime.versions().find(k);
    if (it == runtime.versions().end()) continue;
    snapshot.store.emplace(k, it->second);
    snapshot.bytes += it->second.bytes;
  }
}

void MessageLog::write_tables(node::WireWriter& w) const {
  // The values it restarts with: after the save, the epoch and phase go up (l. 43-45).
  const std::uint32_t phase = options_.logging == Logging::send_deterministic ? clock_.phase() + 1 : clock_.phase();
  w.u32(clock_.epoch() + 1);
  w.u32(phase);
  w.u32(clock_.date());
  w.u32(static_cast<std::uint32_t>(clock_.epoch_dates().size() + 1));
  for (std::uint32_t d : clock_.epoch_dates()) w.u32(d);
  w.u32(clock_.date());
  w.u32(static_cast<std::uint32_t>(sent_.size()));
  for (const auto& [key, s] : sent_) {
    w.u32(key.first);
    w.u64(key.second);
    w.u32(s.date);
    w.u32(s.epoch);
    w.u32(s.phase);
    w.u32(s.receiver_epoch);
    w.u8(s.acked ? 1 : 0);
  }
  w.u32(static_cast<std::uint32_t>(receipts_.size()));
  for (const Receipt& r : receipts_) {
    w.u32(r.source);
    w.u64(r.version);
    w.u32(r.date);
    w.u32(r.send_epoch);
    w.u32(r.phase);
    w.u32(r.epoch);
    w.u32(r.send_phase);
  }
  w.u32(static_cast<std::uint32_t>(spe_.size()));
  for (const auto& [key, value] : spe_) {
    w.u32(key.first);
    w.u32(key.second);
    w.u32(value);
  }
}

Tables Tables::read(node::WireReader& r) {
  Tables s;
  s.epoch = r.u32();
  s.phase = r.u32();
  s.date = r.u32();
  s.epoch_dates.resize(r.u32());
  for (auto& d : s.epoch_dates) d = r.u32();
  s.log.resize(r.u32());
  for (auto& [key, sent] : s.log) {
    key.first = r.u32();
    key.second = r.u64();
    sent.date = r.u32();
    sent.epoch = r.u32();
    sent.phase = r.u32();
    sent.receiver_epoch = r.u32();
    sent.acked = r.u8() != 0;
  }
  s.receipts.resize(r.u32());
  for (Receipt& x : s.receipts) {
    x.source = r.u32();
    x.version = r.u64();
    x.date = r.u32();
    x.send_epoch = r.u32();
    x.phase = r.u32();
    x.epoch = r.u32();
    x.send_phase = r.u32();
  }
  const std::uint32_t spe = r.u32();
  for (std::uint32_t i = 0; i < spe; ++i) {
    const std::uint32_t epoch = r.u32(), node = r.u32(), value = r.u32();
    s.spe.push_back({{epoch, node}, value});
  }
  r.expect_done();
  return s;
}

void MessageLog::restore(node::ProtocolContext& ctx, Saved& saved, bool keep_memory) {
  node::ProtocolRuntime runtime = ctx.runtime();
  const std::uint32_t restart = saved.tables.epoch;
  // A live process keeps what it knows of the messages before its restart point (more recent
  // than the checkpoint's copy); a replacement has only the checkpoint's.
  std::map<SentKey, Sent> kept;
  if (keep_memory) {
    for (auto& [key, s] : sent_) {
      if (s.epoch < restart) kept.emplace(key, s);
    }
    std::erase_if(spe_, [&](const auto& e) { return e.first.first >= restart; });
    std::erase_if(receipts_, [&](const Receipt& r) { return r.epoch >= restart; });
    // Its logged versions replaced since the checkpoint are still pinned in memory.
    for (const auto& [key, s] : kept) {
      const std::uint64_t k = node::VersionStore::key(messages::handle_of(key.second), messages::version_of(key.second));
      if (saved.snapshot.store.count(k)) continue;
      auto it = runtime.versions().find(k);
      if (it != runtime.versions().end()) saved.snapshot.store.emplace(k, it->second);
    }
  } else {
    for (auto& [key, s] : saved.tables.log) {
      s.confirmed = false;
      s.lost = !s.acked;  // its acknowledgement went to the process that failed
      kept.emplace(key, s);
    }
    spe_.clear();
    for (const auto& [key, value] : saved.tables.spe) spe_[key] = value;
    receipts_ = std::move(saved.tables.receipts);
  }
  for (auto& [key, s] : sent_) {
    if (s.store_key != 0) ctx.log_store().erase(s.store_key);
  }
  runtime.abort();
  runtime.restore(saved.snapshot);  // pins are the store's: set again below
  unpin_later_.clear();
  sent_.clear();
  for (auto& [key, s] : kept) {
    s.store_key = 0;
    runtime.pin(messages::handle_of(key.second), messages::version_of(key.second));
    Sent& entry = sent_[key] = s;
    const bool logged = options_.logging != Logging::send_deterministic || (s.acked && s.epoch < s.receiver_epoch);
    if (logged) log_entry(ctx, key, entry);
  }
  received_.clear();
  for (const Receipt& r : receipts_) received_.insert({r.source, r.version});
}

// ----------------------------------------------------------------------------- recovery

std::vector<std::pair<node::NodeId, messages::Ack>> MessageLog::end_recovery(node::ProtocolContext& ctx) {
  for (const auto& [h, v] : unpin_later_) ctx.runtime().unpin(h, v);
  unpin_later_.clear();
  auto acks = std::move(held_acks_);
  held_acks_.clear();
  return acks;
}

std::vector<messages::Dependency> MessageLog::dependencies() const {
  std::vector<messages::Dependency> out;
  if (options_.send_rule()) {
    // SPE (l. 39): an unlogged message sent in epoch e to j, received there in epoch r: if j
    // restarts in r or before, this process restarts in e (before the send) to send it again.
    for (const auto& [key, receive_epoch] : spe_) out.push_back({key.second, receive_epoch, key.first});
    return out;
  }
  // The receive table (the classic protocol): a message received in epoch r, sent by k in epoch
  // e: if k restarts in e or before, the message is an orphan and this process restarts in r.
  std::map<std::pair<node::NodeId, std::uint32_t>, std::uint32_t> latest_send;  // (source, receive epoch) -> max send epoch
  for (const Receipt& r : receipts_) {
    auto& e = latest_send[{r.source, r.epoch}];
    e = std::max(e, r.send_epoch);
  }
  for (const auto& [key, send_epoch] : latest_send) out.push_back({key.first, send_epoch, key.second});
  return out;
}

std::vector<Receipt> MessageLog::orphans(const messages::Line& line) const {
  // Received from a process the line rolls back, sent after its restart point: its date is
  // past the sender's date at its restart epoch (the classic protocol: sent in that epoch or later).
  std::vector<Receipt> out;
  for (const Receipt& r : receipts_) {
    const std::uint32_t restart = line.epochs[r.source];
    if (restart == kNoEpoch || r.source == node_) continue;
    const bool orphan = options_.logging == Logging::send_deterministic ? r.date > line.dates[r.source] : r.send_epoch >= restart;
    if (orphan) out.push_back(r);
  }
  return out;
}

void MessageLog::apply_line(const messages::Line& line) {
  for (node::NodeId k = 0; k < line.epochs.size(); ++k) {
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
}

std::optional<std::uint32_t> MessageLog::logged_phase(const SentKey& key) const {
  auto it = sent_.find(key);
  if (it == sent_.end() || !it->second.acked || it->second.epoch >= it->second.receiver_epoch) return std::nullopt;
  return it->second.phase;
}

}  // namespace ftsim::protocols::uncoordinated
