#pragma once
// An application process after the recovery line (Fig. 3 l. 62-74; Fig. 4 l. 38-41): the orphans
// it keeps from rolled-back senders, per phase of reception (OrphCount, l. 8), told to their
// senders with the versions it lacks (LISTS); the re-sends those senders ask of it, from memory
// (l. 65-67, 71-72): a message logged by the send-deterministic rule goes when the recovery
// process releases its phase (READY); an unacknowledged one, or the channel state of the classic
// protocols, goes at once (it was in transit: the channel's content, which the paper's reliable
// channels deliver); its NOTIFICATION (l. 68); the orphans passed again (l. 29-32,
// NO_ORPHAN_PHASE); and when its own phase is released, so that it may run again (l. 73).
// The recovery drives it; it keeps no round of its own (each call names the round).
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "protocols/uncoordinated/unco_clock.hpp"
#include "protocols/uncoordinated/unco_log.hpp"

namespace ftsim::protocols::uncoordinated {

class Replays {
public:
  enum class Status : std::uint8_t { running, blocked, rolled_back };  // Fig. 3 l. 1, reported in l. 68

  Replays(const Options& options, node::NodeId node, Clock& clock, MessageLog& log)
      : options_(options), node_(node), clock_(clock), log_(log) {}

  void begin_round();  // ROUND: what an earlier round found is void
  void set_status(Status status) { status_ = status; }
  void restored_to(std::uint32_t checkpoint) { rolled_to_start_ = checkpoint == 0; }
  void block(std::uint32_t phase) { blocked_phase_ = phase; }  // the phase it waits in (l. 73)
  // The line applied: LISTS to the senders of its orphans and of what it lacks, the lists that
  // came before, the re-sends it may make; its notification if it has no list to wait for.
  void send_lists(node::ProtocolContext& ctx, const messages::Line& line, std::uint32_t round);
  void on_lists(node::ProtocolContext& ctx, node::NodeId from, const messages::Lists& lists);
  void hold_lists(node::NodeId from, messages::Lists lists) { pending_lists_.emplace_back(from, std::move(lists)); }
  void on_lists_ack(node::ProtocolContext& ctx, const messages::ListsAck& ack, std::uint32_t round);
  void orphan_replayed(node::ProtocolContext& ctx, node::NodeId from, std::uint64_t version, std::uint32_t round);
  void on_ready(std::uint32_t phase) { ready_ = phase; }
  bool may_run() const;
  void resumed(node::ProtocolContext& ctx);  // running again: from the input, its initial values go again
  void serve(node::ProtocolContext& ctx);    // the re-sends asked of it that may go now
  void end();  // READY(infinity)
  std::string phase() const;  // what it waits for once the line is applied

private:
  using SentKey = std::pair<node::NodeId, std::uint64_t>;
  void notify(node::ProtocolContext& ctx, std::uint32_t round);
  std::vector<std::pair<node::NodeId, std::uint64_t>> missing_versions(node::ProtocolContext& ctx) const;

  const Options& options_;
  node::NodeId node_;
  Clock& clock_;
  MessageLog& log_;
  Status status_ = Status::running;
  std::uint32_t blocked_phase_ = 0;  // its phase when it applied the line (l. 73)
  std::uint32_t ready_ = 0;          // the last READY of the round
  bool rolled_to_start_ = false;     // restored the job's input: its initial values go again
  // Orphans it received and keeps, until their sender passes them again: by (source, version),
  // the phase they were received in; and the count per phase (OrphCount, l. 8).
  std::map<SentKey, std::uint32_t> orphans_;
  std::map<std::uint32_t, std::uint32_t> orphan_count_;
  std::vector<SentKey> requests_;  // re-sends asked of it: (destination, version), served once allowed
  std::vector<std::pair<node::NodeId, messages::Lists>> pending_lists_;  // arrived before its restore
  std::uint32_t lists_unanswered_ = 0;
};

}  // namespace ftsim::protocols::uncoordinated
