#include "protocols/uncoordinated/unco_process.hpp"

namespace ftsim::protocols::uncoordinated {

namespace {
bool carries_data(const node::Message& m) { return m.traffic == node::Traffic::application || m.traffic == node::Traffic::recovery; }
}  // namespace

node::SendVerdict Process::on_send(node::ProtocolContext& ctx, node::Message& m) {
  if (!carries_data(m)) return node::SendVerdict::send;
  return log_.on_send(ctx, m, recovery_.under_way());
}

node::ReceiveVerdict Process::on_receive(node::ProtocolContext& ctx, const node::Message& m) {
  if (!carries_data(m)) return node::ReceiveVerdict::accept;
  // Not while stopped for a recovery (until the line is applied) or saving a checkpoint.
  const CheckpointState checkpoint = checkpointer_.state();
  if (recovery_.waits_for_line() || checkpoint == CheckpointState::encoding || checkpoint == CheckpointState::writing) {
    return node::ReceiveVerdict::defer;
  }
  const node::ReceiveVerdict verdict = log_.on_receive(ctx, m);
  if (verdict == node::ReceiveVerdict::drop_duplicate) {
    replays_.orphan_replayed(ctx, m.source, messages::version_key(m.handle, m.version), recovery_.round());
  } else if (verdict == node::ReceiveVerdict::accept) {
    checkpointer_.received();
  }
  return verdict;
}

void Process::on_control(node::ProtocolContext& ctx, const node::Message& m) {
  using namespace messages;
  switch (m.control_type) {
    case kAck:
      if (recovery_.under_way()) {
        log_.hold_ack(m.source, node::decode<Ack>(m));
      } else if (log_.on_ack(ctx, m.source, node::decode<Ack>(m))) {
        checkpointer_.acknowledged(ctx);
      }
      break;
    case kFloor: on_floor(ctx, node::decode<Floor>(m).epoch); break;
    case kRound: recovery_.on_round(ctx, node::decode<Round>(m)); break;
    case kLine: recovery_.on_line(ctx, node::decode<Line>(m)); break;
    case kLists: recovery_.on_lists(ctx, m.source, node::decode<Lists>(m)); break;
    case kListsAck: replays_.on_lists_ack(ctx, node::decode<ListsAck>(m), recovery_.round()); break;
    case kReady: recovery_.on_ready(ctx, node::decode<Ready>(m)); break;
    case kOrphanSent: replays_.orphan_replayed(ctx, m.source, node::decode<OrphanSent>(m).version, recovery_.round()); break;
    default: break;
  }
}

void Process::on_floor(node::ProtocolContext& ctx, std::uint32_t floor) {
  // §III-A.4: no process restarts below the smallest current epoch. Checkpoints that start an
  // earlier epoch and the tables' entries of earlier epochs can go (not during a recovery, and
  // not for the classic protocol, whose rollbacks have no bound).
  if (options_.logging == Logging::none || recovery_.under_way()) return;
  if (!store_.collect(ctx, floor, checkpointer_.checkpoints())) return;
  log_.collect(ctx, floor);
}

void Process::on_timer(node::ProtocolContext& ctx, std::uint64_t token) {
  if (CheckpointStore::is_charge(token)) {
    charged(ctx, token);
    return;
  }
  checkpointer_.on_timer(ctx, token);
}

void Process::charged(node::ProtocolContext& ctx, std::uint64_t token) {
  switch (store_.charge_done(token)) {
    case CheckpointStore::Charge::encoded: checkpointer_.on_encoded(ctx); break;
    case CheckpointStore::Charge::decoded: recovery_.on_decoded(ctx); break;
    case CheckpointStore::Charge::stale: break;
  }
}

void Process::on_storage_done(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) {
  if (CheckpointStore::is_write(token)) {
    checkpointer_.on_written(ctx, CheckpointStore::written(token));
    return;
  }
  recovery_.on_read(ctx, token, content);
}

bool Process::finished(node::ProtocolContext&) const {
  const CheckpointState checkpoint = checkpointer_.state();
  if (recovery_.under_way() || checkpoint == CheckpointState::draining || checkpoint == CheckpointState::encoding ||
      checkpoint == CheckpointState::writing) {
    return false;
  }
  // Its messages acknowledged (the last logging decisions made), as on MPI, where the job ends
  // only once every packet is received.
  return options_.logging == Logging::none || log_.all_acked();
}

std::string Process::phase(node::ProtocolContext& ctx) const {
  if (std::string recovery = recovery_.phase(); !recovery.empty()) return recovery;
  if (std::string checkpoint = checkpointer_.phase(ctx); !checkpoint.empty()) return checkpoint;
  if (options_.logging != Logging::none) return log_.waiting_acks(ctx);
  return {};
}

}  // namespace ftsim::protocols::uncoordinated
