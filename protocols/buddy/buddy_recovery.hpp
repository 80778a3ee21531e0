#pragma once
// The restart of the buddy protocol (Lion 2022 §3), and this node's part in other nodes' restarts.
// When node k fails, its replacement asks every other node for its recovery info: the newest
// checkpoint it can afford (the in-transit bound: no message of k it still waits for may come from
// before the restart cut) and, from k's buddies, the checkpoints of k they can serve. It picks the
// restart checkpoint N (§3.5), the newest a live buddy holds that no bound forbids, and tells every
// other node N (RESTART_FROM): the chosen buddy sends checkpoint N back, every buddy acknowledges
// again the later checkpoints it holds complete (BuddyKeeper::serve_restart), and survivors replay
// the logged versions k reads from cut N on (BuddyReplay). Only k re-executes (its tasks after cut
// N); k's re-sends that survivors already had are dropped on arrival (a version is identified by
// handle and version; the thesis filters them at the sender with per-tag counters). A survivor
// asked for a version it no longer has (it restarted since) rolls back too, alive: the cascade of
// §3.5 step 3, the same state machine with a limit on the checkpoint. A node whose buddies all
// lost its data, with its senders' logs collected, is unrecoverable.
//
// Concurrent restarts (docs/protocols.md, "Concurrent buddy restarts"): answers are kept per
// incarnation and round, each node is asked at most once per incarnation and round, and the
// keeper's part of a restart is served at once, even by a node restarting itself; the origin's
// part (replays, re-protection) waits until this node has its own state back. No restore waits
// for another one, so any number of overlapping restarts ends.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "protocols/buddy/buddy_keeper.hpp"
#include "protocols/buddy/buddy_levels.hpp"
#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/buddy_options.hpp"
#include "protocols/buddy/buddy_origin.hpp"
#include "protocols/buddy/buddy_replay.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::buddy {

// Where this process is in its own recovery (it replaces the phase flags of the single class this
// protocol once was). A replacement starts in collecting_info; a live node enters it when it must
// roll back (the cascade). A round ends when N is chosen; a further round starts only with a
// further rollback. If the buddy sending N dies, it goes back to collecting_info in the same round
// and asks that buddy's new incarnation.
enum class RecoveryState : std::uint8_t {
  running,              // as started: it never restored a checkpoint
  collecting_info,      // a round: waiting for the recovery info of every other node
  awaiting_checkpoint,  // checkpoint N chosen: waiting for it from the chosen buddy
  restored,             // running again after a restore (it asks restarted producers for replays)
};

class BuddyRecovery {
public:
  BuddyRecovery(const BuddyOptions& options, BuddyOrigin& origin, BuddyKeeper& keeper, BuddyLevels& levels)
      : options_(options), origin_(origin), keeper_(keeper), levels_(levels), replay_(options) {}

  bool recovering() const {
    return state_ == RecoveryState::collecting_info || state_ == RecoveryState::awaiting_checkpoint;
  }

  // This process replaces a failed one (it holds nothing): a first round of info requests.
  void start_restart(node::ProtocolContext& ctx, const node::RestartInfo& info);
  // Data for the computation (an application transfer or a replay): while recovering, deferred
  // until the restore.
  node::ReceiveVerdict on_data();
  void on_info_request(node::ProtocolContext& ctx, node::NodeId from, std::uint32_t from_incarnation,
                       const messages::InfoRequest& request);
  void on_recovery_info(node::ProtocolContext& ctx, node::NodeId from, std::uint32_t from_incarnation,
                        const messages::RecoveryInfo& info);
  void on_restart_from(node::ProtocolContext& ctx, node::NodeId from, std::uint32_t from_incarnation,
                       const messages::RestartFrom& restart);
  // Checkpoint N back from the chosen buddy (decoded only if it is the one awaited).
  void on_restore_data(node::ProtocolContext& ctx, const node::Message& m);
  // /checkpoint_data: the CPU time of decompressing the restored chains is over (its token).
  void on_decoded(node::ProtocolContext& ctx, std::uint64_t token);
  static constexpr std::uint64_t kDecodeTokenBit = 1ull << 61;
  void on_replay_request(node::ProtocolContext& ctx, node::NodeId from, std::uint32_t from_incarnation,
                         messages::ReplayRequest request);
  // Levels: a level's manifest or one entry of the level checkpoint being restored (null: the
  // level does not hold it).
  void on_level_read(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content);
  void on_data_released(node::ProtocolContext& ctx, const node::Message& m) { replay_.on_released(ctx, m); }
  // What the recovery waits for, for the stall reports (only while recovering).
  std::string phase(node::ProtocolContext& ctx) const;

private:
  // The recovery under way: why, since when, and how far back it may go.
  struct Recovery {
    enum class Kind : std::uint8_t {
      restart,   // this process replaces a failed one
      rollback,  // this live node rolls back for another node's failure (the cascade of §3.5)
    } kind = Kind::restart;
    node::FailureNotice cause{};    // the failure it recovers from (another node's, for a rollback)
    std::uint32_t incarnation = 0;  // this process's: answers to another one are stale
    double began = 0;
    std::uint32_t limit = 0;  // a rollback: the newest checkpoint it may restore
    std::string needing;      // a rollback: who needs its versions, for the messages
  };
  // A round of info requests: the answers, kept for the whole round (a live node's answer stays
  // true), and who was asked again by name after a newer incarnation showed itself.
  struct Round {
    struct Answer {
      std::uint32_t incarnation = 0;  // of the node that answered
      messages::RecoveryInfo info;
    };
    std::uint32_t number = 0;  // this process's restarts and rollbacks
    std::unordered_map<node::NodeId, Answer> answers;
    std::unordered_map<node::NodeId, std::uint32_t> asked;  // incarnation + 1 asked by name, 0 if none
    // Levels: what each holds (its manifest; newest 0: none or lost), the checkpoints found
    // incomplete there, and the manifests not read yet.
    std::vector<LevelManifest> level_manifests;
    std::vector<std::vector<std::uint32_t>> level_struck;
    std::uint32_t manifests_unread = 0;
  };
  // The restart checkpoint N and the buddy that sends it back (0 and this node: the job's input).
  struct Choice {
    std::uint32_t checkpoint = 0;
    node::NodeId source = 0;
    std::uint32_t source_incarnation = 0;
    int level = -1;  // levels: the level it is read from (source is this node); -1: a buddy or the input
    std::vector<std::pair<graphs::HandleId, messages::SavedVersion>> level_entries;  // read so far
    std::uint32_t level_reads_left = 0;
  };
  // Another node's request that needs this node's own state: served once it is restored.
  struct DeferredRequest {
    node::NodeId from;
    std::uint32_t from_incarnation;
    std::variant<messages::RestartFrom, messages::ReplayRequest> request;
  };

  void send_info_requests(node::ProtocolContext& ctx);
  bool round_complete(node::ProtocolContext& ctx) const {
    return round_.answers.size() + 1 >= ctx.node_count() && round_.manifests_unread == 0;
  }
  void choose_checkpoint(node::ProtocolContext& ctx);
  void read_level_checkpoint(node::ProtocolContext& ctx);
  // The origin's part of another node's restart: replays, and re-protection of a replaced buddy.
  void replay_for_restart(node::ProtocolContext& ctx, node::NodeId restarted, std::uint32_t incarnation,
                          const messages::RestartFrom& restart);
  // Replays `keys` to `to`; if one is gone, rolls this node back (on behalf of `cause`).
  node::FailureEffect serve(node::ProtocolContext& ctx, node::NodeId to, const std::vector<std::uint64_t>& keys,
                            const node::FailureNotice& cause);
  // `needing` asked for a version this node no longer has (on behalf of `cause`).
  void roll_back(node::ProtocolContext& ctx, std::uint32_t limit, const node::FailureNotice& cause, node::NodeId needing);
  void send_replay_request(node::ProtocolContext& ctx, node::NodeId failed, std::uint32_t replacement);

  const BuddyOptions& options_;
  BuddyOrigin& origin_;
  BuddyKeeper& keeper_;
  BuddyLevels& levels_;
  BuddyReplay replay_;
  std::uint32_t read_sequence_ = 0;  // levels: reads of an earlier round or choice are ignored
  RecoveryState state_ = RecoveryState::running;
  // /checkpoint_data: the restored data, decoded, waiting for the CPU time of its decompression.
  void install(node::ProtocolContext& ctx, const std::vector<std::pair<graphs::HandleId, messages::SavedVersion>>& entries);
  std::vector<std::pair<graphs::HandleId, messages::SavedVersion>> decoded_;
  std::uint64_t decode_token_ = 0;
  std::uint32_t decode_sequence_ = 0;
  Recovery recovery_;
  Round round_;
  Choice choice_;
  std::uint64_t deferred_data_ = 0;  // data messages deferred until the restore (ReceiveVerdict::defer)
  std::vector<DeferredRequest> deferred_requests_;
  std::vector<std::pair<node::NodeId, std::uint32_t>> later_replay_requests_;  // replacements to ask once restored
};

}  // namespace ftsim::protocols::buddy
