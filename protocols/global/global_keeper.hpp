#pragma once
// With "storage": "buddy", a node keeps the checkpoints of the nodes whose buddy it is, in its
// checkpoint store (memory): it acknowledges each copy, sends one back to a replacement that asks
// for it (or says it does not hold it), and drops the copies a commit made useless. It has no
// state of its own: the store is the node's, and a replacement starts with an empty one.
#include <cstdint>

#include "protocols/global/global_messages.hpp"
#include "protocols/global/global_options.hpp"

namespace ftsim::protocols::global {

class GlobalKeeper {
public:
  explicit GlobalKeeper(const GlobalOptions& options) : options_(options) {}

  // kCheckpointData: keep the copy (its content and the bytes it stands for) and acknowledge.
  void on_checkpoint_data(ProtocolContext& ctx, NodeId from, const messages::Control& data);
  // kRestoreRequest: the copy (/checkpoint_data: its chain of images) back, or kNotHeld.
  void on_restore_request(ProtocolContext& ctx, NodeId from, const messages::Control& request);
  // Checkpoint `committed` is committed: older copies serve no restore (/checkpoint_data: but the
  // images its chain starts from do).
  void collect(ProtocolContext& ctx, std::uint32_t committed);

private:
  const GlobalOptions& options_;
};

}  // namespace ftsim::protocols::global
