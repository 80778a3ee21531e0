#pragma once
// The buddy protocol's control messages, one typed struct per message type whose fields() lists
// its fields once (sim/node/codec.hpp: node::encode writes them, node::decode<T>(message) reads
// them back; a message that does not decode is a protocol bug: WireError). The encoded bytes count
// in a message's simulated size, so the order and width of the fields are part of the protocol's
// timing: change them only on purpose. Who sends what, and why, is in buddy_protocol.hpp.
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/node/codec.hpp"
#include "sim/node/content.hpp"
#include "sim/node/digest.hpp"
#include "sim/node/message.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::buddy::messages {

using node::Bytes;
using graphs::HandleId;
using graphs::NodeId;
using graphs::Version;

enum class MessageType : std::uint32_t {
  ack = 1,
  validate = 2,
  recovery_info = 3,
  restart_from = 4,
  restore_data = 5,
  info_request = 6,
  replay_request = 7,
  reprotect = 8,
  log_release = 9,
  saved_copy = 10,
  value_entries = 11,
  level_done = 12,
};

// A version's name in the save plan, the message log and replay requests.
constexpr std::uint64_t version_key(HandleId h, Version v) { return (std::uint64_t(h) << 32) | v; }
constexpr HandleId handle_of(std::uint64_t version_key) { return static_cast<HandleId>(version_key >> 32); }
constexpr Version version_of(std::uint64_t version_key) { return static_cast<Version>(version_key & 0xffffffffu); }

// Where the user VALUE entries of a checkpoint go in a keeper's store and in a re-protection.
inline constexpr HandleId kValueHandle = 0xffffffffu;
// An in-transit bound that forbids no checkpoint.
inline constexpr std::uint32_t kNoBound = 0xffffffffu;

// One saved version of a datum: its number, digest and content (real bytes on MPI, none in a
// simulation). A keeper's store entry is one, encoded; restores, copies and re-protections carry them.
struct SavedVersion {
  Version version = 0;
  node::Digest digest = 0;
  node::ContentRef content;

  template <class F> void fields(F& f) { f(version, digest, content); }
};

// The messages that carry one checkpoint number and nothing else.
template <MessageType Type> struct CheckpointNumber {
  static constexpr MessageType type = Type;
  std::uint32_t checkpoint = 0;

  template <class F> void fields(F& f) { f(checkpoint); }
};
// Keeper -> origin: it holds every entry of the origin's checkpoint (each copied, with copy_cost).
using Ack = CheckpointNumber<MessageType::ack>;
// Origin -> each of its buddies: the checkpoint is valid (its tasks before the cut are done and
// every buddy with entries acknowledged), so older entries it supersedes may go.
using Validate = CheckpointNumber<MessageType::validate>;
// Reader -> each node it reads data from: it will never restart before this checkpoint, so log
// entries its tasks before that cut read may go (log GC).
using LogRelease = CheckpointNumber<MessageType::log_release>;
// Origin -> each of its buddies: the checkpoint's user VALUE entries (the message stands for
// value_bytes of them).
using ValueEntries = CheckpointNumber<MessageType::value_entries>;

// A node -> every other node, with /protocol/levels: its level checkpoint is complete (its manifest
// written). Each node keeps its level checkpoints from the oldest one complete at every node on, so
// that any node's restart from a level finds the others able to roll back that far (the cascade).
struct LevelDone {
  static constexpr MessageType type = MessageType::level_done;
  std::uint32_t level = 0;
  std::uint32_t checkpoint = 0;

  template <class F> void fields(F& f) { f(level, checkpoint); }
};

// Origin -> buddy, with cow: a save sent from a copy of the version instead of through the runtime
// (the message stands for the datum's bytes).
struct SavedCopy {
  static constexpr MessageType type = MessageType::saved_copy;
  HandleId handle = 0;
  SavedVersion saved;

  template <class F> void fields(F& f) { f(handle, saved); }
};

// Recovering process -> every other node (or one node's new incarnation, by name): its recovery
// info, please. `round` counts the requester's restarts and rollbacks; an answer names it back.
struct InfoRequest {
  static constexpr MessageType type = MessageType::info_request;
  std::uint32_t round = 0;

  template <class F> void fields(F& f) { f(round); }
};

// The answer to an InfoRequest (Lion 2022 §3.5 step 1), sent at once whatever the answering node
// is doing.
struct RecoveryInfo {
  static constexpr MessageType type = MessageType::recovery_info;
  std::uint32_t requester_incarnation = 0;  // the incarnation that asked: no other one takes the answer
  std::uint32_t round = 0;                  // the requester's round it answers
  std::uint32_t bound = kNoBound;           // in transit: the newest restart checkpoint it allows
  std::uint32_t newest = 0, older = 0;      // the requester's checkpoints it can send back (a buddy)
  bool buddy = false;                       // it is one of the requester's buddies
  bool lost = false;                        // a buddy that lost the requester's data with its predecessor
  bool released = false;                    // it dropped log entries for the requester: no restart from the input

  template <class F> void fields(F& f) { f(requester_incarnation, round, bound, newest, older, buddy, lost, released); }
};

// Recovering process -> every other node: the checkpoint N it restores (0: the job's input) and the
// buddy that sends it back; on it, keepers acknowledge again and survivors replay.
struct RestartFrom {
  static constexpr MessageType type = MessageType::restart_from;
  std::uint32_t failed_incarnation = 0;  // the failure it recovers from: incarnation ...
  std::uint32_t checkpoint = 0;
  NodeId source = 0;                     // the buddy that sends checkpoint N back
  NodeId cause_node = 0;                 // ... and node (another node's, in a cascade)
  bool alive = false;                    // a cascade: the sender rolls back, it did not fail

  template <class F> void fields(F& f) { f(failed_incarnation, checkpoint, source, cause_node, alive); }
};

// The chosen buddy -> the recovering origin: checkpoint N, of each datum its newest entry at or
// before N, as the keeper holds it (the message stands for the data's bytes).
struct RestoreData {
  static constexpr MessageType type = MessageType::restore_data;
  struct Entry {
    HandleId handle = 0;
    Bytes store_entry;  // the keeper's store entry (an encoded SavedVersion), as it holds it
    template <class F> void fields(F& f) { f(handle, store_entry); }
  };
  std::uint32_t checkpoint = 0;
  std::uint64_t count = 0;
  Bytes entries;  // `count` Entry, encoded one after the other

  template <class F> void fields(F& f) { f(checkpoint, count, entries); }

  // Appends an entry as the keeper's store holds it (no decoding).
  void add(HandleId handle, const Bytes& store_entry) {
    node::append(entries, Entry{handle, store_entry});
    ++count;
  }
  // visit(handle, SavedVersion) for each entry, in order.
  template <class Visit> void for_each_entry(Visit&& visit) const {
    node::WireReader list(entries);
    for (std::uint64_t i = 0; i < count; ++i) {
      const Entry entry = node::read<Entry>(list);
      visit(entry.handle, node::decode<SavedVersion>(entry.store_entry));
    }
    list.expect_done();
  }
  // The checkpoint a restore is of, without decoding its entries (0 if the body is too short).
  static std::uint32_t checkpoint_of(const node::Message& m) {
    return m.body.size() < sizeof(std::uint32_t) ? 0 : node::WireReader(m.body).u32();
  }
};

// A restored process -> the replacement of a node that may have been replaying to it when it
// died: the versions it still misses from that node, by version_key.
struct ReplayRequest {
  static constexpr MessageType type = MessageType::replay_request;
  std::vector<std::uint64_t> keys;

  template <class F> void fields(F& f) { f(keys); }
};

// Origin -> its replaced buddy: the full state of checkpoint R and the saves of later checkpoints
// already made, in one message (it stands for their bytes). Each entry is filed under the
// checkpoint whose differential it belongs to.
struct Reprotect {
  static constexpr MessageType type = MessageType::reprotect;
  struct Entry {
    std::uint32_t checkpoint = 0;
    HandleId handle = 0;
    SavedVersion saved;
    template <class F> void fields(F& f) { f(checkpoint, handle, saved); }
  };
  std::uint32_t checkpoint = 0;  // R
  std::uint64_t count = 0;
  Bytes entries;  // `count` Entry, encoded one after the other

  template <class F> void fields(F& f) { f(checkpoint, count, entries); }

  void add(std::uint32_t entry_checkpoint, HandleId handle, const SavedVersion& saved) {
    node::append(entries, Entry{entry_checkpoint, handle, saved});
    ++count;
  }
  // visit(Entry) for each entry, in order.
  template <class Visit> void for_each_entry(Visit&& visit) const {
    node::WireReader list(entries);
    for (std::uint64_t i = 0; i < count; ++i) visit(node::read<Entry>(list));
    list.expect_done();
  }
};

// Sends a typed message: its encoding is the body (whose size counts), `payload_bytes` the data it
// stands for.
template <class TypedMessage>
void send(node::ProtocolContext& ctx, NodeId to, const TypedMessage& message, node::Traffic traffic = node::Traffic::control,
          std::uint64_t payload_bytes = 0, std::uint32_t destination_incarnation = node::kAnyIncarnation) {
  ctx.send_control(to, static_cast<std::uint32_t>(TypedMessage::type), node::encode(message), traffic, payload_bytes,
                   destination_incarnation);
}

}  // namespace ftsim::protocols::buddy::messages
