#pragma once
// The control messages of the uncoordinated protocol (Guermouche 2011, Figs. 3 and 4), one typed
// struct each whose fields() lists its fields once (sim/node/codec.hpp: node::encode,
// node::decode<T>); the field order and widths are the simulated sizes. Lists have u32 counts.
//   application process -> application process: ACK (Fig. 3 l. 27), LISTS and LISTS_ACK (the
//     orphans a process keeps from a rolled-back one, so that it does not send them again, and
//     the versions it lacks after a rollback), ORPHAN_SENT (an orphan the sender did not send
//     again: Fig. 3 l. 29-32 counts it as received)
//   application process -> recovery process: CHECKPOINTED (its new epoch, for the garbage
//     collection's smallest epoch), REPORT (its SPE or receive table: Fig. 3 l. 52/56),
//     NOTIFICATION (Fig. 3 l. 68), NO_ORPHAN_PHASE (l. 32)
//   recovery process -> application processes: ROUND (a failure: stop and report), LINE (the
//     recovery line, Fig. 4 l. 17), READY (ReadyPhase, l. 40-41), FLOOR (the smallest epoch, §III-A.4)
#include <cstdint>
#include <vector>

#include "sim/node/codec.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::uncoordinated::messages {

using node::Bytes;
using node::NodeId;

inline constexpr std::uint32_t kNoEpoch = 0xffffffffu;  // a process that keeps its state (RL = infinity)

enum Type : std::uint32_t {
  kAck = 1,
  kCheckpointed,
  kFloor,
  kRound,
  kReport,
  kLine,
  kLists,
  kListsAck,
  kNotification,
  kOrphanSent,
  kNoOrphanPhase,
  kReady,
};

inline std::uint64_t version_key(graphs::HandleId h, graphs::Version v) { return (std::uint64_t(h) << 32) | v; }
inline graphs::HandleId handle_of(std::uint64_t key) { return static_cast<graphs::HandleId>(key >> 32); }
inline graphs::Version version_of(std::uint64_t key) { return static_cast<graphs::Version>(key & 0xffffffffu); }

struct Ack {  // the receiver got (h, v) sent at `date` in its epoch `epoch` (`duplicate`: it already had it)
  static constexpr Type type = kAck;
  std::uint64_t version = 0;
  std::uint32_t date = 0, epoch = 0;
  bool duplicate = false;
  template <class F> void fields(F& f) { f(version, date, epoch, duplicate); }
};

struct Checkpointed {
  static constexpr Type type = kCheckpointed;
  std::uint32_t checkpoint = 0, epoch = 0;
  template <class F> void fields(F& f) { f(checkpoint, epoch); }
};

struct Floor {
  static constexpr Type type = kFloor;
  std::uint32_t epoch = 0;
  template <class F> void fields(F& f) { f(epoch); }
};

struct Round {  // round `round` of recovery: stop and report; `latest`: the addressee's last checkpoint known
  static constexpr Type type = kRound;
  std::uint32_t round = 0, latest = 0;
  template <class F> void fields(F& f) { f(round, latest); }
};

// One rollback dependency, reported by the process it would roll back (the target): if process
// `trigger` restarts in an epoch <= `threshold`, the reporter must restart in epoch `epoch` or
// before. Send rule: an unlogged message sent in `epoch` was received by `trigger` in `threshold`
// (SPE, Fig. 3 l. 39). Piecewise rule: a message sent by `trigger` in `threshold` was received in
// `epoch` (its receive table).
struct Dependency {
  NodeId trigger = 0;
  std::uint32_t threshold = 0, epoch = 0;
  template <class F> void fields(F& f) { f(trigger, threshold, epoch); }
};

struct Report {
  static constexpr Type type = kReport;
  std::uint32_t round = 0, incarnation = 0;
  std::uint32_t restart_epoch = kNoEpoch;  // it restarted in this epoch since the last complete recovery
  std::uint32_t epoch = 0, first_epoch = 1;
  std::vector<std::uint32_t> epoch_dates;  // its date at the beginning of each epoch from first_epoch
  std::vector<Dependency> dependencies;
  template <class F> void fields(F& f) {
    f(round, incarnation, restart_epoch, epoch, first_epoch, node::count32(epoch_dates), node::count32(dependencies));
  }
};

struct Line {  // RL: per process its restart epoch (kNoEpoch: keeps its state) and the date then
  static constexpr Type type = kLine;
  std::uint32_t round = 0;
  std::vector<std::uint32_t> epochs, dates;
  template <class F> void fields(F& f) { f(round, node::count32(epochs), node::count32(dates)); }
};

struct Lists {
  static constexpr Type type = kLists;
  struct Orphan {
    std::uint64_t version;
    std::uint32_t epoch;  // the epoch the sender of LISTS received it in
    std::uint32_t phase;  // the phase it was sent in
    template <class F> void fields(F& f) { f(version, epoch, phase); }
  };
  std::uint32_t round = 0;
  std::vector<Orphan> orphans;         // received from the addressee, sent after its restart point, kept
  std::vector<std::uint64_t> needed;   // versions the sender of LISTS lacks and the addressee sends it
  template <class F> void fields(F& f) { f(round, node::count32(orphans), node::count32(needed)); }
};

struct ListsAck {
  static constexpr Type type = kListsAck;
  std::uint32_t round = 0;
  template <class F> void fields(F& f) { f(round); }
};

struct Notification {  // Fig. 3 l. 68: (Orphan, Status, Phase, OrphPhases); LogPhases: see READY
  static constexpr Type type = kNotification;
  std::uint32_t round = 0;
  bool rolled_back = false;
  std::uint32_t phase = 0, epoch = 0;
  std::vector<std::uint32_t> orphan_phases;
  template <class F> void fields(F& f) { f(round, rolled_back, phase, epoch, node::count32(orphan_phases)); }
};

struct OrphanSent {
  static constexpr Type type = kOrphanSent;
  std::uint64_t version = 0;
  template <class F> void fields(F& f) { f(version); }
};

struct NoOrphanPhase {
  static constexpr Type type = kNoOrphanPhase;
  std::uint32_t round = 0, phase = 0;
  template <class F> void fields(F& f) { f(round, phase); }
};

struct Ready {  // ReadyPhase for every phase <= `phase` (kNoEpoch: every phase, the recovery is over)
  static constexpr Type type = kReady;
  std::uint32_t round = 0, phase = 0;
  template <class F> void fields(F& f) { f(round, phase); }
};

template <class M>
void send(node::ProtocolContext& ctx, NodeId to, const M& message, std::uint32_t incarnation = node::kAnyIncarnation) {
  ctx.send_control(to, M::type, node::encode(message), node::Traffic::control, 0, incarnation);
}

}  // namespace ftsim::protocols::uncoordinated::messages
