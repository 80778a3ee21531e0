#include "protocols/global/global_copies.hpp"

#include <iterator>
#include <stdexcept>
#include <string>

#include "protocols/global/global_messages.hpp"
#include "protocols/global/global_xor.hpp"

namespace ftsim::protocols::global {

using namespace messages;

GlobalCopies::GlobalCopies(const GlobalOptions& options) : options_(options) {
  if (options_.content) writer_.emplace(options_.content);
}

void GlobalCopies::step(CopyState to) {
  const CopyState from = state_;
  bool legal = false;
  switch (to) {
    case CopyState::encoding: legal = from == CopyState::idle; break;
    case CopyState::sent: legal = from == CopyState::idle || from == CopyState::encoding; break;
    case CopyState::idle:  // acknowledged (sent), or cancelled by a failure (any)
      legal = true;
      break;
  }
  if (!legal) {
    throw std::logic_error("protocol bug: global copies: no transition from state " +
                           std::to_string(static_cast<int>(from)) + " to " + std::to_string(static_cast<int>(to)));
  }
  state_ = to;
  if (to == CopyState::idle) {
    checkpoint_ = 0;
    pending_.reset();
  }
}

void GlobalCopies::save(ProtocolContext& ctx, std::uint32_t checkpoint, node::NodeSnapshot snapshot) {
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
    node::WireWriter out(content);
    snapshot.encode(out);
  }
  local_[checkpoint] = std::move(snapshot);
  ctx.record_local_checkpoint(checkpoint);
  saved_bytes_ = bytes;
  if (ctx.recording()) {
    ctx.note("save checkpoint " + std::to_string(checkpoint) + " (" + std::to_string(bytes) + " B) to " + destinations(checkpoint, ctx.node()));
  }
  ++ctx.counters().cp_data_normal_count;
  ctx.counters().cp_data_normal_total_size += bytes;
  checkpoint_ = checkpoint;
  pending_ = Pending{std::move(content), bytes};
  if (charge > 0) {
    // Hashing and compressing take a core of the node first (a simulation; on MPI they ran).
    step(CopyState::encoding);
    content::charge(ctx, charge, kEncodeTokenBit | ++encode_sequence_);
    return;
  }
  step(CopyState::sent);
  send(ctx);
}

void GlobalCopies::on_encoded(ProtocolContext& ctx, std::uint64_t token) {
  // A stale one (a failure came in between), or the save is over.
  if ((token & kSequenceMask) != encode_sequence_ || state_ != CopyState::encoding) return;
  step(CopyState::sent);
  send(ctx);
}

std::string GlobalCopies::destinations(std::uint32_t checkpoint, NodeId node) const {
  if (options_.stable_storage) return "stable storage";
  std::string text;
  const auto add = [&](const std::string& where) { text += (text.empty() ? "" : " and ") + where; };
  if (options_.on_level(checkpoint, LevelStorage::local)) add("its local storage");
  if (options_.on_level(checkpoint, LevelStorage::buddy)) add(buddy_list(options_, node));
  if (options_.on_level(checkpoint, LevelStorage::xor_group)) add("its XOR set");
  if (options_.on_stable(checkpoint)) add("stable storage");
  return text;
}

void GlobalCopies::send(ProtocolContext& ctx) {
  Pending save = std::move(*pending_);
  pending_.reset();
  if (options_.stable_storage) {
    acks_missing_ = 1;
    ctx.storage_write(storage_server(ctx), checkpoint_key(ctx.node(), checkpoint_), std::move(save.content), save.bytes,
                      write_token(checkpoint_, ctx.epoch()));
    return;
  }
  // Every buddy keeps a copy (several buddies replicate it); with levels, every stable_every-th
  // goes to stable storage too, and those on an XOR level to its set. Saved once all acknowledged.
  const bool buddy = options_.on_level(checkpoint_, LevelStorage::buddy);
  const auto buddies = buddy ? options_.buddies->buddies(ctx.node()) : std::span<const NodeId>{};
  const bool stable = options_.on_stable(checkpoint_);
  const bool local = options_.on_level(checkpoint_, LevelStorage::local);
  acks_missing_ = static_cast<std::uint32_t>(buddies.size()) + (stable ? 1 : 0) + (local ? 1 : 0);
  if (local) {  // the node's own disk: no network, and it survives a process failure only
    ctx.storage_write(node::kLocalStorage, checkpoint_key(ctx.node(), checkpoint_), save.content, save.bytes,
                      write_token(checkpoint_, ctx.epoch()));
  }
  if (stable) {
    ctx.storage_write(storage_server(ctx), checkpoint_key(ctx.node(), checkpoint_), save.content, save.bytes,
                      write_token(checkpoint_, ctx.epoch()));
  }
  if (options_.on_level(checkpoint_, LevelStorage::xor_group)) {
    acks_missing_ += send_xor_blocks(ctx, options_, checkpoint_, save.content, save.bytes);
  }
  if (buddies.empty()) return;
  Control data = with(checkpoint_, ctx.epoch());
  data.count = save.bytes;
  data.snapshot = std::move(save.content);
  for (NodeId buddy_node : buddies) messages::send(ctx, buddy_node, kCheckpointData, data, node::Traffic::checkpoint, save.bytes);
}

bool GlobalCopies::on_ack(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch) {
  if (state_ == CopyState::idle || checkpoint != checkpoint_ || epoch != ctx.epoch() || --acks_missing_ != 0) return false;
  step(CopyState::idle);
  return true;
}

bool GlobalCopies::on_written(ProtocolContext& ctx, std::uint64_t token) {
  // A write of the same checkpoint number from before a rollback (storage may still be writing it)
  // is not this one: its epoch is older.
  if (state_ == CopyState::idle || write_token(checkpoint_, ctx.epoch()) != token || --acks_missing_ != 0) return false;
  step(CopyState::idle);
  return true;
}

void GlobalCopies::cancel() { step(CopyState::idle); }

void GlobalCopies::collect(ProtocolContext& ctx, std::uint32_t committed) {
  drop_local_before(committed);
  // A local level: the copy before the one just committed (a fallback goes to a more durable level).
  if (options_.on_level(committed, LevelStorage::local) && committed > 1) {
    ctx.storage_erase(node::kLocalStorage, checkpoint_key(ctx.node(), committed - 1));
  }
  if (options_.stable_every > 0) {
    // Levels: the stable copy before the one just committed, if this one is on stable storage.
    if (options_.on_stable(committed) && committed > options_.stable_every) {
      ctx.storage_erase(storage_server(ctx), checkpoint_key(ctx.node(), committed - options_.stable_every));
    }
    return;
  }
  if (!options_.stable_storage) return;
  if (writer_) {
    // /checkpoint_data: its images before the committed checkpoint's chain.
    for (std::uint32_t id : writer_->release_before(committed)) {
      ctx.storage_erase(storage_server(ctx), checkpoint_key(ctx.node(), id));
    }
  } else if (committed > 1) {
    ctx.storage_erase(storage_server(ctx), checkpoint_key(ctx.node(), committed - 1));
  }
}

const node::NodeSnapshot* GlobalCopies::local_copy(std::uint32_t checkpoint) const {
  const auto it = local_.find(checkpoint);
  return it == local_.end() ? nullptr : &it->second;
}

void GlobalCopies::adopt_chain(std::span<const Bytes* const> chain) { writer_->adopt(chain); }

void GlobalCopies::restored(std::uint32_t checkpoint) {
  // Its next image is a full one: the hashes it kept describe a state it has left.
  if (writer_) writer_->restart_chain();
  drop_local_before(checkpoint);
}

void GlobalCopies::drop_local_before(std::uint32_t checkpoint) {
  // With levels the latest copy on each more durable level stays too: a failure a level cannot
  // repair rolls every node back to it.
  for (auto it = local_.begin(); it != local_.end();) {
    it = it->first < checkpoint && !options_.keep_for_fallback(it->first, checkpoint) ? local_.erase(it) : std::next(it);
  }
}

}  // namespace ftsim::protocols::global
