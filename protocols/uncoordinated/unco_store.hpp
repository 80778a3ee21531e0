#pragma once
// An application process's checkpoints on stable storage (Fig. 3 l. 42): written as they are, or
// as the images of /checkpoint_data (a chain of a full image and incrementals, whose hashing and
// compression, and decompression on the way back, take CPU time first), read back, erased. It
// knows nothing of when a checkpoint is taken or why one is read: the checkpointer writes, the
// recovery reads. The tokens of its requests and charges are its own.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>

#include "protocols/uncoordinated/unco_options.hpp"
#include "protocols/uncoordinated/unco_tables.hpp"

namespace ftsim::protocols::uncoordinated {

// Where the read of a checkpoint is.
enum class ReadState : std::uint8_t {
  idle,
  probing,   // a replacement's first read: the checkpoint after the last one the coordinator knew (maybe never written)
  reading,   // a checkpoint, or its chain of images from the newest back
  decoding,  // /checkpoint_data: the chain is read, its decompression charged
};

class CheckpointStore {
public:
  CheckpointStore(const Options& options, node::NodeId node);

  // --- writes ---
  struct Encoded {
    node::Bytes content;
    std::uint64_t bytes = 0;  // what stable storage receives
    double charge = 0;        // /checkpoint_data: CPU seconds before it is written
  };
  Encoded encode(node::ProtocolContext& ctx, std::uint32_t checkpoint, const node::NodeSnapshot& snapshot, const node::Bytes& tables);
  // Writes `content` (after `charge` seconds of a core: take_encoded() then gives it back).
  void write(node::ProtocolContext& ctx, std::uint32_t checkpoint, node::Bytes content, std::uint64_t bytes, double charge);
  std::optional<std::pair<std::uint32_t, node::Bytes>> take_encoded();
  // A save abandoned: nothing more of it is written, and the next image is a full one.
  void abandon(std::uint32_t checkpoints);
  void erase(node::ProtocolContext& ctx, std::uint32_t checkpoint);
  // Restored to `checkpoint`: the later ones (up to `checkpoints`) belong to an execution that
  // no longer exists.
  void restored(node::ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t checkpoints);
  // §III-A.4: the checkpoints no restart can use below the smallest epoch go; false if `floor`
  // is no news.
  bool collect(node::ProtocolContext& ctx, std::uint32_t floor, std::uint32_t checkpoints);

  // --- reads ---
  void read(node::ProtocolContext& ctx, std::uint32_t checkpoint);
  // A replacement's last checkpoint: the coordinator may not know the very last one yet.
  void probe(node::ProtocolContext& ctx, std::uint32_t latest);
  // A read done: the checkpoint once it is all read (and not charged), the job's input if a
  // probe found nothing to fall back on; none otherwise (more to read, a charge, a stale token).
  std::optional<Saved> on_read(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content);
  std::optional<Saved> take_decoded();  // the checkpoint whose decompression was charged
  std::uint32_t reading() const { return reading_; }

  // --- tokens ---
  enum class Charge : std::uint8_t { stale, encoded, decoded };
  Charge charge_done(std::uint64_t token) const;
  static bool is_charge(std::uint64_t token) { return (token & (kEncodeBit | kDecodeBit)) != 0; }
  static bool is_write(std::uint64_t token) { return (token & kWriteBit) != 0; }
  static std::uint32_t written(std::uint64_t token) { return static_cast<std::uint32_t>(token & 0xffffffffu); }

private:
  static constexpr std::uint64_t kWriteBit = 1ull << 61;
  static constexpr std::uint64_t kReadBit = 1ull << 60;
  // /checkpoint_data: the CPU time of encoding an image / decoding a chain (+ a sequence number).
  static constexpr std::uint64_t kEncodeBit = 1ull << 59;
  static constexpr std::uint64_t kDecodeBit = 1ull << 58;

  void transition(ReadState next);
  void start_read(node::ProtocolContext& ctx);  // reading_, from storage
  std::optional<Saved> read_image(node::ProtocolContext& ctx, const node::Bytes& image);
  std::uint64_t key(std::uint32_t checkpoint) const { return (std::uint64_t(node_) << 32) | checkpoint; }
  std::uint32_t server(node::ProtocolContext& ctx) const { return node_ % std::max(1u, ctx.storage_servers()); }

  const Options& options_;
  node::NodeId node_;
  std::optional<content::ImageWriter> writer_;  // /checkpoint_data
  content::ChainFetch fetch_;
  std::optional<std::pair<std::uint32_t, node::Bytes>> pending_write_;  // (checkpoint, image) being charged
  std::optional<Saved> pending_install_;                                 // decoded, being charged
  std::uint32_t charge_sequence_ = 0;
  std::uint32_t floor_ = 0;
  ReadState state_ = ReadState::idle;
  std::uint32_t reading_ = 0;  // the checkpoint being read back
  std::uint32_t probe_fallback_ = 0;
  std::uint64_t read_token_ = 0;
};

}  // namespace ftsim::protocols::uncoordinated
