#pragma once
// What a CCK node keeps of its checkpoints: its own copies (every node keeps a copy of what it
// saved: a survivor re-executes T^p from its copy of K, §3.5.4), the last valid checkpoint it
// knows of, and, with /checkpoint_data, its images on its checkpoint server: encoded as a chain
// of a full image and incrementals, read back by a replacement image by image, newest first. The
// CPU time of encoding or decoding an image is charged to a core before the image leaves or the
// state is restored; one sequence numbers both, so that a charge a failure overtook is ignored.
// The checkpoint session saves through it, the restart session restores through it.
#include <cstdint>
#include <map>
#include <optional>

#include "protocols/cck/cck_options.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

class LocalCheckpoints {
public:
  LocalCheckpoints(const CckOptions& options, NodeId self, bool node);

  std::uint32_t valid() const { return valid_; }
  // INIT told it `valid`: older copies and the images no chain needs any more go.
  void advance_valid(node::ProtocolContext& ctx, std::uint32_t valid);
  // RESTART from K: K is the valid checkpoint, copies newer than K were never validated, and the
  // next image is a full one (a replacement lost its hashes; a survivor re-executes from K).
  void restart_from(std::uint32_t checkpoint);

  bool has_copy(std::uint32_t checkpoint) const { return copies_.count(checkpoint) != 0; }
  const node::NodeSnapshot& copy(std::uint32_t checkpoint) const { return copies_.at(checkpoint); }
  void keep(std::uint32_t checkpoint, node::NodeSnapshot snapshot) { copies_[checkpoint] = std::move(snapshot); }

  // What goes to the server for checkpoint `checkpoint`: an image (full or incremental, with the
  // CPU time it takes first) with /checkpoint_data, else the snapshot encoded.
  struct Encoded {
    node::Bytes content;
    std::uint64_t bytes = 0;     // what the server stores
    double charge_seconds = 0;
  };
  Encoded encode(node::ProtocolContext& ctx, const node::NodeSnapshot& snapshot, std::uint32_t checkpoint);
  void write(node::ProtocolContext& ctx, std::uint32_t checkpoint, node::Bytes content, std::uint64_t bytes);
  // An image written for an abandoned checkpoint: the next one is full.
  void abandon_image();

  // Reading checkpoint K back (a replacement): request() asks the server (the answer comes to the
  // protocol's on_storage_done with kReadToken | K); read_back() takes what came, asks for the
  // next image of a chain, and gives the state once complete (unless its decoding takes CPU time
  // first: then take_decoded() gives it once charged).
  void request(node::ProtocolContext& ctx, std::uint32_t checkpoint);
  std::optional<node::NodeSnapshot> read_back(node::ProtocolContext& ctx, const node::Bytes& content,
                                              std::uint32_t checkpoint);
  std::optional<node::NodeSnapshot> take_decoded();

  // Charges `seconds` of CPU (`kind`: kEncodeToken or kDecodeToken); current() says whether a
  // charge that is over is the last one asked.
  void charge(node::ProtocolContext& ctx, double seconds, std::uint64_t kind);
  bool current(std::uint64_t token) const { return (token & 0xffffffffu) == charge_sequence_; }

private:
  const CckOptions& options_;
  NodeId self_;
  std::uint32_t valid_ = 0;                             // the last valid checkpoint it knows of
  std::map<std::uint32_t, node::NodeSnapshot> copies_;  // its own checkpoint copies, valid_ and newer
  std::optional<content::ImageWriter> writer_;          // /checkpoint_data: its images
  content::ChainFetch fetch_;                           // a chain being read back
  std::optional<node::NodeSnapshot> decoded_;           // read back, waiting for its decoding's CPU time
  std::uint32_t charge_sequence_ = 0;
};

}  // namespace ftsim::protocols::cck
