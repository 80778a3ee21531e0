#include "protocols/global/global_recovery.hpp"

#include <stdexcept>
#include <vector>

namespace ftsim::protocols::global {

using namespace messages;

void GlobalRecovery::step(RecoveryEvent event) {
  using S = RecoveryState;
  const S from = state_;
  S to = from;
  bool legal = true;
  switch (event) {
    case RecoveryEvent::notice:
      // A fetch or a decode goes on (see RecoveryState).
      if (from != S::fetching && from != S::decoding) to = S::stopped;
      break;
    case RecoveryEvent::replaced:
      legal = from == S::running;  // a fresh process
      to = S::stopped;
      break;
    case RecoveryEvent::fetch:
    case RecoveryEvent::restore:
      // From any state: RECOVER is obeyed whatever this node did for an older one, and on MPI it
      // may come before the notice (notices and the coordinator's messages use different channels).
      to = event == RecoveryEvent::fetch ? S::fetching : S::restored;
      break;
    case RecoveryEvent::decode:
      legal = from == S::fetching;
      to = S::decoding;
      break;
    case RecoveryEvent::resume:
      // stopped: a notice came after RESTORED, or a replacement whose failure is not detected yet
      // gets the RESUME its predecessor earned (it runs from the initial state until RECOVER).
      legal = from == S::restored || from == S::stopped;
      to = S::running;
      break;
  }
  if (!legal) {
    throw std::logic_error("protocol bug: global recovery: event " + std::to_string(static_cast<int>(event)) +
                           " in state " + std::to_string(static_cast<int>(from)));
  }
  state_ = to;
}

void GlobalRecovery::become(Replacement to) {
  const Replacement from = replacement_;
  const bool legal = (from == Replacement::none && to != Replacement::none) ||  // a replacement starts
                     (from == Replacement::paying_cost && to == Replacement::empty) ||
                     (from == Replacement::empty && to == Replacement::none);  // it restored a state
  if (!legal) {
    throw std::logic_error("protocol bug: global replacement: from " + std::to_string(static_cast<int>(from)) + " to " +
                           std::to_string(static_cast<int>(to)));
  }
  replacement_ = to;
}

void GlobalRecovery::on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) {
  // Stop at once: what runs now will be rolled back. The coordinator says to which checkpoint.
  if (notice.sequence > ctx.epoch()) ctx.set_epoch(notice.sequence);
  if (began_ < 0) began_ = ctx.now();
  ctx.runtime().abort();
  ctx.runtime().pause();
  checkpointer_.abort();
  step(RecoveryEvent::notice);
}

void GlobalRecovery::on_restart(ProtocolContext& ctx, const node::RestartInfo& info) {
  // A replacement holds nothing: it waits for RECOVER, after restart_cost (spawn, reconnection).
  ctx.set_epoch(info.last_sequence);
  ctx.runtime().pause();
  began_ = ctx.now();
  step(RecoveryEvent::replaced);
  // It has no state to save: no checkpoint may commit before it has restored one (its failure
  // may not even be detected yet).
  const double cost = options_.restart_cost;
  become(cost > 0 ? Replacement::paying_cost : Replacement::empty);
  if (cost > 0) ctx.set_timer(cost, kRestartDelayToken);
}

void GlobalRecovery::on_restart_cost_paid(ProtocolContext& ctx) {
  if (replacement_ != Replacement::paying_cost) return;
  become(Replacement::empty);
  if (deferred_recover_) {
    const Control recover = std::move(*deferred_recover_);
    deferred_recover_.reset();
    on_recover(ctx, recover);
  }
}

void GlobalRecovery::on_recover(ProtocolContext& ctx, const Control& c) {
  if (c.epoch < ctx.epoch()) return;  // an older recovery's
  if (replacement_ == Replacement::paying_cost) {
    deferred_recover_ = c;
    return;
  }
  recover(ctx, c.epoch, c.checkpoint, c.cause);
}

void GlobalRecovery::recover(ProtocolContext& ctx, std::uint32_t epoch, std::uint32_t checkpoint,
                             const FailureNotice& cause) {
  ctx.set_epoch(epoch);
  if (began_ < 0) began_ = ctx.now();
  cause_ = cause;
  node::ProtocolRuntime runtime = ctx.runtime();
  runtime.abort();
  runtime.pause();
  checkpointer_.abort();
  pending_restore_.reset();
  rebuilt_ = false;
  restored_from_ = checkpoint;
  if (checkpoint == 0) {
    if (ctx.recording()) ctx.note("epoch " + std::to_string(epoch) + ": restart from the initial state");
    restore(ctx, runtime.initial_snapshot());
    return;
  }
  if (const node::NodeSnapshot* copy = copies_.local_copy(checkpoint)) {
    if (ctx.recording()) ctx.note("epoch " + std::to_string(epoch) + ": restore checkpoint " + std::to_string(checkpoint) + " from the local copy");
    restore(ctx, *copy);
    return;
  }
  if (ctx.recording()) {
    const std::string from = options_.stable_storage ? std::string("stable storage")
                             : options_.levels.empty() || options_.levels[0].storage == LevelStorage::buddy
                                 ? buddy_list(options_, ctx.node())
                             : options_.levels[0].storage == LevelStorage::local ? std::string("its local storage")
                                                                                 : std::string("its XOR set");
    ctx.note("epoch " + std::to_string(epoch) + ": fetch checkpoint " + std::to_string(checkpoint) + " from " + from);
  }
  // A replacement lost its local copy: fetch the one on stable storage or at its buddies, in turn;
  // with levels, from the fastest level the checkpoint is on.
  step(RecoveryEvent::fetch);
  asked_buddy_ = 0;
  if (!options_.levels.empty()) {
    fetch_from_level(ctx, checkpoint, epoch, 0);
  } else if (options_.stable_storage) {
    fetch_.begin(checkpoint);
    ctx.storage_read(storage_server(ctx), checkpoint_key(ctx.node(), checkpoint), kReadTokenBit | epoch);
  } else {
    send(ctx, options_.buddies->buddies(ctx.node())[0], kRestoreRequest, with(checkpoint, epoch));
  }
}

void GlobalRecovery::fetch_from_level(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch, std::size_t first) {
  for (std::size_t i = first; i < options_.levels.size(); ++i) {
    const LevelConfig& level = options_.levels[i];
    if (checkpoint % level.every != 0) continue;
    if (ctx.recording() && first > 0) {
      const std::string how = level.storage == LevelStorage::stable  ? ": read from stable storage"
                              : level.storage == LevelStorage::buddy ? ": ask its " + buddy_list(options_, ctx.node())
                                                                     : ": rebuild it from its XOR set";
      ctx.note("checkpoint " + std::to_string(checkpoint) + " lost at " + level_name(options_.levels[first - 1].storage) + how);
    }
    level_ = i;
    switch (level.storage) {
      case LevelStorage::local:  // its node's own storage: there unless the node failed
        ctx.storage_read(node::kLocalStorage, checkpoint_key(ctx.node(), checkpoint), level_read_token(++read_sequence_));
        return;
      case LevelStorage::buddy:
        asked_buddy_ = 0;
        send(ctx, options_.buddies->buddies(ctx.node())[0], kRestoreRequest, with(checkpoint, epoch));
        return;
      case LevelStorage::xor_group: rebuild_.begin(ctx, checkpoint, epoch); return;
      case LevelStorage::stable:
        ctx.storage_read(storage_server(ctx), checkpoint_key(ctx.node(), checkpoint), level_read_token(++read_sequence_));
        return;
    }
  }
  // Lost at every level it is on (a node and its buddy, or two members of its XOR set, failed
  // together): the whole job must go back further, which only the coordinator can decide.
  if (ctx.recording()) {
    ctx.note("checkpoint " + std::to_string(checkpoint) + " lost at " + level_name(options_.levels[first - 1].storage) +
             (options_.levels.size() == 2 && options_.uses(LevelStorage::stable) ? " and not on stable storage"
                                                                                 : " and on no more durable level") +
             ": tell the coordinator");
  }
  send(ctx, ctx.coordinator(), kLost, with(checkpoint, epoch));
}

void GlobalRecovery::on_xor_pieces(ProtocolContext& ctx, NodeId from, const Control& c) {
  // An answer to an older recovery's rebuild is not this one's, even for the same checkpoint.
  if (c.checkpoint != restoring() || c.epoch != ctx.epoch() || state_ != RecoveryState::fetching) return;
  if (rebuild_.on_pieces(ctx, from, c) != XorRebuild::Answer::complete) return;
  XorRebuild::Result rebuilt = rebuild_.finish(ctx);
  rebuilt_ = true;
  node::WireReader in(rebuilt.data);
  node::NodeSnapshot snapshot = node::NodeSnapshot::decode(in);
  copies_.keep_copy(restoring(), snapshot);
  // The XOR takes a core for the bytes it read (a simulation), as a decompression would.
  pending_restore_ = std::move(snapshot);
  step(RecoveryEvent::decode);
  content::charge(ctx, rebuilt.charge_seconds, kDecodeTokenBit | ++decode_sequence_);
}

void GlobalRecovery::on_xor_not_held(ProtocolContext& ctx, const Control& c) {
  if (c.checkpoint != restoring() || c.epoch != ctx.epoch() || state_ != RecoveryState::fetching) return;
  if (rebuild_.on_not_held(c) == XorRebuild::Answer::lost) fetch_from_level(ctx, c.checkpoint, c.epoch, level_ + 1);
}

void GlobalRecovery::on_storage_read(ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (token & kLevelReadBit) {
    if (token != level_read_token(read_sequence_) || restoring() == 0) return;  // not the read it awaits
  } else if (static_cast<std::uint32_t>(token & kSequenceMask) != ctx.epoch() || restoring() == 0) {
    return;  // an older recovery's
  }
  const std::uint32_t epoch = ctx.epoch();
  if (!content && !options_.levels.empty() && options_.levels[level_].storage == LevelStorage::local) {
    fetch_from_level(ctx, restoring(), epoch, level_ + 1);  // its node failed: the local copy went with it
    return;
  }
  if (!content) {
    ctx.fail_run("unrecoverable: checkpoint " + std::to_string(restoring()) + " of node " + std::to_string(ctx.node()) +
                 " is not on stable storage");
    return;
  }
  if (options_.content) {
    // A chain of images: read back from the newest to the full one, then restored in order.
    if (!content::is_image(*content) || content::read_header(*content).checkpoint != fetch_.want()) return;
    if (const std::uint32_t next = fetch_.add(*content)) {
      ctx.storage_read(storage_server(ctx), checkpoint_key(ctx.node(), next), kReadTokenBit | epoch);
      return;
    }
    const auto chain = fetch_.chain();
    restore_chain(ctx, chain);
    return;
  }
  node::WireReader in(*content);
  node::NodeSnapshot snapshot = node::NodeSnapshot::decode(in);
  copies_.keep_copy(restoring(), snapshot);
  restore(ctx, snapshot);
}

void GlobalRecovery::on_restore_data(ProtocolContext& ctx, const Control& c) {
  if (c.epoch != ctx.epoch() || c.checkpoint != restoring()) return;  // an older recovery's
  if (options_.content) {
    const std::vector<Bytes> images = content::unpack(c.snapshot);
    std::vector<const Bytes*> chain;
    for (const Bytes& image : images) chain.push_back(&image);
    restore_chain(ctx, chain);
    return;
  }
  node::WireReader in(c.snapshot);
  node::NodeSnapshot snapshot = node::NodeSnapshot::decode(in);
  copies_.keep_copy(restoring(), snapshot);
  restore(ctx, snapshot);
}

void GlobalRecovery::on_not_held(ProtocolContext& ctx, const Control& c) {
  if (c.epoch != ctx.epoch() || c.checkpoint != restoring()) return;
  const auto buddies = options_.buddies->buddies(ctx.node());
  if (++asked_buddy_ < buddies.size()) {  // another buddy may still hold a replica
    send(ctx, buddies[asked_buddy_], kRestoreRequest, with(c.checkpoint, c.epoch));
    return;
  }
  if (!options_.levels.empty()) {
    // Levels: the buddies lost it with this node (a node and its buddy failed together): the next
    // level the checkpoint is on, or the coordinator.
    fetch_from_level(ctx, c.checkpoint, c.epoch, level_ + 1);
    return;
  }
  ctx.fail_run("unrecoverable: node " + std::to_string(ctx.node()) + " and its " + buddy_list(options_, ctx.node()) +
               (buddies.size() > 1 ? " all" : " both") + " lost checkpoint " + std::to_string(c.checkpoint) +
               " (more failures than buddy checkpointing can survive)");
}

void GlobalRecovery::restore_chain(ProtocolContext& ctx, std::span<const Bytes* const> chain) {
  content::Restored restored = content::read_chain(ctx, *options_.content, chain);
  copies_.adopt_chain(chain);  // its images on storage now: erased once a newer chain is committed
  copies_.keep_copy(restoring(), restored.snapshot);
  if (restored.charge_seconds > 0) {  // decompression takes a core first (a simulation)
    pending_restore_ = std::move(restored.snapshot);
    step(RecoveryEvent::decode);
    content::charge(ctx, restored.charge_seconds, kDecodeTokenBit | ++decode_sequence_);
    return;
  }
  restore(ctx, restored.snapshot);
}

void GlobalRecovery::on_decoded(ProtocolContext& ctx, std::uint64_t token) {
  if ((token & kSequenceMask) != decode_sequence_) return;  // a stale one (a failure came in between)
  if (pending_restore_ && restoring() != 0) {
    const node::NodeSnapshot snapshot = std::move(*pending_restore_);
    pending_restore_.reset();
    restore(ctx, snapshot);
  }
}

void GlobalRecovery::restore(ProtocolContext& ctx, const node::NodeSnapshot& snapshot) {
  node::ProtocolRuntime runtime = ctx.runtime();
  // Work this rollback throws away: tasks done now that the restored state has not done.
  node::FailureEffect effect;
  effect.processes_rolled_back = 1;
  effect.restart_point = restored_from_ > 0 ? "checkpoint " + std::to_string(restored_from_) : "from scratch";
  const auto local = ctx.index().tasks_of(ctx.node());
  for (std::size_t i = 0; i < local.size(); ++i) {
    if (runtime.status(local[i]) == node::TaskStatus::done && !snapshot.done[i]) {
      ++effect.tasks_reexecuted;
      effect.work_lost_seconds += ctx.task_seconds(local[i]);
    }
  }
  ctx.record_failure_effect(cause_, effect);
  runtime.restore(snapshot);
  step(RecoveryEvent::restore);
  if (replacement_ != Replacement::none) {
    become(Replacement::none);
    // Restored from the buddies or stable storage, it still lacks its parity block of a checkpoint
    // on an XOR level, which a later failure in its set needs (a rebuild made it already).
    if (restored_from_ > 0 && !rebuilt_ && options_.on_level(restored_from_, LevelStorage::xor_group)) {
      rebuild_.request_parity(ctx, restored_from_, ctx.epoch());
    }
  }
  rebuilt_ = false;
  checkpointer_.restored(ctx, restored_from_);
  runtime.rebuild();
  send(ctx, ctx.coordinator(), kRestored, with(restored_from_, ctx.epoch()));
}

void GlobalRecovery::on_resume(ProtocolContext& ctx, const Control& c) {
  if (c.epoch != ctx.epoch()) return;
  if (ctx.recording() && began_ >= 0) ctx.record_span("rollback and restore", "recovery", began_);
  began_ = -1;
  step(RecoveryEvent::resume);
  ctx.runtime().resume();
  if (restored_from_ == 0) ctx.runtime().send_initial_values();
  checkpointer_.resume(ctx);
}

std::string GlobalRecovery::phase() const {
  if (restoring() != 0) return "restoring checkpoint " + std::to_string(restoring());
  if (replacement_ == Replacement::paying_cost) return "restarting (paying the restart cost)";
  return {};
}

}  // namespace ftsim::protocols::global
