#pragma once
// Migration: proactive migration of a rank to a spare host on a predicted failure (/failures/
// prediction; Cores 2015 Ch. 3-4, digest §2.5-2.7). It sits below the protocols: a protocol
// never learns that its process moved, it only sees its events arrive later.
//
// On an alarm for node N (FailurePredictor decides which failures are announced and adds false
// alarms), if a spare is left:
// 1. Safe point (the thesis's negotiation and checkpoint wait): no new task starts on N; the
//    tasks running on its cores finish (they are not cut). ftsim's runtime can stop one node
//    between two tasks, so no other rank takes part (CPPC must bring every rank to the same
//    checkpoint call, §2.5).
// 2. Freeze: from the safe point N handles no event; what reaches it (messages, buffer releases,
//    its timers, storage answers, failure notices) waits, in order of arrival.
// 3. Spawn&Rec: /failures/prediction/spawn seconds to start the process on the spare and rebuild
//    the communicators (§2.5; spawn comes before the transfer in the split version, §2.7).
// 4. Transfer: the process's memory (NodeHost::memory_bytes: data versions, protocol stores,
//    held sends, task descriptors) moves from N's host to the spare in chunks of /failures/
//    prediction/chunk bytes, at most two in flight (the sender holds 2 x chunk, §2.7: the next
//    chunk is written while the previous one is sent); then the messages that reached the old host
//    during the migration are forwarded, as more chunks, until none is left.
// 5. Switch: N runs on the spare; the waiting events are handled, in order; tasks start again.
// A predicted failure that comes after the switch hits the host N left: nothing is lost (counted
// as avoided). A failure of N before the switch is an ordinary failure: the migration stops, its
// spare goes back to the pool (the backend keeps the host for N's replacement), what waited is
// lost with N's memory, and the protocol recovers. A false alarm costs a migration and a spare.
// With no spare left the alarm is skipped (recorded). An alarm for a node that is down, or
// already migrating, starts nothing (recorded).
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/config/run_config.hpp"
#include "sim/node/migration_metrics.hpp"
#include "sim/node/node_host.hpp"
#include "sim/node/run_record.hpp"
#include "sim/world/backend.hpp"
#include "sim/world/failure_prediction.hpp"
#include "sim/world/rank_lifecycle.hpp"
#include "sim/world/spare_pool.hpp"

namespace ftsim::world {

using graphs::NodeId;

// An event that reached a frozen rank, handled after the switch.
struct DeferredEvent {
  enum class Kind : std::uint8_t { message, release, timer, storage, notice };
  Kind kind = Kind::message;
  node::Message message;     // message, release
  std::uint64_t token = 0;   // timer, storage
  bool has_content = false;  // storage: a read found the object
  node::Bytes content;       // storage: what the read returned
  node::FailureNotice notice;
};

// What only the world driver can do for a migration (implemented by Simulation): its timers,
// and the events that waited for a frozen rank, handled as they would have been.
class MigrationWorld {
public:
  virtual ~MigrationWorld() = default;
  virtual void set_migration_timer(double time, NodeId node, std::uint64_t token) = 0;
  // The rank of `node` now runs on its spare host (the world counts it as progress).
  virtual void migration_switched(NodeId node) = 0;
  // Handles, in order, the events that waited while `node` was frozen.
  virtual void replay(NodeId node, std::vector<DeferredEvent>& events) = 0;
};

// What a migration works with besides the world driver: the backend (time, the spare host, the
// state's transfer), the spares shared with replacements, the ranks and the run's exporters
// (alarms and migrations are recorded).
struct MigrationSurroundings {
  MigrationWorld& world;
  Backend& backend;
  SparePool& spares;
  const std::vector<RankLifecycle>& ranks;
  node::Recorder& recorder;
};

class Migration {
public:
  Migration(const config::PredictionConfig& prediction, const config::FailureConfig& failures, NodeId nodes,
            std::uint64_t seed, MigrationSurroundings surroundings, node::MigrationMetrics& metrics);

  // A timed failure of `node` at `time` became known (the world's id for it: `failure`).
  void failure_scheduled(NodeId node, double time, std::uint64_t failure);
  // Every failure known at the start went through failure_scheduled: place the false alarms.
  void start();
  // The failure `failure` of `node` is due: true if it hits a host the rank has left (avoided).
  bool absorbs(std::uint64_t failure, NodeId node);
  // A failure hits the rank of `node` (an ordinary failure): its migration, if any, stops.
  void on_failure(NodeId node);
  // The run is over: migrations under way are recorded as such.
  void finish();

  void on_timer(NodeId node, std::uint64_t token);
  void on_transfer_done(NodeId node, std::uint64_t token);
  // A task (or protocol activity) of `node` ended: it may have reached its safe point.
  void after_task_finished(NodeId node);

  bool frozen(NodeId node) const { return node < moves_.size() && moves_[node].phase >= Phase::spawning; }
  void defer(NodeId node, DeferredEvent event);

private:
  enum class Phase : std::uint8_t { idle, draining, spawning, transferring };
  enum class TokenKind : std::uint64_t { alarm = 1, spawned = 2, transfer = 3 };
  struct Alarm {
    NodeId node = 0;
    bool true_alarm = false;
    double predicted_failure = 0;
    std::uint32_t placement = 0;  // the rank's placement when the alarm was raised
    bool raised = false;
    std::size_t record = 0;       // its MigrationRecord, once raised
  };
  struct Move {
    Phase phase = Phase::idle;
    std::uint32_t generation = 0;  // tokens of an earlier migration of the node are stale
    std::uint32_t placement = 0;   // completed migrations of the rank: which host it is on
    std::size_t record = 0;
    std::uint64_t to_send = 0;      // bytes of the current stream not yet sent
    std::uint32_t in_flight = 0;    // chunks sent, not yet delivered
    std::uint64_t unforwarded = 0;  // bytes of waiting messages not yet forwarded
    std::vector<DeferredEvent> deferred;
  };

  static std::uint64_t token(TokenKind kind, std::uint32_t generation, std::uint64_t index);
  void add_alarm(double time, NodeId node, bool true_alarm, double predicted_failure, std::optional<std::uint64_t> failure);
  void raise(std::size_t alarm);
  void check_safe_point(NodeId node);
  void send_chunks(NodeId node);
  void complete(NodeId node);
  // Tells the exporters, if any (nothing is built when none is on), about the alarm `record`.
  void tell_exporters(node::RecordKind kind, NodeId node, std::size_t record);
  double world_time() const { return around_.backend.now(); }
  node::NodeHost* rank_host(NodeId node) const { return around_.ranks[node].host(); }
  // Takes a spare host for the migration of `node`: false if none is left.
  bool take_spare(NodeId node);

  config::PredictionConfig prediction_;
  FailurePredictor predictor_;
  MigrationSurroundings around_;
  node::MigrationMetrics& metrics_;
  bool renewal_ = false;
  std::uint64_t announced_ = 0;  // failures announced so far (lists: known at the start)
  double horizon_ = 0;           // the latest failure known at the start
  std::vector<Alarm> alarms_;
  std::unordered_map<std::uint64_t, std::size_t> alarm_of_failure_;
  std::vector<Move> moves_;
};

}  // namespace ftsim::world
