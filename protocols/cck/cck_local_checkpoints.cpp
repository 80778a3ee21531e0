#include "protocols/cck/cck_local_checkpoints.hpp"

#include <algorithm>
#include <string>

#include "protocols/cck/cck_post.hpp"

namespace ftsim::protocols::cck {

LocalCheckpoints::LocalCheckpoints(const CckOptions& options, NodeId self, bool node) : options_(options), self_(self) {
  if (options_.content && node) writer_.emplace(options_.content);
}

void LocalCheckpoints::advance_valid(node::ProtocolContext& ctx, std::uint32_t valid) {
  // Checkpoints older than the last valid one are of no use any more (the coordinator erases
  // their server copies).
  valid_ = std::max(valid_, valid);
  for (auto it = copies_.begin(); it != copies_.end();) it = it->first < valid_ ? copies_.erase(it) : std::next(it);
  if (writer_ && valid_ > 0) {
    // /checkpoint_data: its images before the valid checkpoint's chain serve no restore any more
    // (the coordinator erases only the aborted ones: it does not know the chains).
    for (std::uint32_t id : writer_->release_before(valid_)) ctx.storage_erase(self_ % options_.servers, checkpoint_key(self_, id));
  }
}

void LocalCheckpoints::restart_from(std::uint32_t checkpoint) {
  valid_ = checkpoint;
  for (auto it = copies_.begin(); it != copies_.end();) it = it->first != valid_ ? copies_.erase(it) : std::next(it);
  if (writer_) {
    writer_->restart_chain();
    decoded_.reset();
    fetch_.begin(0);
  }
}

LocalCheckpoints::Encoded LocalCheckpoints::encode(node::ProtocolContext& ctx, const node::NodeSnapshot& snapshot,
                                                   std::uint32_t checkpoint) {
  Encoded out;
  out.bytes = snapshot.bytes;
  if (writer_) {
    // /checkpoint_data: a full or incremental image, smaller (zero blocks, changed blocks, zstd).
    content::ImageWriter::Image image = writer_->write(ctx, snapshot, checkpoint);
    out.bytes = image.stored_bytes;
    out.charge_seconds = image.charge_seconds;
    out.content = std::move(image.content);
  } else {
    node::WireWriter writer(out.content);
    snapshot.encode(writer);
  }
  return out;
}

void LocalCheckpoints::write(node::ProtocolContext& ctx, std::uint32_t checkpoint, node::Bytes content,
                             std::uint64_t bytes) {
  ctx.storage_write(self_ % options_.servers, checkpoint_key(self_, checkpoint), std::move(content), bytes, checkpoint);
}

void LocalCheckpoints::abandon_image() {
  if (writer_) writer_->restart_chain();
}

void LocalCheckpoints::request(node::ProtocolContext& ctx, std::uint32_t checkpoint) {
  ctx.storage_read(self_ % options_.servers, checkpoint_key(self_, checkpoint), kReadToken | checkpoint);
}

std::optional<node::NodeSnapshot> LocalCheckpoints::read_back(node::ProtocolContext& ctx, const node::Bytes& content,
                                                              std::uint32_t checkpoint) {
  if (!writer_) {
    node::WireReader in(content);
    return node::NodeSnapshot::decode(in);
  }
  // /checkpoint_data: read back from the newest image to the full one, then restored in order.
  if (fetch_.want() == 0) fetch_.begin(checkpoint);
  if (!content::is_image(content) || content::read_header(content).checkpoint != fetch_.want()) return std::nullopt;  // an older round's
  if (const std::uint32_t next = fetch_.add(content)) {  // answered with K's token too
    ctx.storage_read(self_ % options_.servers, checkpoint_key(self_, next), kReadToken | checkpoint);
    return std::nullopt;
  }
  const auto chain = fetch_.chain();
  content::Restored restored = content::read_chain(ctx, *options_.content, chain);
  writer_->adopt(chain);  // its images on the server now: erased once a newer chain is valid
  fetch_.begin(0);
  if (restored.charge_seconds > 0) {  // decompression takes a core first (a simulation)
    decoded_ = std::move(restored.snapshot);
    charge(ctx, restored.charge_seconds, kDecodeToken);
    return std::nullopt;
  }
  return std::move(restored.snapshot);
}

std::optional<node::NodeSnapshot> LocalCheckpoints::take_decoded() {
  std::optional<node::NodeSnapshot> out = std::move(decoded_);
  decoded_.reset();
  return out;
}

void LocalCheckpoints::charge(node::ProtocolContext& ctx, double seconds, std::uint64_t kind) {
  content::charge(ctx, seconds, kind | ++charge_sequence_);
}

}  // namespace ftsim::protocols::cck
