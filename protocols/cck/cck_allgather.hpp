#pragma once
// The all-gather of CCK's restart (Besseron 2006 §3.5.5 step 3, "Gather-to-All" in O(log2 N)
// messages per process, §3.6.2): Bruck's algorithm (Bruck et al. 1997), for any number of nodes.
// At step j (distance d = 2^j) node p sends the blocks it holds, p .. p + min(d, N - d) - 1
// (mod N), to p - d and receives the next ones from p + d; after ceil(log2 N) steps every node
// holds all N blocks. N·ceil(log2 N) messages in all, one per node and step. A sans-I/O state
// machine: the protocol sends what send() returns and feeds what arrives to receive().
//
// Blocks are immutable shared buffers (node::SharedBytes): a node forwards the very buffers it
// received, as the messages' parts, and holds references, not copies. Each message still carries
// (and is charged for) every block it forwards; in one address space the N nodes' N blocks are
// then N buffers and N² references instead of N² copies (22 GB at 4096 nodes).
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::protocols::cck {

class AllGather {
public:
  using Blocks = std::vector<std::pair<graphs::NodeId, node::SharedBytes>>;  // (node, its block)
  struct Outgoing {
    graphs::NodeId to;
    std::uint32_t step;
    Blocks blocks;
  };

  AllGather(graphs::NodeId node, graphs::NodeId nodes, node::SharedBytes own);

  // The message to send now, if any (call after construction and after each receive()).
  std::optional<Outgoing> send();
  // The message of step `step` (from node + 2^step); one of a later step is kept until its turn.
  void receive(std::uint32_t step, Blocks blocks);
  bool complete() const { return held_ == nodes_; }
  // Every node's block, by node (once complete).
  const std::vector<node::SharedBytes>& blocks() const { return blocks_; }
  std::uint32_t step() const { return step_; }
  // Whose message it waits for (nodes() when complete).
  graphs::NodeId waiting_for() const;
  static std::uint32_t steps(graphs::NodeId nodes);

private:
  void advance();

  graphs::NodeId node_, nodes_;
  std::vector<node::SharedBytes> blocks_;
  graphs::NodeId held_ = 1;  // blocks node_ .. node_ + held_ - 1 (mod nodes_) are here
  std::uint32_t step_ = 0;
  bool sent_ = false;        // the message of step_ has been handed out
  std::map<std::uint32_t, Blocks> early_;  // later steps' messages, by step
};

}  // namespace ftsim::protocols::cck
