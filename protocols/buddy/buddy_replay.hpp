#pragma once
// A survivor's replays to a restarted node (Lion 2022 §3.3): the versions it produced that the
// restarted node reads from its restart cut on, sent again from memory (the message log pins what
// was sent; an initial value is read again from the input; one not produced yet goes by the
// normal path). One produced and gone — this node restarted since, and its log before its own
// restart cut died with its predecessor — is the cascade of §3.5: the caller rolls this node back
// to a checkpoint before the task that wrote it, and its re-execution sends it again.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/buddy_options.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::buddy {

class BuddyReplay {
public:
  explicit BuddyReplay(const BuddyOptions& options) : options_(options) {}

  // Every version this node produced that `restarted`, restarting at checkpoint `checkpoint`,
  // will read from that cut on (by version key).
  std::vector<std::uint64_t> needed_by(node::ProtocolContext& ctx, node::NodeId restarted, std::uint32_t checkpoint) const;

  struct Outcome {
    node::FailureEffect effect;                              // what it replayed
    std::uint32_t rollback_to = messages::kNoBound;  // the cascade: this node must restore a checkpoint <= this
  };
  // Sends `to` the versions of `keys` (all produced here) it can.
  Outcome serve(node::ProtocolContext& ctx, node::NodeId to, const std::vector<std::uint64_t>& keys);
  // A replayed message left this node (the replay span ends with the last one).
  void on_released(node::ProtocolContext& ctx, const node::Message& m);

private:
  struct Span {  // replays in progress to one node: messages not yet on the wire, since when
    std::uint64_t pending = 0;
    double began = 0;
  };
  const BuddyOptions& options_;
  std::unordered_map<node::NodeId, Span> spans_;
};

}  // namespace ftsim::protocols::buddy
