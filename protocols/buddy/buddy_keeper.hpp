#pragma once
// The keeper side of the buddy protocol (Lion & Thibault 2020 §V; Lion 2022 §2.4–2.5, §3.3): the
// checkpoint copies this node holds for the nodes whose buddy it is. It stores each save (content
// included: real bytes on MPI) in its checkpoint store, copies it with copy_cost, acknowledges a
// checkpoint once it holds all its entries (the count is known from the plan), keeps each origin's
// two newest valid checkpoints (garbage-collecting what they supersede), takes a re-protection
// from an origin after it was replaced, and serves a restore: checkpoint N sent back to its origin.
//
// What it holds for others survives this node's own rollback (the cascade): only a failure loses
// it, and a replacement knows that it lost it (lose_holdings), so it answers for nothing it no
// longer holds. It needs nothing of the origin side or of the recovery: no restore waits for it.
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/buddy_options.hpp"
#include "sim/node/flat_multimap.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::buddy {

class BuddyKeeper {
public:
  explicit BuddyKeeper(const BuddyOptions& options) : options_(options) {}

  // The saves this node receives as a buddy and how many entries each (origin, checkpoint) has.
  void plan(node::ProtocolContext& ctx);
  // A replacement: the copies its predecessor held died with it.
  void lose_holdings() { replacement_ = true; }

  // --- saves arriving ---
  void on_checkpoint_data(node::ProtocolContext& ctx, const node::Message& m);  // a save through the runtime
  void on_saved_copy(node::ProtocolContext& ctx, node::NodeId origin, const messages::SavedCopy& copy);  // cow
  // A version the runtime stored for the computation: a cached save keeps a copy of it.
  void on_stored(node::ProtocolContext& ctx, const node::Message& m);
  void on_value_entries(node::ProtocolContext& ctx, node::NodeId origin, std::uint32_t checkpoint);
  void on_validate(node::ProtocolContext& ctx, node::NodeId origin, std::uint32_t checkpoint);
  void on_reprotect(node::ProtocolContext& ctx, node::NodeId origin, const messages::Reprotect& reprotect);
  // copy_cost: starts the waiting copies on the free cores; a copy finished.
  void start_copies(node::ProtocolContext& ctx);
  void on_copy_done(node::ProtocolContext& ctx, std::uint64_t token);

  // --- another node's restart ---
  // What this node can tell a restarting `origin` about its checkpoints.
  struct Holdings {
    bool buddy = false;                   // this node is one of origin's buddies
    std::uint32_t older = 0, newest = 0;  // the checkpoints of origin it can send back
    bool lost = false;                    // a replacement that holds nothing of origin yet
  };
  Holdings holdings_of(node::ProtocolContext& ctx, node::NodeId origin) const;
  // The keeper's part of `failed`'s restart at checkpoint N: acknowledge again the later
  // checkpoints held complete and, if chosen, send checkpoint N back. Served at once, whatever
  // this node is doing.
  void serve_restart(node::ProtocolContext& ctx, node::NodeId failed, const messages::RestartFrom& restart);

private:
  struct HeldSave {  // a save this node receives as a buddy
    node::NodeId origin;
    std::uint32_t checkpoint;
    bool cached;  // it comes as an application transfer, not as checkpoint traffic
  };
  void receive_save(node::ProtocolContext& ctx, node::NodeId origin, graphs::HandleId h, const messages::SavedVersion& saved);
  // Keeps a save; it counts towards its checkpoint's ack once copied (copy_cost).
  void store(node::ProtocolContext& ctx, node::NodeId origin, std::uint32_t checkpoint, graphs::HandleId h,
             const messages::SavedVersion& saved, bool copy);
  void count_stored(node::ProtocolContext& ctx, node::NodeId origin, std::uint32_t checkpoint);
  void collect_garbage(node::ProtocolContext& ctx, node::NodeId origin, std::uint32_t valid);
  // A replacement holds nothing of an origin before that origin protected itself again.
  bool acks_for(node::NodeId origin, std::uint32_t checkpoint) const;
  std::pair<std::uint32_t, std::uint32_t> servable(node::NodeId origin) const;  // (older, newest) held

  const BuddyOptions& options_;
  node::FlatMultimap64<HeldSave> held_saves_;  // by version key, planned once (looked up at every save)
  // Entries still expected per (origin, checkpoint), and which checkpoints of each (origin,
  // handle) it holds.
  std::unordered_map<std::uint64_t, std::uint32_t> expected_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> stored_;
  // /checkpoint_data: each stored entry's version and, for an incremental datum image, the version
  // it builds on (a restore sends the chain; garbage collection keeps what a kept entry builds on).
  struct Link {
    graphs::Version version = 0;
    bool incremental = false;
    graphs::Version base = 0;
  };
  std::unordered_map<std::uint64_t, Link> links_;  // by store key
  // The entries (checkpoints) of (origin, h) that the entry of checkpoint c needs: c and its chain,
  // oldest first; empty if a link is missing.
  std::vector<std::uint32_t> chain_of(node::NodeId origin, graphs::HandleId h, std::uint32_t c) const;
  bool holds_version(node::NodeId origin, graphs::HandleId h, graphs::Version v) const;
  // Each origin's two newest valid checkpoints (older, newest), from VALIDATE.
  std::unordered_map<node::NodeId, std::pair<std::uint32_t, std::uint32_t>> valid_;
  bool replacement_ = false;  // what it held as a buddy died with its predecessor
  // A replacement: the checkpoint from which each origin protected itself again (it holds nothing
  // older of that origin).
  std::unordered_map<node::NodeId, std::uint32_t> protected_from_;
  // copy_cost: saves waiting for a core to be copied, and those being copied (by token).
  std::deque<std::pair<node::NodeId, std::uint32_t>> copies_waiting_;
  std::unordered_map<std::uint64_t, std::pair<node::NodeId, std::uint32_t>> copying_;
  std::uint64_t next_copy_token_ = 1;
};

}  // namespace ftsim::protocols::buddy
