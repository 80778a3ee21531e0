#pragma once
// A node's own checkpoint copies (double checkpointing): the local one, kept in memory, and the one
// on stable storage or at every buddy, acknowledged by the server or by each buddy. With
// /checkpoint_data the remote copy is an image (full or incremental: a chain), whose encoding takes
// CPU time first. The checkpointer saves and collects; the recovery reads the local copy back,
// keeps a fetched one and starts a new chain after a restore.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "protocols/checkpoint_content.hpp"
#include "protocols/global/global_options.hpp"

namespace ftsim::protocols::global {

// The save of the remote copy.
enum class CopyState : std::uint8_t {
  idle,      // none in flight
  encoding,  // /checkpoint_data: its image's CPU time charged to a core first
  sent,      // written to stable storage or sent to every buddy: waiting for the acknowledgement(s)
};

class GlobalCopies {
public:
  explicit GlobalCopies(const GlobalOptions& options);

  // This node's state as checkpoint `checkpoint`: kept here, and sent to storage or buddies.
  void save(ProtocolContext& ctx, std::uint32_t checkpoint, node::NodeSnapshot snapshot);
  // /checkpoint_data: the CPU time of encoding the image is over (its token).
  void on_encoded(ProtocolContext& ctx, std::uint64_t token);
  // True when it completes the save in flight (a buddy's acknowledgement, the last one; a write).
  bool on_ack(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch);
  bool on_written(ProtocolContext& ctx, std::uint64_t token);
  std::uint64_t saved_bytes() const { return saved_bytes_; }  // of the last save
  void cancel();  // a failure: the save in flight is abandoned
  // Checkpoint `committed` is committed: older local copies go, and the stored images it no longer needs.
  void collect(ProtocolContext& ctx, std::uint32_t committed);

  // For the recovery.
  const node::NodeSnapshot* local_copy(std::uint32_t checkpoint) const;
  void keep_copy(std::uint32_t checkpoint, const node::NodeSnapshot& snapshot) { local_[checkpoint] = snapshot; }
  void adopt_chain(std::span<const node::Bytes* const> chain);  // read back: its images on storage now
  // Restored `checkpoint`: older local copies are of no use, and the next image is a full one.
  void restored(std::uint32_t checkpoint);

private:
  // The one place the state changes; throws std::logic_error on a transition not listed.
  void step(CopyState to);
  void send(ProtocolContext& ctx);
  std::string destinations(std::uint32_t checkpoint, NodeId node) const;  // for the notes
  // Local copies older than `checkpoint` go (with levels, but the latest one on stable storage).
  void drop_local_before(std::uint32_t checkpoint);

  const GlobalOptions& options_;
  std::map<std::uint32_t, node::NodeSnapshot> local_;  // pending and committed
  CopyState state_ = CopyState::idle;
  std::uint32_t checkpoint_ = 0;  // in flight (0 when idle)
  std::uint64_t saved_bytes_ = 0;
  std::uint32_t acks_missing_ = 0;  // buddy acknowledgements and storage writes still to come
  // /checkpoint_data: its images, and the content waiting for the CPU time of its encoding (tokens
  // carry a sequence number: a stale one is ignored).
  std::optional<content::ImageWriter> writer_;
  struct Pending {
    node::Bytes content;
    std::uint64_t bytes = 0;
  };
  std::optional<Pending> pending_;
  std::uint32_t encode_sequence_ = 0;
};

}  // namespace ftsim::protocols::global
