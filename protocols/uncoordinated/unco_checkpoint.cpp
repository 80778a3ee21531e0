// Uncoordinated checkpoints (Fig. 3 l. 41-45): each node on its own schedule, blocking, on stable
// storage, with what the recovery of Fig. 4 needs (its logs, SPE and receipts, epoch, phase, date).
#include <algorithm>

#include "protocols/uncoordinated/unco_metrics.hpp"
#include "protocols/uncoordinated/unco_process.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;

namespace {
constexpr std::uint64_t kTimerBit = 1ull << 62;
constexpr std::uint64_t kWriteBit = 1ull << 61;
constexpr std::uint64_t kReadBit = 1ull << 60;
// /checkpoint_data: the CPU time of encoding an image / decoding a chain (+ a sequence number).
constexpr std::uint64_t kEncodeBit = 1ull << 59;
constexpr std::uint64_t kDecodeBit = 1ull << 58;
}  // namespace

void Process::arm_checkpoint_timer(core::ProtocolContext& ctx) {
  if (timer_) ctx.cancel_timer(*timer_);
  timer_.reset();
  double delay = 0;
  if (options_.schedule == Schedule::random) {
    // Random times, independent per node: the gap is uniform in [0, 2 period] (mean: the period).
    delay = std::uniform_real_distribution<double>(0.0, 2.0 * options_.period)(random_);
  } else {
    // Periodic with the node's offset: its k-th checkpoint is due at offset + k period (a slot
    // missed during a recovery or a long save is skipped, so nodes keep their relative order).
    double due = options_.offsets[node_] + double(periods_) * options_.period;
    while (due <= ctx.now()) due = options_.offsets[node_] + double(++periods_) * options_.period;
    ++periods_;
    delay = due - ctx.now();
  }
  timer_ = ctx.set_timer(delay, kTimerBit | ++timer_token_);
}

void Process::on_timer(core::ProtocolContext& ctx, std::uint64_t token) {
  if (token & (kEncodeBit | kDecodeBit)) {
    charged(ctx, token);
    return;
  }
  if (token != (kTimerBit | timer_token_)) return;
  timer_.reset();
  if (ctx.runtime().remaining_tasks() == 0) return;  // nothing left to protect
  if (progress_ == 0 && recovery_ == Recovery::none && stage_ == Stage::running) {
    arm_checkpoint_timer(ctx);  // nothing ran and nothing came since its last checkpoint: the same state
    return;
  }
  checkpoint_due_ = true;
  try_checkpoint(ctx);
}

void Process::try_checkpoint(core::ProtocolContext& ctx) {
  if (!checkpoint_due_ || recovery_ != Recovery::none || replacement_ || abandoned_write_ != 0) return;
  core::ProtocolRuntime runtime = ctx.runtime();
  if (stage_ == Stage::running) {
    if (runtime.remaining_tasks() == 0) {
      checkpoint_due_ = false;
      return;
    }
    // Blocking: no task starts, those running finish, every message sent leaves and, under the
    // send rule, is acknowledged (its SPE entry or log entry belongs to this checkpoint).
    stage_ = Stage::draining;
    save_began_ = ctx.now();
    runtime.pause();
  }
  if (stage_ != Stage::draining || !runtime.quiescent()) return;
  if (options_.logging == Logging::send_deterministic) {
    for (const auto& [key, s] : sent_) {
      if (!s.acked && !s.lost) return;
    }
  }
  save(ctx);
}

core::NodeSnapshot Process::saved_snapshot(core::ProtocolContext& ctx) const {
  core::ProtocolRuntime runtime = ctx.runtime();
  core::NodeSnapshot snapshot = runtime.snapshot();
  // The logged versions that later writes have replaced are kept alive by their pins: the
  // checkpoint holds them too (Logs_i, l. 42).
  for (const auto& [key, s] : sent_) {
    const std::uint64_t k = core::VersionStore::key(messages::handle_of(key.second), messages::version_of(key.second));
    if (snapshot.store.count(k)) continue;
    auto it = runtime.versions().find(k);
    if (it == runtime.versions().end()) continue;
    snapshot.store.emplace(k, it->second);
    snapshot.bytes += it->second.bytes;
  }
  return snapshot;
}

void Process::write_tables(core::WireWriter& w) const {
  // The values it restarts with: after the save, the epoch and phase go up (l. 43-45).
  const std::uint32_t phase = options_.logging == Logging::send_deterministic ? phase_ + 1 : phase_;
  w.u32(epoch_ + 1);
  w.u32(phase);
  w.u32(date_);
  w.u32(static_cast<std::uint32_t>(epoch_dates_.size() + 1));
  for (std::uint32_t d : epoch_dates_) w.u32(d);
  w.u32(date_);
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

core::Bytes Process::encode_saved(core::ProtocolContext& ctx, std::uint64_t& bytes, double& charge) {
  const core::NodeSnapshot snapshot = saved_snapshot(ctx);
  core::Bytes out;
  core::WireWriter w(out);
  if (writer_) {
    // /checkpoint_data: the state as a full or incremental image, the tables as they are.
    core::Bytes tables;
    core::WireWriter t(tables);
    write_tables(t);
    content::ImageWriter::Image image = writer_->write(ctx, snapshot, writing_, tables);
    bytes = image.stored_bytes + tables.encoded_size();
    charge = image.charge_seconds;
    return std::move(image.content);
  }
  snapshot.encode(w);
  write_tables(w);
  bytes = snapshot.bytes + out.encoded_size();
  return out;
}

void Process::read_tables(Saved& s, core::WireReader& r) {
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
}

Process::Saved Process::decode_saved(const core::Bytes& content) const {
  core::WireReader r(content);
  Saved s;
  s.snapshot = core::NodeSnapshot::decode(r);
  read_tables(s, r);
  return s;
}

void Process::read_checkpoint(core::ProtocolContext& ctx) {
  fetch_.begin(0);  // a new read: a chain read for an earlier one is void
  pending_install_.reset();
  ctx.storage_read(server(ctx), storage_key(restoring_), kReadBit | ++read_token_);
}

void Process::read_image(core::ProtocolContext& ctx, const core::Bytes& image) {
  // /checkpoint_data: read back from the newest image to the full one, then restored in order.
  if (fetch_.want() == 0) fetch_.begin(restoring_);
  if (const std::uint32_t next = fetch_.add(image)) {
    ctx.storage_read(server(ctx), storage_key(next), kReadBit | ++read_token_);
    return;
  }
  const auto chain = fetch_.chain();
  content::Restored restored = content::read_chain(ctx, *options_.content, chain);
  writer_->adopt(chain);  // its images on storage now
  fetch_.begin(0);
  Saved saved;
  saved.snapshot = std::move(restored.snapshot);
  core::WireReader r(restored.extra);
  read_tables(saved, r);
  if (restored.charge_seconds > 0) {  // decompression takes a core first (a simulation)
    pending_install_ = std::move(saved);
    content::charge(ctx, restored.charge_seconds, kDecodeBit | ++charge_sequence_);
    return;
  }
  install(ctx, std::move(saved), !replacement_);
}

void Process::charged(core::ProtocolContext& ctx, std::uint64_t token) {
  if (!(token & (kEncodeBit | kDecodeBit)) || (token & 0xffffffffu) != charge_sequence_) return;  // stale
  if (token & kEncodeBit) {
    if (!pending_write_) return;
    auto [checkpoint, content] = std::move(*pending_write_);
    pending_write_.reset();
    if (stage_ != Stage::writing || checkpoint != writing_ || abandoned_write_ != 0) return;  // abandoned since
    ctx.storage_write(server(ctx), storage_key(checkpoint), std::move(content), save_bytes_, kWriteBit | checkpoint);
    return;
  }
  if (!pending_install_ || recovery_ != Recovery::restoring) return;
  Saved saved = std::move(*pending_install_);
  pending_install_.reset();
  install(ctx, std::move(saved), !replacement_);
}

void Process::save(core::ProtocolContext& ctx) {
  stage_ = Stage::writing;  // data arriving now waits: it belongs to the next epoch
  writing_ = checkpoints_ + 1;
  progress_ = 0;
  std::uint64_t bytes = 0;
  double charge = 0;
  core::Bytes content = encode_saved(ctx, bytes, charge);
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += bytes;
  save_bytes_ = bytes;
  if (ctx.recording()) ctx.note("checkpoint " + std::to_string(writing_) + " (epoch " + std::to_string(epoch_) + "): " + std::to_string(bytes) + " B to stable storage", "checkpoint");
  if (charge > 0) {
    // /checkpoint_data: hashing and compressing take a core first (a simulation; on MPI they ran).
    pending_write_.emplace(writing_, std::move(content));
    content::charge(ctx, charge, kEncodeBit | ++charge_sequence_);
    return;
  }
  ctx.storage_write(server(ctx), storage_key(writing_), std::move(content), bytes, kWriteBit | writing_);
}

void Process::saved(core::ProtocolContext& ctx) {
  // The state it saved is its state now (nothing happened since: paused, data deferred).
  checkpoints_ = writing_;
  writing_ = 0;
  ctx.record_local_checkpoint(checkpoints_);
  core::CheckpointRecord record;
  record.id = checkpoints_;
  record.process = node_;
  record.started = save_began_;
  record.saved = record.committed = ctx.now();
  record.bytes = save_bytes_;
  ctx.record_checkpoint(record);
  if (ctx.recording()) ctx.record_span("checkpoint " + std::to_string(checkpoints_), "checkpoint", save_began_);
  ++epoch_;
  if (options_.logging == Logging::send_deterministic) ++phase_;
  epoch_dates_.push_back(date_);
  ctx.counters().add(kCheckpoints);
  messages::send(ctx, ctx.coordinator(), messages::Checkpointed{checkpoints_, epoch_});
  stage_ = Stage::running;
  checkpoint_due_ = false;
  ctx.runtime().resume();
  ctx.redeliver_deferred();
  arm_checkpoint_timer(ctx);
  ctx.check_completion();
}

void Process::on_storage_done(core::ProtocolContext& ctx, std::uint64_t token, const core::Bytes* content) {
  if (token & kWriteBit) {
    const auto checkpoint = static_cast<std::uint32_t>(token & 0xffffffffu);
    if (stage_ == Stage::writing && checkpoint == writing_ && abandoned_write_ == 0) {
      saved(ctx);
    } else if (checkpoint == abandoned_write_) {
      // A save a recovery abandoned: not a checkpoint. No save started since (same number).
      ctx.storage_erase(server(ctx), storage_key(checkpoint));
      abandoned_write_ = 0;
      try_checkpoint(ctx);
    }
    return;
  }
  if (!(token & kReadBit) || token != (kReadBit | read_token_) || recovery_ != Recovery::restoring) return;
  if (!content) {
    if (probing_) {  // the checkpoint after the last one the coordinator knew was not written
      probing_ = false;
      if (probe_fallback_ == 0) {
        Saved start;
        start.snapshot = ctx.runtime().initial_snapshot();
        start.epoch = options_.first_epoch[node_];
        start.phase = 1;
        start.date = 1;
        start.epoch_dates = {1};
        restoring_ = 0;
        install(ctx, std::move(start), false);
        return;
      }
      restoring_ = probe_fallback_;
      read_checkpoint(ctx);
      return;
    }
    ctx.fail_run("uncoordinated: checkpoint " + std::to_string(restoring_) + " of node " + std::to_string(node_) +
                 " is not on stable storage (a protocol bug: the recovery line names it)");
    return;
  }
  probing_ = false;
  if (writer_) {
    read_image(ctx, *content);
    return;
  }
  install(ctx, decode_saved(*content), !replacement_);
}

void Process::install(core::ProtocolContext& ctx, Saved saved, bool keep_memory) {
  core::ProtocolRuntime runtime = ctx.runtime();
  const std::uint32_t first = options_.first_epoch[node_];
  const std::uint32_t restart = saved.epoch;
  const std::uint32_t checkpoint = restart - first;
  // What this rollback undoes (a replacement had nothing: the world counts its re-executions).
  core::FailureEffect effect;
  if (!replacement_) {
    const auto local = ctx.index().tasks_of(node_);
    for (std::size_t i = 0; i < local.size(); ++i) {
      if (runtime.status(local[i]) == core::TaskStatus::done && !saved.snapshot.done[i]) {
        ++effect.tasks_reexecuted;
        effect.work_lost_seconds += ctx.task_seconds(local[i]);
      }
    }
    ctx.counters().add(kTasksUndone, effect.tasks_reexecuted);
    ctx.record_failure_effect(cause_, effect);
  }
  // The tables: a live process keeps what it knows of the messages before its restart point
  // (more recent than the checkpoint's copy); a replacement has only the checkpoint's.
  std::map<SentKey, Sent> kept;
  if (keep_memory) {
    for (auto& [key, s] : sent_) {
      if (s.epoch < restart) kept.emplace(key, s);
    }
    std::erase_if(spe_, [&](const auto& e) { return e.first.first >= restart; });
    std::erase_if(receipts_, [&](const Receipt& r) { return r.epoch >= restart; });
    // Its logged versions replaced since the checkpoint are still pinned in memory.
    for (const auto& [key, s] : kept) {
      const std::uint64_t k = core::VersionStore::key(messages::handle_of(key.second), messages::version_of(key.second));
      if (saved.snapshot.store.count(k)) continue;
      auto it = runtime.versions().find(k);
      if (it != runtime.versions().end()) saved.snapshot.store.emplace(k, it->second);
    }
  } else {
    for (auto& [key, s] : saved.log) {
      s.confirmed = false;
      s.lost = !s.acked;  // its acknowledgement went to the process that failed
      kept.emplace(key, s);
    }
    spe_.clear();
    for (const auto& [key, value] : saved.spe) spe_[key] = value;
    receipts_ = std::move(saved.receipts);
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
  // Checkpoints after this one belong to an execution that no longer exists.
  for (std::uint32_t c = checkpoint + 1; c <= checkpoints_; ++c) ctx.storage_erase(server(ctx), storage_key(c));
  if (writer_) {
    // /checkpoint_data: its next image is a full one (the hashes it kept describe a state it left).
    writer_->release_after(checkpoint);
    writer_->restart_chain();
    pending_write_.reset();
  }
  checkpoints_ = checkpoint;
  writing_ = 0;
  epoch_ = restart;
  phase_ = saved.phase;
  date_ = saved.date;
  epoch_dates_ = std::move(saved.epoch_dates);
  rolled_to_start_ = checkpoint == 0;
  runtime.rebuild();  // still paused
  if (ctx.recording()) {
    ctx.note(std::string(replacement_ ? "restored" : "rolled back to") + " checkpoint " + std::to_string(checkpoint) + " (epoch " +
                 std::to_string(restart) + ")", "recovery");
  }
  fresh_ = true;
  if (replacement_ || !line_ || line_->round != round_) {
    // l. 48-52: a replacement back at its last checkpoint reports as restarted; so does a process
    // whose rollback a newer round overtook (its restart is part of the recovery under way).
    replacement_ = false;
    restart_epoch_ = restart;
    recovery_ = Recovery::stopped;
    line_.reset();
    report(ctx);
    return;
  }
  restored(ctx);
}

}  // namespace ftsim::protocols::uncoordinated
