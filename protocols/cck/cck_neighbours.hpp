#pragma once
// V and W of a node (Besseron 2006 §3.4.2 step 2.1): whom it flushes its channels with, and whom
// it holds its sends to after its save. Pure functions of what the node knows of itself (its
// remaining graph); the checkpoint and the restart both use V.
#include <string>
#include <vector>

#include "protocols/cck/cck_node_set.hpp"
#include "protocols/cck/cck_options.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::cck {

// V: the nodes it still expects data from (with "flush": "all", every other node).
std::vector<NodeId> expected_senders(node::ProtocolContext& ctx, const CckOptions& options, NodeId self);
// W: the nodes it will still send to (with "flush": "all", every other node).
NodeSet future_receivers(node::ProtocolContext& ctx, const CckOptions& options, NodeId self);
// "3, 5, 8": at most six of `nodes`, then ", ...", for the phase reports.
std::string node_list(const std::vector<NodeId>& nodes);

}  // namespace ftsim::protocols::cck
