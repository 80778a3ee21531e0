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
// Local restart after a failure (message logging by reference, replay, Lion 2022 §3) is not built
// yet: a failure notice ends the run with that reason.
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "graphs/buddy_mapping.hpp"
#include "graphs/checkpoint_saves.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"
#include "sim/core/protocol.hpp"
#include "sim/core/protocol_context.hpp"

namespace ftsim::protocols {

// What every process of a run shares, read-only: the cuts, the buddies and the save plan.
struct BuddyOptions {
  BuddyOptions(const config::Config& config, const graphs::TaskGraph& graph);
  graphs::BuddyMapping buddies;
  graphs::CheckpointSaves saves;
};

// Checks /protocol and /checkpoints for buddy (errors name the JSON path).
void check_buddy_options(const config::Config& config, config::JsonReader block);

class BuddyProtocol final : public core::Protocol {
public:
  BuddyProtocol(std::shared_ptr<const BuddyOptions> options, bool coordinator);

  void on_start(core::ProtocolContext& ctx) override;
  void on_task_completed(core::ProtocolContext& ctx, core::TaskId task, bool first_execution) override;
  core::ReceiveVerdict on_receive(core::ProtocolContext& ctx, const core::Message& message) override;
  void on_stored(core::ProtocolContext& ctx, const core::Message& message) override;
  void on_control(core::ProtocolContext& ctx, const core::Message& message) override;
  void on_failure_notice(core::ProtocolContext& ctx, const core::FailureNotice& notice) override;
  void on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info) override;
  bool finished(core::ProtocolContext& ctx) override;

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
    std::uint32_t acks_expected = 0, acks = 0;
    double first_save = -1, last_save = -1;
    std::uint64_t bytes = 0;
    bool valid = false;
  };
  void save_version(core::ProtocolContext& ctx, graphs::HandleId h, graphs::Version v);
  void store(core::ProtocolContext& ctx, const core::Message& m, const HeldSave& save);
  void try_validate(core::ProtocolContext& ctx);
  void collect_garbage(core::ProtocolContext& ctx, core::NodeId origin, std::uint32_t valid);

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
};

}  // namespace ftsim::protocols
