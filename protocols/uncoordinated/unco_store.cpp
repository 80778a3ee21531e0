#include "protocols/uncoordinated/unco_store.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ftsim::protocols::uncoordinated {

CheckpointStore::CheckpointStore(const Options& options, node::NodeId node) : options_(options), node_(node) {
  if (options_.content) writer_.emplace(options_.content);
}

void CheckpointStore::transition(ReadState next) {
  bool legal = false;
  switch (state_) {
    case ReadState::idle: legal = next == ReadState::probing || next == ReadState::reading; break;
    case ReadState::probing: legal = next == ReadState::reading || next == ReadState::idle; break;  // idle: nothing was written
    case ReadState::reading: legal = next == ReadState::decoding || next == ReadState::idle; break;
    case ReadState::decoding: legal = next == ReadState::idle; break;
  }
  if (!legal) {
    throw std::logic_error("uncoordinated: protocol bug: node " + std::to_string(node_) + " checkpoint read " +
                           std::to_string(int(state_)) + " -> " + std::to_string(int(next)));
  }
  state_ = next;
}

// ----------------------------------------------------------------------------- writes

CheckpointStore::Encoded CheckpointStore::encode(node::ProtocolContext& ctx, std::uint32_t checkpoint, const node::NodeSnapshot& snapshot,
                                                 const node::Bytes& tables) {
  Encoded out;
  if (writer_) {
    // /checkpoint_data: the state as a full or incremental image, the tables as they are.
    content::ImageWriter::Image image = writer_->write(ctx, snapshot, checkpoint, tables);
    out.bytes = image.stored_bytes + tables.encoded_size();
    out.charge = image.charge_seconds;
    out.content = std::move(image.content);
    return out;
  }
  node::WireWriter w(out.content);
  snapshot.encode(w);
  out.content.insert(out.content.end(), tables.begin(), tables.end());
  out.content.content_bytes += tables.content_bytes;
  out.bytes = snapshot.bytes + out.content.encoded_size();
  return out;
}

void CheckpointStore::write(node::ProtocolContext& ctx, std::uint32_t checkpoint, node::Bytes content, std::uint64_t bytes, double charge) {
  if (charge > 0) {
    // /checkpoint_data: hashing and compressing take a core first (a simulation; on MPI they ran).
    pending_write_.emplace(checkpoint, std::move(content));
    content::charge(ctx, charge, kEncodeBit | ++charge_sequence_);
    return;
  }
  ctx.storage_write(server(ctx), key(checkpoint), std::move(content), bytes, kWriteBit | checkpoint);
}

std::optional<std::pair<std::uint32_t, node::Bytes>> CheckpointStore::take_encoded() {
  if (!pending_write_) return std::nullopt;
  auto image = std::move(*pending_write_);
  pending_write_.reset();
  return image;
}

void CheckpointStore::abandon(std::uint32_t checkpoints) {
  pending_write_.reset();  // still encoding, nothing written: nothing to erase
  if (writer_) {
    // /checkpoint_data: the abandoned image is no checkpoint: the next one is full.
    writer_->release_after(checkpoints);
    writer_->restart_chain();
  }
}

void CheckpointStore::erase(node::ProtocolContext& ctx, std::uint32_t checkpoint) { ctx.storage_erase(server(ctx), key(checkpoint)); }

void CheckpointStore::restored(node::ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t checkpoints) {
  for (std::uint32_t c = checkpoint + 1; c <= checkpoints; ++c) ctx.storage_erase(server(ctx), key(c));
  if (writer_) {
    // /checkpoint_data: its next image is a full one (the hashes it kept describe a state it left).
    writer_->release_after(checkpoint);
    writer_->restart_chain();
    pending_write_.reset();
  }
}

bool CheckpointStore::collect(node::ProtocolContext& ctx, std::uint32_t floor, std::uint32_t checkpoints) {
  // Checkpoints that start an earlier epoch can go.
  if (floor <= floor_) return false;
  const std::uint32_t first = options_.first_epoch[node_];
  if (writer_) {
    // /checkpoint_data: the oldest checkpoint a restart may use keeps its chain (its full image
    // and the incrementals after it); the images before that chain go.
    if (floor > first && floor - first <= checkpoints) {
      for (std::uint32_t c : writer_->release_before(floor - first)) ctx.storage_erase(server(ctx), key(c));
    }
  } else {
    for (std::uint32_t c = std::max<std::uint32_t>(1, floor_ > first ? floor_ - first : 1); first + c < floor && c <= checkpoints; ++c) {
      ctx.storage_erase(server(ctx), key(c));
    }
  }
  floor_ = floor;
  return true;
}

// ----------------------------------------------------------------------------- reads

void CheckpointStore::read(node::ProtocolContext& ctx, std::uint32_t checkpoint) {
  transition(ReadState::reading);
  reading_ = checkpoint;
  start_read(ctx);
}

void CheckpointStore::probe(node::ProtocolContext& ctx, std::uint32_t latest) {
  transition(ReadState::probing);
  probe_fallback_ = latest;
  reading_ = latest + 1;
  start_read(ctx);
}

void CheckpointStore::start_read(node::ProtocolContext& ctx) {
  fetch_.begin(0);  // a new read: a chain read for an earlier one is void
  pending_install_.reset();
  ctx.storage_read(server(ctx), key(reading_), kReadBit | ++read_token_);
}

std::optional<Saved> CheckpointStore::on_read(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (token != (kReadBit | read_token_)) return std::nullopt;
  if (!content) {
    if (state_ == ReadState::probing) {  // the checkpoint after the last one the coordinator knew was not written
      if (probe_fallback_ == 0) {
        transition(ReadState::idle);
        reading_ = 0;
        return Saved{ctx.runtime().initial_snapshot(), Tables::start(options_.first_epoch[node_])};
      }
      transition(ReadState::reading);
      reading_ = probe_fallback_;
      start_read(ctx);
      return std::nullopt;
    }
    ctx.fail_run("uncoordinated: checkpoint " + std::to_string(reading_) + " of node " + std::to_string(node_) +
                 " is not on stable storage (a protocol bug: the recovery line names it)");
    return std::nullopt;
  }
  if (state_ == ReadState::probing) transition(ReadState::reading);
  if (writer_) return read_image(ctx, *content);
  node::WireReader r(*content);
  Saved saved;
  saved.snapshot = node::NodeSnapshot::decode(r);
  saved.tables = Tables::read(r);
  transition(ReadState::idle);
  return saved;
}

std::optional<Saved> CheckpointStore::read_image(node::ProtocolContext& ctx, const node::Bytes& image) {
  // /checkpoint_data: read back from the newest image to the full one, then restored in order.
  if (fetch_.want() == 0) fetch_.begin(reading_);
  if (const std::uint32_t next = fetch_.add(image)) {
    ctx.storage_read(server(ctx), key(next), kReadBit | ++read_token_);
    return std::nullopt;
  }
  const auto chain = fetch_.chain();
  content::Restored restored = content::read_chain(ctx, *options_.content, chain);
  writer_->adopt(chain);  // its images on storage now
  fetch_.begin(0);
  Saved saved;
  saved.snapshot = std::move(restored.snapshot);
  node::WireReader r(restored.extra);
  saved.tables = Tables::read(r);
  if (restored.charge_seconds > 0) {  // decompression takes a core first (a simulation)
    transition(ReadState::decoding);
    pending_install_ = std::move(saved);
    content::charge(ctx, restored.charge_seconds, kDecodeBit | ++charge_sequence_);
    return std::nullopt;
  }
  transition(ReadState::idle);
  return saved;
}

std::optional<Saved> CheckpointStore::take_decoded() {
  if (!pending_install_) return std::nullopt;
  Saved saved = std::move(*pending_install_);
  pending_install_.reset();
  transition(ReadState::idle);
  return saved;
}

CheckpointStore::Charge CheckpointStore::charge_done(std::uint64_t token) const {
  if (!is_charge(token) || (token & 0xffffffffu) != charge_sequence_) return Charge::stale;
  return (token & kEncodeBit) ? Charge::encoded : Charge::decoded;
}

}  // namespace ftsim::protocols::uncoordinated
