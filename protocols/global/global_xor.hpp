#pragma once
// An XOR level (docs/multilevel.md): a node's part in its XOR set, with the code of
// global_xor_code.hpp. As a contributor it sends each set member one block of each checkpoint on
// the level; as a holder it XORs the blocks it got into its parity block once all are in (CPU time
// charged at the level's rate), keeps it in its checkpoint store (memory: lost with the node) and
// acknowledges each contributor; as a survivor it answers a replacement's rebuild request with its
// own checkpoint (its local copy) and its parity block. The keeper collects the parity blocks with
// the copies it holds (global_keeper.cpp). XorRebuild is the replacement's side.
#include <cstdint>
#include <optional>
#include <vector>

#include "protocols/global/global_copies.hpp"
#include "protocols/global/global_messages.hpp"
#include "protocols/global/global_options.hpp"
#include "protocols/global/global_xor_code.hpp"

namespace ftsim::protocols::global {

using node::Bytes;

// Contributor: the blocks of checkpoint `checkpoint` (its encoded bytes, standing for `bytes`) to
// the other members of its set; returns how many acknowledgements the save waits for.
std::uint32_t send_xor_blocks(ProtocolContext& ctx, const GlobalOptions& options, std::uint32_t checkpoint,
                              const Bytes& encoded, std::uint64_t bytes);

class GlobalXor {
public:
  GlobalXor(const GlobalOptions& options, const GlobalCopies& copies);

  // Holder: a block (kXorBlock: acknowledged once the parity is computed; kXorParityBlock: the
  // parity this replacement lost, rebuilt after a restore from another level), and the CPU time
  // of the parity over (its token).
  void on_block(ProtocolContext& ctx, NodeId from, const messages::Control& block, bool acknowledge);
  void on_charged(ProtocolContext& ctx, std::uint64_t token);
  // Survivor: kXorRequest.
  void on_request(ProtocolContext& ctx, NodeId from, const messages::Control& request);

private:
  const GlobalOptions& options_;
  const GlobalCopies& copies_;  // its local copies, which a rebuild reads
  const LevelConfig* level_;  // null without an XOR level
  // The parity block being gathered: one checkpoint at a time (the next one cannot start before
  // this one is committed, which waits for this holder's acknowledgements).
  struct Gathering {
    std::uint32_t checkpoint = 0, epoch = 0, missing = 0;
    xor_code::Parity parity;
    std::vector<NodeId> contributors;
    std::uint64_t bytes = 0;  // the simulated size of the blocks XORed
    bool acknowledge = true;
  };
  std::optional<Gathering> gathering_;
  bool charging_ = false;
  std::uint32_t sequence_ = 0;
};

// A replacement's rebuild of its checkpoint from its XOR set: the request to every other member,
// their answers, then the code. One at a time; begin() starts over.
class XorRebuild {
public:
  explicit XorRebuild(const GlobalOptions& options) : options_(options) {}

  void begin(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch);
  // A replacement that restored `checkpoint` from another level lost its parity block of it all
  // the same: it asks each member for the block it XORs (kXorParityBlock), in the background.
  void request_parity(ProtocolContext& ctx, std::uint32_t checkpoint, std::uint32_t epoch);
  enum class Answer : std::uint8_t { stale, waiting, complete, lost };
  // kXorPieces / kXorNotHeld from `from`: complete once every member answered with its pieces;
  // lost at the first that holds none (the set lost two members: the level cannot rebuild it).
  Answer on_pieces(ProtocolContext& ctx, NodeId from, const messages::Control& pieces);
  Answer on_not_held(const messages::Control& answer);
  // complete: its checkpoint and parity (kept in its store), and the CPU seconds the XOR takes.
  struct Result {
    Bytes data;
    double charge_seconds = 0;
  };
  Result finish(ProtocolContext& ctx);

private:
  bool current(const messages::Control& c) const { return active_ && c.checkpoint == checkpoint_ && c.epoch == epoch_; }
  const GlobalOptions& options_;
  bool active_ = false;
  std::uint32_t checkpoint_ = 0, epoch_ = 0, missing_ = 0;
  std::vector<Bytes> data_;
  std::vector<std::uint64_t> sizes_;
  std::vector<xor_code::Parity> parity_;
  std::uint64_t received_bytes_ = 0;
};

}  // namespace ftsim::protocols::global
