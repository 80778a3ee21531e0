#pragma once
// The buddy protocol's control messages, one typed struct per message type: `encode()` writes its
// fields with sim/node/wire.hpp, `decode(message)` reads them back (a message that does not decode
// is a protocol bug: WireError). The encoded bytes count in a message's simulated size, so the
// order and width of the fields are part of the protocol's timing: change them only on purpose.
// Who sends what, and why, is in buddy_protocol.hpp.
#include <cstdint>
#include <vector>

#include "graphs/ids.hpp"
#include "sim/node/content.hpp"
#include "sim/node/digest.hpp"
#include "sim/node/message.hpp"
#include "sim/node/protocol_context.hpp"
#include "sim/node/wire.hpp"

namespace ftsim::protocols::buddy_messages {

using core::Bytes;
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
  core::Digest digest = 0;
  core::ContentRef content;

  void write(core::WireWriter& out) const;
  static SavedVersion read(core::WireReader& in);
  Bytes encode() const;
  static SavedVersion decode(const Bytes& entry);
};

// The messages that carry one checkpoint number and nothing else.
template <MessageType Type> struct CheckpointNumber {
  static constexpr MessageType type = Type;
  std::uint32_t checkpoint = 0;

  Bytes encode() const;
  static CheckpointNumber decode(const core::Message& m);
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

// Origin -> buddy, with cow: a save sent from a copy of the version instead of through the runtime
// (the message stands for the datum's bytes).
struct SavedCopy {
  static constexpr MessageType type = MessageType::saved_copy;
  HandleId handle = 0;
  SavedVersion saved;

  Bytes encode() const;
  static SavedCopy decode(const core::Message& m);
};

// Recovering process -> every other node (or one node's new incarnation, by name): its recovery
// info, please. `round` counts the requester's restarts and rollbacks; an answer names it back.
struct InfoRequest {
  static constexpr MessageType type = MessageType::info_request;
  std::uint32_t round = 0;

  Bytes encode() const;
  static InfoRequest decode(const core::Message& m);
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

  Bytes encode() const;
  static RecoveryInfo decode(const core::Message& m);
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

  Bytes encode() const;
  static RestartFrom decode(const core::Message& m);
};

// The chosen buddy -> the recovering origin: checkpoint N, of each datum its newest entry at or
// before N, as the keeper holds it (the message stands for the data's bytes).
struct RestoreData {
  static constexpr MessageType type = MessageType::restore_data;
  std::uint32_t checkpoint = 0;
  std::uint64_t count = 0;
  Bytes entries;  // per entry: the handle, then the keeper's store entry (a SavedVersion) as an array

  // Appends an entry as the keeper's store holds it (no decoding).
  void add(HandleId handle, const Bytes& store_entry);
  // visit(handle, SavedVersion) for each entry, in order.
  template <class Visit> void for_each_entry(Visit&& visit) const {
    core::WireReader list(entries);
    for (std::uint64_t i = 0; i < count; ++i) {
      const HandleId handle = list.u32();
      visit(handle, SavedVersion::decode(list.bytes()));
    }
    list.expect_done();
  }
  Bytes encode() const;
  static RestoreData decode(const core::Message& m);
  // The checkpoint a restore is of, without decoding its entries (0 if the body is too short).
  static std::uint32_t checkpoint_of(const core::Message& m);
};

// A restored process -> the replacement of a node that may have been replaying to it when it
// died: the versions it still misses from that node, by version_key.
struct ReplayRequest {
  static constexpr MessageType type = MessageType::replay_request;
  std::vector<std::uint64_t> keys;

  Bytes encode() const;
  static ReplayRequest decode(const core::Message& m);
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
  };
  std::uint32_t checkpoint = 0;  // R
  std::uint64_t count = 0;
  Bytes entries;  // per entry: its checkpoint, the handle, then the SavedVersion

  void add(std::uint32_t entry_checkpoint, HandleId handle, const SavedVersion& saved);
  // visit(Entry) for each entry, in order.
  template <class Visit> void for_each_entry(Visit&& visit) const {
    core::WireReader list(entries);
    for (std::uint64_t i = 0; i < count; ++i) {
      Entry entry;
      entry.checkpoint = list.u32();
      entry.handle = list.u32();
      entry.saved = SavedVersion::read(list);
      visit(std::move(entry));
    }
    list.expect_done();
  }
  Bytes encode() const;
  static Reprotect decode(const core::Message& m);
};

// Sends a typed message: its encoding is the body (whose size counts), `payload_bytes` the data it
// stands for.
template <class TypedMessage>
void send(core::ProtocolContext& ctx, NodeId to, const TypedMessage& message, core::Traffic traffic = core::Traffic::control,
          std::uint64_t payload_bytes = 0, std::uint32_t destination_incarnation = core::kAnyIncarnation) {
  ctx.send_control(to, static_cast<std::uint32_t>(TypedMessage::type), message.encode(), traffic, payload_bytes,
                   destination_incarnation);
}

}  // namespace ftsim::protocols::buddy_messages
