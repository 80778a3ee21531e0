#pragma once
// buddy: asynchronous checkpoints as task-graph cuts, saved in a buddy node's memory (Lion &
// Thibault 2020 §V; Lion 2022 §2.4–2.5). No coordinator and no pause: the checkpoints are cuts of
// the submission sequence chosen by /checkpoints, and every node derives the same save plan from
// the graph (graphs/checkpoint_saves), as StarPU-MPI nodes derive it from the templates.
//  - Origin: when the last writer before cut c of a datum it produced completes, the datum goes
//    to each buddy at once (a data message of traffic "checkpoint", through the runtime, whose
//    send holds later writers: write-after-read). Only data modified since the previous
//    checkpoint are saved, never initial values. A save is free when the buddy receives that
//    version through an application transfer (the cache, Lion 2020 §IV-A and Fig. 4: CACHED
//    counters); the buddy keeps the copy it received.
//  - Buddy: stores each save (content included: real bytes on MPI) in its checkpoint store; once
//    it holds every entry of (origin, c) — the count is known from the plan — it sends ACK(c).
//  - Origin: checkpoint c is valid when its tasks before the cut are done and every buddy with
//    entries for c acknowledged; it then sends VALIDATE(c) to its buddies (the thesis sends it to
//    the principal buddy only; every buddy needs it here to collect its garbage), which drop the
//    entries that a newer valid checkpoint supersedes.
// Local restart (Lion 2022 §3): every node logs the data messages it sends, by reference (the
// version stays pinned). When node k fails, each survivor tells k's replacement the newest
// checkpoint it can afford (the in-transit bound: no message of k it still waits for may come
// from before the restart cut) and, if it is a buddy of k, the newest checkpoint of k it can
// serve. The replacement picks the restart checkpoint N (§3.5), asks one buddy for it, and tells
// every survivor N: they replay the logged messages k will need from cut N on, and buddies
// acknowledge again the later checkpoints they hold complete. Only k re-executes (its tasks after
// cut N); survivors re-execute nothing. k's re-sends that survivors already had are dropped on
// arrival (a version is identified by handle and version; the thesis filters them at the sender
// with per-tag counters). A node whose buddies all lost its data is unrecoverable.
// Concurrent restarts (docs/protocols.md, "Concurrent buddy restarts"): answers to info requests
// are kept per incarnation and round, each node is asked at most once per incarnation and round,
// and the keeper's part of a restart is served at once, even by a node restarting itself: no
// restore waits for another one, so any number of overlapping restarts ends.
// Re-protection: a replaced buddy holds nothing; each of its origins sends it, in one message,
// the full state of a checkpoint R it can still produce (and the saves of later checkpoints
// already made), so that the buddy can serve it again once R is valid.
// Log GC: when a node validates checkpoint c, its buddies keep c - 1 and c, so it will never
// restart before c - 1: it tells the nodes it receives data from, which drop the log entries its
// tasks before that cut read.
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "protocols/buddy/buddy_messages.hpp"
#include "protocols/buddy/buddy_options.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols {

class BuddyProtocol final : public core::Protocol {
public:
  BuddyProtocol(std::shared_ptr<const BuddyOptions> options, bool coordinator);

  void on_start(core::ProtocolContext& ctx) override;
  void on_task_completed(core::ProtocolContext& ctx, core::TaskId task, bool first_execution) override;
  core::ReceiveVerdict on_receive(core::ProtocolContext& ctx, const core::Message& message) override;
  void on_stored(core::ProtocolContext& ctx, const core::Message& message) override;
  void on_control(core::ProtocolContext& ctx, const core::Message& message) override;
  void on_activity_done(core::ProtocolContext& ctx, std::uint64_t token) override;
  void on_data_released(core::ProtocolContext& ctx, const core::Message& message) override;
  core::SendVerdict on_send(core::ProtocolContext& ctx, core::Message& message) override;
  void on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info) override;
  bool finished(core::ProtocolContext& ctx) override;
  std::string phase(core::ProtocolContext& ctx) override;

private:
  struct OwnSave {         // a save this node makes
    std::uint32_t checkpoint;
    core::NodeId buddy;
    bool cached;
  };
  struct HeldSave {        // a save this node receives as a buddy
    core::NodeId origin;
    std::uint32_t checkpoint;
    bool cached;           // it comes as an application transfer, not as checkpoint traffic
  };
  struct Local {           // one of this node's checkpoints
    std::vector<core::NodeId> waiting;  // buddies with entries that have not acknowledged yet
    double first_save = -1, last_save = -1;
    std::uint64_t bytes = 0;
  };
  void save_version(core::ProtocolContext& ctx, graphs::HandleId h, graphs::Version v);
  // Keeps a save; it counts towards its checkpoint's ack once copied (copy_cost).
  void store(core::ProtocolContext& ctx, const core::Message& m, const HeldSave& save, bool copy = true);
  void count_stored(core::ProtocolContext& ctx, core::NodeId origin, std::uint32_t checkpoint);
  void start_copies(core::ProtocolContext& ctx);
  void receive_save(core::ProtocolContext& ctx, const core::Message& m);
  void send_values(core::ProtocolContext& ctx, std::uint32_t from_checkpoint);
  void try_validate(core::ProtocolContext& ctx);
  void collect_garbage(core::ProtocolContext& ctx, core::NodeId origin, std::uint32_t valid);
  void build_plan(core::ProtocolContext& ctx);
  bool acks_for(core::NodeId origin, std::uint32_t checkpoint) const;
  // --- re-protection after a buddy's replacement, and log GC ---
  void reprotect(core::ProtocolContext& ctx, core::NodeId buddy, std::uint32_t incarnation);
  void on_reprotect(core::ProtocolContext& ctx, const core::Message& m);
  void release_log(core::ProtocolContext& ctx, core::NodeId reader, std::uint32_t checkpoint);
  // --- local restart (Lion 2022 §3) ---
  std::uint32_t checkpoint_section(core::TaskId task) const;  // checkpoints whose cut is at or before the task
  std::vector<std::uint64_t> missing_from(core::ProtocolContext& ctx, core::NodeId producer) const;
  std::uint32_t in_transit_bound(core::ProtocolContext& ctx, core::NodeId failed) const;
  std::pair<std::uint32_t, std::uint32_t> servable(core::NodeId origin) const;  // (older, newest) held
  void send_info_requests(core::ProtocolContext& ctx);
  void send_recovery_info(core::ProtocolContext& ctx, const core::Message& request);
  void on_recovery_info(core::ProtocolContext& ctx, const core::Message& m);
  // RESTART_FROM, decoded and checked.
  buddy_messages::RestartFrom read_restart_from(const core::Message& m);
  void on_restart_from(core::ProtocolContext& ctx, const core::Message& m);
  // The keeper's part of a restart (re-acks, the checkpoint sent back): at once, whatever state
  // this node is in; the origin's part (replays, re-protection): once this node has its state.
  void keep_for_restart(core::ProtocolContext& ctx, core::NodeId failed, const buddy_messages::RestartFrom& r);
  void replay_for_restart(core::ProtocolContext& ctx, const core::Message& m);
  void on_restore_data(core::ProtocolContext& ctx, const core::Message& m);
  void on_replay_request(core::ProtocolContext& ctx, const core::Message& m);
  void send_replay_request(core::ProtocolContext& ctx, core::NodeId failed, std::uint32_t replacement);
  // Sends `to` the versions of `keys`; false if one is gone (this node then rolls back: the
  // cascade of §3.5, on behalf of `cause`).
  bool serve(core::ProtocolContext& ctx, core::NodeId to, const std::vector<std::uint64_t>& keys,
             const core::FailureNotice& cause);
  void roll_back(core::ProtocolContext& ctx, std::uint32_t limit, const core::FailureNotice& cause);

  std::shared_ptr<const BuddyOptions> options_;
  bool coordinator_;
  std::unordered_map<std::uint64_t, std::vector<OwnSave>> own_saves_;   // by version key
  std::unordered_map<std::uint64_t, std::vector<HeldSave>> held_saves_;  // by version key
  std::vector<Local> local_;                        // by checkpoint - 1
  std::uint32_t next_to_validate_ = 1;
  // As a buddy: entries still expected per (origin, checkpoint), and which checkpoints of each
  // (origin, handle) it holds.
  std::unordered_map<std::uint64_t, std::uint32_t> expected_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> stored_;
  // As a buddy: each origin's two newest valid checkpoints (older, newest), from VALIDATE.
  std::unordered_map<core::NodeId, std::pair<std::uint32_t, std::uint32_t>> valid_;
  bool lost_held_ = false;  // a replacement: the checkpoint data it held for others died with its predecessor
  // A replacement buddy: the checkpoint from which each origin protected itself again (it holds
  // nothing older of that origin).
  std::unordered_map<core::NodeId, std::uint32_t> protected_from_;
  // As an origin: the checkpoint it re-protects with, per replaced buddy.
  std::unordered_map<core::NodeId, std::uint32_t> reprotecting_;
  std::vector<core::NodeId> producers_;  // the nodes whose versions this node's tasks read (log GC)
  std::vector<char> released_by_;        // per node: it let this node drop log entries (its incarnations included)
  // copy_cost: saves waiting for a core to be copied, and those being copied (by token).
  std::deque<std::pair<core::NodeId, std::uint32_t>> copies_waiting_;
  std::unordered_map<std::uint64_t, std::pair<core::NodeId, std::uint32_t>> copying_;
  std::uint64_t next_copy_token_ = 1;
  // Sender-based message log by reference (§3.3): what it sent to whom; the versions stay pinned
  // until the destination's restart cut is past all its readers (release_log).
  struct LogEntry {
    std::uint64_t version_key;
    std::uint64_t store_key;  // the entry in the log store
  };
  std::unordered_map<core::NodeId, std::vector<LogEntry>> log_;
  std::uint64_t next_log_key_ = 1;
  // The replacement's recovery: infos from the survivors, then the restore.
  struct Info {
    std::uint32_t incarnation = 0;  // of the node that answered
    std::uint32_t bound = 0;
    std::uint32_t servable = 0, older = 0;  // the checkpoints of the failed node it can send back
    bool buddy = false;
    bool lost = false;
    bool released = false;  // the failed node let it drop log entries (a restart from the input is impossible)
  };
  bool restarting_ = false;
  std::uint32_t restart_incarnation_ = 0;
  std::unordered_map<core::NodeId, Info> infos_;   // answers of the current round, kept
  std::uint32_t round_ = 0;                        // this process's restarts and rollbacks
  std::unordered_map<core::NodeId, std::uint32_t> asked_;  // incarnation + 1 asked by name, this round
  std::uint32_t restart_point_ = 0;
  double restart_began_ = 0;
  std::uint64_t deferred_data_ = 0;  // data messages deferred until the restore (ReceiveVerdict::defer)
  std::vector<core::Message> deferred_;  // other nodes' requests, served after its own restore
  bool restarted_ = false;               // this process restored a checkpoint (a replacement)
  bool chosen_ = false;                  // its restart checkpoint is chosen
  core::NodeId restore_source_ = 0;      // the buddy that sends it back
  std::uint32_t restore_source_incarnation_ = 0;
  std::vector<std::pair<core::NodeId, std::uint32_t>> later_requests_;  // replacements to ask once restored
  core::FailureEffect last_effect_;      // what the last serve() replayed
  core::FailureNotice failure_{};  // the failure being recovered (the replacement's own)
  // The cascade (§3.5 step 3): this live node rolls back to a checkpoint <= cascade_limit_, for
  // another node's failure, because that node needs versions its log no longer has.
  // Replays in progress per restarted node: messages not yet on the wire, since when (a span).
  struct Replay {
    std::uint64_t pending = 0;
    double began = 0;
  };
  std::unordered_map<core::NodeId, Replay> replays_;
  bool cascading_ = false;
  std::uint32_t cascade_limit_ = 0;
};

}  // namespace ftsim::protocols
