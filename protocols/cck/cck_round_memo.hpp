#pragma once
// C_perdues and C_total computed once per distinct gathered input (Besseron 2006 §3.5.5 steps 4-5).
//
// After the all-gather every node computes the same function of the same N blocks: decode the N
// restricted graphs, derive C_total (gathered_round). Computed by each of the N simulated nodes,
// that is N decodings of N blocks and N traversals per failure: O(N²) time and memory in one
// address space (85 s at 1024 nodes), where each real process does O(N). This memo is a cache of
// that pure function, shared by the nodes of one run (one per run: the protocol factory makes it):
//  - its key is the node's whole gathered input, the N blocks in node order, and a lookup compares
//    that input for equality with the stored one (the same immutable buffer, or equal bytes);
//  - its value depends on nothing else (the graph and options of the run are the same for all);
//  - a node asks it only with what messages delivered to it (its AllGather's blocks); it never
//    reads another node's state, the failure schedule or liveness.
// A node that misses (a different input) computes the function itself. Entries hold references to
// their key's blocks (so a buffer's identity stands for its content while the entry lives); the
// last few rounds are kept.
#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "protocols/cck/cck_planning.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::protocols::cck {

class RoundMemo {
public:
  // gathered_round() of the decoded `blocks` (node q's Ḡ^q at q). Throws core::WireError if a
  // block does not decode.
  std::shared_ptr<const GatheredRound> get(const PlanningContext& context, const std::vector<core::SharedBytes>& blocks);

  std::uint64_t computed() const { return computed_; }  // distinct inputs computed
  std::uint64_t reused() const { return reused_; }

private:
  struct Entry {
    std::size_t hash;
    std::vector<core::SharedBytes> key;
    std::shared_ptr<const GatheredRound> value;
  };
  static constexpr std::size_t kEntries = 4;
  std::deque<Entry> entries_;  // newest first
  std::uint64_t computed_ = 0, reused_ = 0;
};

}  // namespace ftsim::protocols::cck
