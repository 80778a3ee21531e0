#include "protocols/uncoordinated/unco_coordinator.hpp"

#include <algorithm>
#include <stdexcept>

#include "protocols/uncoordinated/unco_line.hpp"
#include "protocols/uncoordinated/unco_metrics.hpp"

namespace ftsim::protocols::uncoordinated {

using messages::kNoEpoch;

namespace {
constexpr std::uint32_t kNotSent = kNoEpoch - 1;  // no READY sent yet in this round
}  // namespace

void Coordinator::transition(Stage next) {
  bool legal = false;
  switch (stage_) {
    case Stage::idle: legal = next == Stage::gathering; break;
    case Stage::gathering: legal = next == Stage::gathering || next == Stage::notifying; break;
    case Stage::notifying: legal = next == Stage::gathering || next == Stage::gating; break;
    case Stage::gating: legal = next == Stage::gathering || next == Stage::idle; break;
  }
  if (!legal) {
    throw std::logic_error("uncoordinated: protocol bug: recovery process stage " + std::to_string(int(stage_)) + " -> " +
                           std::to_string(int(next)));
  }
  stage_ = next;
}

void Coordinator::on_start(node::ProtocolContext& ctx) {
  latest_.assign(ctx.node_count(), 0);
  epochs_ = options_.first_epoch;
  epoch_counts_.clear();
  for (const std::uint32_t e : epochs_) ++epoch_counts_[e];
  floor_ = epochs_.empty() ? 0 : epoch_counts_.begin()->first;
}

void Coordinator::on_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) {
  // A new round, whatever the stage: the line it computes covers this failure and the earlier ones.
  if (stage_ == Stage::idle) round_began_ = ctx.now();
  pending_.push_back(notice);
  ++round_;
  transition(Stage::gathering);
  reports_.assign(ctx.node_count(), std::nullopt);
  notified_.assign(ctx.node_count(), 0);
  orphan_phases_.clear();
  ready_ = kNotSent;
  if (ctx.recording()) ctx.note("round " + std::to_string(round_) + ": node " + std::to_string(notice.node) + " failed, every process reports");
  for (node::NodeId n = 0; n < ctx.node_count(); ++n) messages::send(ctx, n, messages::Round{round_, latest_[n]});
}

void Coordinator::on_message(node::ProtocolContext& ctx, const node::Message& m) {
  using namespace messages;
  switch (m.control_type) {
    case kCheckpointed: {
      const Checkpointed c = node::decode<Checkpointed>(m);
      latest_[m.source] = c.checkpoint;
      set_epoch(m.source, c.epoch);
      maybe_raise_floor(ctx);
      break;
    }
    case kReport: {
      const Report report = node::decode<Report>(m);
      if (report.round == round_ && stage_ == Stage::gathering) on_report(ctx, m.source, report);
      break;
    }
    case kNotification: {
      const Notification n = node::decode<Notification>(m);
      if (n.round != round_ || stage_ != Stage::notifying) break;
      notified_[m.source] = 1;
      set_epoch(m.source, n.epoch);
      latest_[m.source] = n.epoch - options_.first_epoch[m.source];
      for (std::uint32_t phase : n.orphan_phases) ++orphan_phases_[phase];
      if (std::find(notified_.begin(), notified_.end(), 0) != notified_.end()) break;
      transition(Stage::gating);
      notify_phases(ctx);
      break;
    }
    case kNoOrphanPhase: {
      const NoOrphanPhase n = node::decode<NoOrphanPhase>(m);
      if (n.round != round_) break;
      auto it = orphan_phases_.find(n.phase);
      if (it != orphan_phases_.end() && --it->second == 0) orphan_phases_.erase(it);
      if (stage_ == Stage::gating) notify_phases(ctx);
      break;
    }
    default: break;
  }
}

void Coordinator::on_report(node::ProtocolContext& ctx, node::NodeId from, const messages::Report& report) {
  ctx.counters().add(kReportBytes, node::encode(report).size());
  reports_[from] = report;
  for (const auto& r : reports_) {
    if (!r) return;  // Fig. 4 l. 9: wait until the dependency table is complete
  }
  compute_line(ctx);
}

void Coordinator::compute_line(node::ProtocolContext& ctx) {
  const node::NodeId nodes = ctx.node_count();
  std::vector<std::uint32_t> initial(nodes, kNoEpoch);
  std::vector<std::vector<messages::Dependency>> dependencies(nodes);
  for (node::NodeId n = 0; n < nodes; ++n) {
    initial[n] = reports_[n]->restart_epoch;
    dependencies[n] = reports_[n]->dependencies;
  }
  line_ = recovery_line(initial, dependencies);
  messages::Line line;
  line.round = round_;
  line.epochs = line_;
  line.dates.assign(nodes, 0);
  std::uint32_t rolled_back = 0;
  std::string restart;  // per node: its restart checkpoint, or '-'
  std::string failed;
  for (node::NodeId n = 0; n < nodes; ++n) {
    const auto& r = *reports_[n];
    if (line_[n] != kNoEpoch) {
      ++rolled_back;
      const std::size_t index = line_[n] >= r.first_epoch ? line_[n] - r.first_epoch : 0;
      // The node erases its later checkpoints when it applies the line: a replacement after a
      // failure before its notification must be told this one, not a checkpoint that is gone.
      latest_[n] = static_cast<std::uint32_t>(index);
      line.dates[n] = index < r.epoch_dates.size() ? r.epoch_dates[index] : 0;
    }
    if (r.restart_epoch != kNoEpoch) failed += (failed.empty() ? "" : ",") + std::to_string(n);
    restart += (n ? " " : "") + (line_[n] == kNoEpoch ? std::string("-") : std::to_string(line_[n] - r.first_epoch));
  }
  ctx.counters().add(kProcessesRolledBack, rolled_back);
  ctx.counters().add(kLineMicroseconds, static_cast<std::uint64_t>((ctx.now() - round_began_) * 1e6));
  // The line in the event log (docs/protocols.md: the agreement test reads it): the restart
  // checkpoint of each node, '-' for those that keep their state.
  if (ctx.recording()) {
    ctx.note("recovery line round " + std::to_string(round_) + " failed " + failed + " checkpoints " + restart, "recovery");
  }
  transition(Stage::notifying);
  for (node::NodeId n = 0; n < nodes; ++n) messages::send(ctx, n, line);
}

void Coordinator::notify_phases(node::ProtocolContext& ctx) {
  // Fig. 4 l. 39: the phases that depend on no orphan message still to be replayed.
  std::uint32_t ready = kNoEpoch;
  if (options_.logging == Logging::send_deterministic && !orphan_phases_.empty()) ready = orphan_phases_.begin()->first - 1;
  if (ready == ready_ && ready != kNoEpoch) return;
  ready_ = ready;
  for (node::NodeId n = 0; n < ctx.node_count(); ++n) messages::send(ctx, n, messages::Ready{round_, ready});
  if (ready == kNoEpoch) complete(ctx);
}

void Coordinator::complete(node::ProtocolContext& ctx) {
  std::uint32_t rolled_back = 0;
  for (std::uint32_t e : line_) rolled_back += e != kNoEpoch ? 1 : 0;
  for (const node::FailureNotice& notice : pending_) {
    node::FailureEffect effect;
    effect.processes_rolled_back = rolled_back;
    const node::NodeId f = notice.node;
    if (f < line_.size() && line_[f] != kNoEpoch) {
      const std::uint32_t checkpoint = line_[f] - options_.first_epoch[f];
      effect.restart_point = checkpoint == 0 ? "from scratch" : "checkpoint " + std::to_string(checkpoint);
    }
    ctx.record_failure_effect(notice, effect);
    ctx.record_recovered(notice);
  }
  ctx.counters().add(kRecoveries);
  ctx.counters().add(kRecoveryMicroseconds, static_cast<std::uint64_t>((ctx.now() - round_began_) * 1e6));
  if (ctx.recording()) {
    ctx.note("round " + std::to_string(round_) + " over: " + std::to_string(rolled_back) + " processes rolled back", "recovery");
    ctx.record_span("recovery round " + std::to_string(round_), "recovery", round_began_);
  }
  pending_.clear();
  transition(Stage::idle);
  maybe_raise_floor(ctx);
  ctx.check_completion();
}

void Coordinator::set_epoch(node::NodeId node, std::uint32_t epoch) {
  std::uint32_t& known = epochs_[node];
  if (known == epoch) return;
  auto it = epoch_counts_.find(known);
  if (--it->second == 0) epoch_counts_.erase(it);
  ++epoch_counts_[epoch];
  known = epoch;
}

void Coordinator::maybe_raise_floor(node::ProtocolContext& ctx) {
  // No process restarts below the smallest current epoch (§III-A.4): older checkpoints and the
  // messages logged into older epochs can go. Not during a recovery (epochs are moving), and not
  // for the classic protocol, whose rollbacks have no bound (the domino effect).
  if (stage_ != Stage::idle || options_.logging == Logging::none || epochs_.empty()) return;
  const std::uint32_t floor = epoch_counts_.begin()->first;  // the least epoch (kept counted: no scan per message)
  if (floor <= floor_) return;
  floor_ = floor;
  for (node::NodeId n = 0; n < ctx.node_count(); ++n) messages::send(ctx, n, messages::Floor{floor_});
}

std::string Coordinator::waiting_for(const std::vector<char>& have) const {
  std::string nodes;
  std::size_t count = 0;
  for (std::size_t n = 0; n < have.size(); ++n) {
    if (have[n]) continue;
    if (++count <= 8) nodes += (nodes.empty() ? "" : ", ") + std::to_string(n);
  }
  if (count > 8) nodes += ", ...";
  return nodes;
}

std::string Coordinator::phase(node::ProtocolContext&) const {
  const std::string round = "recovery round " + std::to_string(round_) + ": ";
  switch (stage_) {
    case Stage::idle: return {};
    case Stage::gathering: {
      std::vector<char> have(reports_.size());
      for (std::size_t n = 0; n < have.size(); ++n) have[n] = reports_[n].has_value();
      return round + "waiting for the dependency tables of nodes " + waiting_for(have);
    }
    case Stage::notifying: return round + "line sent, waiting for the notifications of nodes " + waiting_for(notified_);
    case Stage::gating: {
      std::string phases;
      for (const auto& [phase, count] : orphan_phases_) phases += (phases.empty() ? "" : ", ") + std::to_string(phase);
      return round + "waiting for the orphan messages of phases " + phases + " to be replayed";
    }
  }
  return {};
}

}  // namespace ftsim::protocols::uncoordinated
