#pragma once
// The recovery process of Guermouche 2011 (Fig. 4), on the coordinator's host: it learns of
// failures only by the failure detector's notices and of everything else by messages.
//  - Each failure notice starts a round: ROUND to every process (a failed one's replacement gets
//    it when it is up), which stops and reports its dependency table (the SPE of Fig. 3 under the
//    send rule, its receive table under the piecewise rule), its restart epoch if it restarted,
//    and the dates at the beginning of its epochs.
//  - All reports in: the fixpoint (unco_line.hpp) gives the recovery line, sent to every process
//    (LINE). A notice arriving meanwhile starts a new round: the line then covers every failure.
//  - Each process answers with its NOTIFICATION (status, phase, phases with orphans); once all
//    have, NotifyPhases (l. 38-41): READY(X) for X the largest phase below every phase that
//    still has orphans not replayed; NO_ORPHAN_PHASE lowers the counts; READY(infinity) ends the
//    recovery. Without the send-deterministic logging (the classic protocols) there are no
//    phases: READY(infinity) follows the notifications.
//  - Garbage collection (§III-A.4): the smallest current epoch (from CHECKPOINTED and the
//    notifications), sent as FLOOR when it grows, outside recoveries.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "protocols/uncoordinated/unco_messages.hpp"
#include "protocols/uncoordinated/unco_options.hpp"

namespace ftsim::protocols::uncoordinated {

class Coordinator {
public:
  explicit Coordinator(const Options& options) : options_(options) {}

  void on_start(node::ProtocolContext& ctx);
  void on_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice);
  void on_message(node::ProtocolContext& ctx, const node::Message& m);
  bool finished() const { return stage_ == Stage::idle; }
  std::string phase(node::ProtocolContext& ctx) const;

private:
  // Where the round is. Transitions: transition().
  enum class Stage : std::uint8_t {
    idle,       // no recovery under way
    gathering,  // ROUND sent: waiting for every report (a notice starts a new round from any stage)
    notifying,  // LINE sent: waiting for every notification
    gating,     // READY(X) sent: waiting for the orphans of the phases above X (then READY(infinity))
  };
  void transition(Stage next);
  void on_report(node::ProtocolContext& ctx, node::NodeId from, const messages::Report& report);
  void compute_line(node::ProtocolContext& ctx);
  void notify_phases(node::ProtocolContext& ctx);
  void complete(node::ProtocolContext& ctx);
  void maybe_raise_floor(node::ProtocolContext& ctx);
  void set_epoch(node::NodeId node, std::uint32_t epoch);  // epochs_ and epoch_counts_ together
  std::string waiting_for(const std::vector<char>& have) const;

  const Options& options_;
  std::vector<std::uint32_t> latest_;  // per node: its last checkpoint known
  std::vector<std::uint32_t> epochs_;  // per node: its current epoch known
  std::map<std::uint32_t, std::uint32_t> epoch_counts_;  // epoch -> nodes at it (the least: the floor)
  std::uint32_t floor_ = 0;
  std::uint32_t round_ = 0;
  Stage stage_ = Stage::idle;
  std::vector<std::optional<messages::Report>> reports_;
  std::vector<char> notified_;
  std::map<std::uint32_t, std::uint32_t> orphan_phases_;  // NbOrphanPhase: phase -> processes with orphans in it
  std::uint32_t ready_ = 0;                               // the last READY sent in this round
  std::vector<std::uint32_t> line_;                       // the round's recovery line
  std::vector<node::FailureNotice> pending_;              // failures whose recovery is under way
  double round_began_ = 0;
};

}  // namespace ftsim::protocols::uncoordinated
