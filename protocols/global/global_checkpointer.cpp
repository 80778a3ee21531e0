#include "protocols/global/global_checkpointer.hpp"

#include <stdexcept>

#include "protocols/global/global_messages.hpp"

namespace ftsim::protocols::global {

using namespace messages;

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
  node::ProtocolRuntime runtime = ctx.runtime();
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
  copies_.save(ctx, checkpoint_, ctx.runtime().snapshot());
}

void GlobalCheckpointer::on_ack(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch) {
  if (copies_.on_ack(ctx, checkpoint, epoch)) saved(ctx);
}

void GlobalCheckpointer::on_written(ProtocolContext& ctx, std::uint64_t token) {
  if (copies_.on_written(ctx, token)) saved(ctx);
}

void GlobalCheckpointer::saved(ProtocolContext& ctx) {
  Control done = with(checkpoint_, ctx.epoch());
  done.count = copies_.saved_bytes();
  step(SessionEvent::stored, checkpoint_);
  send(ctx, ctx.coordinator(), kSaved, done);
}

void GlobalCheckpointer::on_commit(ProtocolContext& ctx, std::uint32_t checkpoint) {
  if (ctx.recording()) {
    ctx.record_span("checkpoint " + std::to_string(checkpoint), "checkpoint", began_ >= 0 ? began_ : ctx.now());
  }
  began_ = -1;
  committed_ = checkpoint;
  // Garbage collection: older copies, at the buddy (the keeper's part), here and on storage.
  keeper_.collect(ctx, committed_);
  copies_.collect(ctx, committed_);
  ctx.runtime().resume();
  step(SessionEvent::commit, set_next_cut(ctx));
  try_ready(ctx);
}

void GlobalCheckpointer::abort() {
  began_ = -1;
  copies_.cancel();
  step(SessionEvent::abort);
}

void GlobalCheckpointer::restored(ProtocolContext& ctx, std::uint32_t checkpoint) {
  copies_.restored(checkpoint);
  sent_.clear();
  received_ = 0;
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

}  // namespace ftsim::protocols::global
