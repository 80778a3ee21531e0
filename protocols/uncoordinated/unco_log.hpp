#pragma once
// The failure-free part of Fig. 3 on an application process: what every data message carries
// (date, epoch and phase, l. 13-28), the acknowledgements and the logging rule (l. 34-39), the SPE
// table, the receipts (RPP), the log by reference, and the garbage collection of these tables
// below the smallest epoch (§III-A.4). In a recovery it gives the tables the recovery process
// asks for (dependencies, orphans) and learns from the line which senders rolled back and which
// re-sends their receivers already have.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "protocols/uncoordinated/unco_clock.hpp"
#include "protocols/uncoordinated/unco_options.hpp"
#include "protocols/uncoordinated/unco_tables.hpp"

namespace ftsim::protocols::uncoordinated {

class MessageLog {
public:
  MessageLog(const Options& options, node::NodeId node, Clock& clock) : options_(options), node_(node), clock_(clock) {}

  // --- failure-free ---
  // A data message leaving: stamped and kept, or, a re-send of an orphan its receiver has,
  // suppressed. `recovering`: a version it forgets stays in memory until the recovery is over.
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& m, bool recovering);
  // A data message the process takes now: dropped if stale (sent before a rollback that undid it)
  // or a duplicate (acknowledged: an orphan passed again), else received and acknowledged.
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& m);
  // l. 34-39; false if no message waits for it (nothing changed).
  bool on_ack(node::ProtocolContext& ctx, node::NodeId from, const messages::Ack& ack);
  // §III-A.4: no process restarts below `floor`.
  void collect(node::ProtocolContext& ctx, std::uint32_t floor);
  bool all_acked() const;  // every message it keeps acknowledged, or lost
  std::string waiting_acks(node::ProtocolContext& ctx) const;  // for the stall reports ("" if none)

  // --- checkpoints ---
  // The logged versions that later writes have replaced are kept alive by their pins: the
  // checkpoint holds them too (Logs_i, l. 42).
  void add_logged_versions(node::ProtocolContext& ctx, node::NodeSnapshot& snapshot) const;
  void write_tables(node::WireWriter& w) const;  // the clocks it restarts with, and the tables
  // Restores the node's state and the tables of `saved`: a live process (`keep_memory`) keeps
  // what it knows of the messages before its restart point, a replacement has only the
  // checkpoint's. Clocks aside (Clock::restore).
  void restore(node::ProtocolContext& ctx, Saved& saved, bool keep_memory);

  // --- recovery ---
  // During a recovery the table it reported stays as it was at the failure notice: an
  // acknowledgement waits for the end (the message stays in memory, replayable).
  void hold_ack(node::NodeId from, const messages::Ack& ack) { held_acks_.emplace_back(from, ack); }
  // The recovery is over: the versions it forgot meanwhile are unpinned; the acks held, returned.
  std::vector<std::pair<node::NodeId, messages::Ack>> end_recovery(node::ProtocolContext& ctx);
  std::vector<messages::Dependency> dependencies() const;  // for REPORT
  std::vector<Receipt> orphans(const messages::Line& line) const;  // l. 62-64
  void apply_line(const messages::Line& line);
  // `to` keeps this orphan of this process: a re-send of it is not made.
  void suppress(node::NodeId to, const messages::Lists::Orphan& orphan) { suppress_[{to, orphan.version}] = {orphan.epoch, orphan.phase}; }
  // The phase of a message logged by the send-deterministic rule (none: not such a message).
  std::optional<std::uint32_t> logged_phase(const SentKey& key) const;

private:
  void keep(node::ProtocolContext& ctx, const SentKey& key, Sent sent);
  void forget(node::ProtocolContext& ctx, std::map<SentKey, Sent>::iterator it, bool recovering);
  void log_entry(node::ProtocolContext& ctx, const SentKey& key, Sent& sent);
  bool stale(const node::Message& m, std::uint32_t send_epoch) const;

  const Options& options_;
  node::NodeId node_;
  Clock& clock_;
  std::map<SentKey, Sent> sent_;         // NonAck and Logs
  std::vector<Receipt> receipts_;        // RPP, per message
  std::set<SentKey> received_;           // (source, version) of the receipts: duplicates
  std::map<SpeKey, std::uint32_t> spe_;  // (send epoch, destination) -> receive epoch
  std::uint64_t next_store_key_ = 1;
  // Re-sends not to make: (receiver, version) -> (the receiver's epoch when it got it, send phase).
  std::map<SentKey, std::pair<std::uint32_t, std::uint32_t>> suppress_;
  // Per sender: its rollbacks (round, restart epoch), to recognise its messages from before one.
  std::unordered_map<node::NodeId, std::vector<std::pair<std::uint32_t, std::uint32_t>>> rollbacks_;
  std::vector<std::pair<graphs::HandleId, graphs::Version>> unpin_later_;  // not during a recovery
  std::vector<std::pair<node::NodeId, messages::Ack>> held_acks_;          // came during a recovery
};

}  // namespace ftsim::protocols::uncoordinated
