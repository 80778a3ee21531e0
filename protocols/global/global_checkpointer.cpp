#include "protocols/global/global_checkpointer.hpp"

#include <iterator>
#include <stdexcept>

#include "protocols/global/global_messages.hpp"

namespace ftsim::protocols {

using namespace global_messages;

GlobalCheckpointer::GlobalCheckpointer(const GlobalOptions& options, GlobalKeeper& keeper)
    : options_(options), keeper_(keeper) {
  if (options_.content) writer_.emplace(options_.content);
}

void GlobalCheckpointer::step(SessionEvent event, std::uint32_t checkpoint) {
  using S = SessionState;
  const S from = state_;
  S to = from;
  bool legal = false;
  switch (event) {
    case SessionEvent::request:
      legal = from == S::idle;
      to = S::armed;
      break;
    case SessionEvent::next_cut:
      legal = from == S::idle;
      to = checkpoint != 0 ? S::armed : S::idle;
      break;
    case SessionEvent::ready_sent:
      legal = from == S::armed;
      to = S::ready;
      break;
    case SessionEvent::save:
      // idle: a notice of a failure this node already recovered from (on MPI, notices and the
      // coordinator's messages come by different channels) reset the session after its READY.
      legal = from == S::ready || from == S::idle;
      to = S::flushing;
      break;
    case SessionEvent::flushed:
      legal = from == S::flushing;
      to = S::saving;
      break;
    case SessionEvent::stored:
      legal = from == S::saving;
      to = S::saved;
      break;
    case SessionEvent::commit:
      // idle: as for save, or a replacement whose failure is not detected yet gets the COMMIT its
      // predecessor's SAVED earned.
      legal = from == S::saved || from == S::idle;
      to = checkpoint != 0 ? S::armed : S::idle;
      break;
    case SessionEvent::abort:
      legal = true;
      to = S::idle;
      break;
    case SessionEvent::restored:
      legal = from == S::idle;  // the recovery aborted the session first
      to = S::idle;
      break;
  }
  if (!legal) {
    throw std::logic_error("protocol bug: global checkpoint session: event " + std::to_string(static_cast<int>(event)) +
                           " in state " + std::to_string(static_cast<int>(from)));
  }
  state_ = to;
  checkpoint_ = to == S::idle ? 0 : checkpoint;
}

std::uint32_t GlobalCheckpointer::set_next_cut(ProtocolContext& ctx) {
  if (!options_.at_cuts) return 0;
  const std::uint32_t next = committed_ + 1;
  if (next <= options_.cut_positions.size()) {
    ctx.runtime().set_task_limit(options_.cut_positions[next - 1]);
    return next;
  }
  ctx.runtime().set_task_limit(graphs::kNone);
  return 0;
}

void GlobalCheckpointer::on_start(ProtocolContext& ctx) {
  step(SessionEvent::next_cut, set_next_cut(ctx));
  try_ready(ctx);
}

void GlobalCheckpointer::try_ready(ProtocolContext& ctx) {
  if (state_ != SessionState::armed) return;
  core::ProtocolRuntime runtime = ctx.runtime();
  // Nothing running and every message sent released: its outgoing channels hold all it sent.
  if (!runtime.quiescent()) return;
  if (options_.at_cuts && !runtime.done_before(runtime.task_limit())) return;
  if (options_.at_cuts) began_ = ctx.now();  // the node reached the cut
  Control ready = with(checkpoint_, ctx.epoch());
  ready.sent.assign(sent_.begin(), sent_.end());
  send(ctx, ctx.coordinator(), kReady, ready);
  step(SessionEvent::ready_sent, checkpoint_);
}

void GlobalCheckpointer::on_data_released(ProtocolContext& ctx) {
  if (state_ == SessionState::armed) try_ready(ctx);
}

void GlobalCheckpointer::on_stored(ProtocolContext& ctx) {
  if (state_ == SessionState::flushing) maybe_save(ctx);
}

void GlobalCheckpointer::on_request(ProtocolContext& ctx, std::uint32_t checkpoint) {
  began_ = ctx.now();
  ctx.runtime().pause();
  step(SessionEvent::request, checkpoint);
  try_ready(ctx);
}

void GlobalCheckpointer::on_save(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint64_t expected_received) {
  step(SessionEvent::save, checkpoint);
  expected_received_ = expected_received;
  maybe_save(ctx);
}

void GlobalCheckpointer::maybe_save(ProtocolContext& ctx) {
  // The flush: every data message sent to this node before the others stopped has arrived.
  if (state_ != SessionState::flushing || received_ < expected_received_) return;
  step(SessionEvent::flushed, checkpoint_);
  save(ctx);
}

void GlobalCheckpointer::save(ProtocolContext& ctx) {
  const std::uint32_t checkpoint = checkpoint_;
  core::NodeSnapshot snapshot = ctx.runtime().snapshot();
  std::uint64_t bytes = snapshot.bytes;
  Bytes content;
  double charge = 0;
  if (writer_) {
    // /checkpoint_data: a full or incremental image, smaller (zero blocks, changed blocks, zstd).
    content::ImageWriter::Image image = writer_->write(ctx, snapshot, checkpoint);
    bytes = image.stored_bytes;
    charge = image.charge_seconds;
    content = std::move(image.content);
  } else {
    core::WireWriter out(content);
    snapshot.encode(out);
  }
  local_[checkpoint] = std::move(snapshot);
  ctx.record_local_checkpoint(checkpoint);
  saved_bytes_ = bytes;
  if (ctx.recording()) {
    ctx.note("save checkpoint " + std::to_string(checkpoint) + " (" + std::to_string(bytes) + " B) to " +
             (options_.stable_storage ? std::string("stable storage") : buddy_list(options_, ctx.node())));
  }
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += bytes;
  pending_save_ = PendingSave{checkpoint, std::move(content), bytes};
  if (charge > 0) {
    // Hashing and compressing take a core of the node first (a simulation; on MPI they ran).
    content::charge(ctx, charge, kEncodeTokenBit | ++encode_sequence_);
    return;
  }
  send_saved(ctx);
}

void GlobalCheckpointer::on_encoded(ProtocolContext& ctx, std::uint64_t token) {
  if ((token & kSequenceMask) != encode_sequence_) return;  // a stale one (a failure came in between)
  send_saved(ctx);
}

void GlobalCheckpointer::send_saved(ProtocolContext& ctx) {
  if (!pending_save_) return;
  PendingSave save = std::move(*pending_save_);
  pending_save_.reset();
  if (save.checkpoint != saving()) return;  // a failure interrupted it
  if (options_.stable_storage) {
    ctx.storage_write(storage_server(ctx), checkpoint_key(ctx.node(), save.checkpoint), std::move(save.content),
                      save.bytes, save.checkpoint);
  } else {
    // Every buddy keeps a copy (several buddies replicate it); saved once all acknowledged.
    Control data = with(save.checkpoint, ctx.epoch());
    data.count = save.bytes;
    data.snapshot = std::move(save.content);
    const auto buddies = options_.buddies->buddies(ctx.node());
    acks_missing_ = static_cast<std::uint32_t>(buddies.size());
    for (NodeId buddy : buddies) send(ctx, buddy, kCheckpointData, data, core::Traffic::checkpoint, save.bytes);
  }
}

void GlobalCheckpointer::on_ack(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch) {
  if (checkpoint == saving() && epoch == ctx.epoch() && --acks_missing_ == 0) saved(ctx);
}

void GlobalCheckpointer::on_written(ProtocolContext& ctx, std::uint32_t checkpoint) {
  if (checkpoint == saving()) saved(ctx);
}

void GlobalCheckpointer::saved(ProtocolContext& ctx) {
  Control done = with(checkpoint_, ctx.epoch());
  done.count = saved_bytes_;
  step(SessionEvent::stored, checkpoint_);
  send(ctx, ctx.coordinator(), kSaved, done);
}

void GlobalCheckpointer::on_commit(ProtocolContext& ctx, std::uint32_t checkpoint) {
  if (ctx.recording()) {
    ctx.record_span("checkpoint " + std::to_string(checkpoint), "checkpoint", began_ >= 0 ? began_ : ctx.now());
  }
  began_ = -1;
  committed_ = checkpoint;
  // Garbage collection: older copies, here, at the buddy (the keeper's part) and on storage.
  for (auto it = local_.begin(); it != local_.end();) it = it->first < committed_ ? local_.erase(it) : std::next(it);
  keeper_.collect(ctx, committed_);
  erase_stored_images(ctx);
  ctx.runtime().resume();
  step(SessionEvent::commit, set_next_cut(ctx));
  try_ready(ctx);
}

void GlobalCheckpointer::erase_stored_images(ProtocolContext& ctx) {
  if (!options_.stable_storage) return;
  if (writer_) {
    // /checkpoint_data: its images before the committed checkpoint's chain.
    for (std::uint32_t id : writer_->release_before(committed_)) {
      ctx.storage_erase(storage_server(ctx), checkpoint_key(ctx.node(), id));
    }
  } else if (committed_ > 1) {
    ctx.storage_erase(storage_server(ctx), checkpoint_key(ctx.node(), committed_ - 1));
  }
}

void GlobalCheckpointer::abort() {
  began_ = -1;
  pending_save_.reset();
  step(SessionEvent::abort);
}

const core::NodeSnapshot* GlobalCheckpointer::local_copy(std::uint32_t checkpoint) const {
  const auto it = local_.find(checkpoint);
  return it == local_.end() ? nullptr : &it->second;
}

void GlobalCheckpointer::adopt_chain(std::span<const Bytes* const> chain) { writer_->adopt(chain); }

void GlobalCheckpointer::restored(ProtocolContext& ctx, std::uint32_t checkpoint) {
  // Its next image is a full one: the hashes it kept describe a state it has left.
  if (writer_) writer_->restart_chain();
  sent_.clear();
  received_ = 0;
  // Copies older than the restored checkpoint are of no use any more.
  for (auto it = local_.begin(); it != local_.end();) it = it->first < checkpoint ? local_.erase(it) : std::next(it);
  committed_ = checkpoint;
  set_next_cut(ctx);  // READY for the next cut only after the coordinator resumes everyone
  step(SessionEvent::restored);
}

void GlobalCheckpointer::resume(ProtocolContext& ctx) {
  step(SessionEvent::next_cut, set_next_cut(ctx));
  try_ready(ctx);
}

std::string GlobalCheckpointer::phase() const {
  const std::string k = std::to_string(checkpoint_);
  switch (state_) {
    case SessionState::saving: return "checkpoint " + k + ": saved, waiting for its acknowledgements";
    case SessionState::flushing: return "checkpoint " + k + ": flushing its channels before the save";
    case SessionState::armed: return "checkpoint " + k + ": paused, waiting for SAVE";
    default: return {};
  }
}

}  // namespace ftsim::protocols
