#pragma once
// Typed records of what a run does, emitted as it happens by the world driver, the node hosts
// and (through their context) the protocols. The outputs are exporters of these records
// (RecordSink): trace.json (TraceWriter), events.log (EventLog); results.json is built from the
// typed records of run_metrics.hpp. Nothing is recorded, and nothing costs more than a test of
// an empty list, when no exporter is on.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "sim/node/message.hpp"
#include "sim/node/migration_metrics.hpp"

namespace ftsim::node {

enum class RecordKind : std::uint8_t {
  task_start,   // process, core, task
  task_end,     // process, core, task, start, again
  message,      // *message delivered to its destination at `time` (sent at message->sent_at)
  failure,      // node `peer` failed (its incarnation)
  notice,       // failure notice `sequence` about node `peer`
  replacement,  // a spare took node `peer` (its new incarnation; with shrink, `machine`: the spare machine)
  rehost,       // shrink, no spare left: node `peer` (its new incarnation) restarts on surviving machine
                // `machine`, which runs `machine_ranks` ranks now (`text`: their numbers), `machines_up`
  span,         // a protocol phase on `process` from `start` to `time`: `text`, `category`
  note,         // a protocol decision on `process`: `text`
  run_end,      // the run is over: `text`
  // Proactive migration (sim/world/migration.hpp); `process` is the node, *migration its alarm's record:
  alarm,             // the predictor raised an alarm (true or false) for the node
  migration_start,   // a spare is taken: the node starts no new task, waits for the running ones
  migration_frozen,  // the node reached its safe point: frozen, its process spawns on the spare
  migration_transfer,  // the spare is up: the node's state (migration->state_bytes) starts to move
  migration_end,     // the alarm's migration ended or none started: migration->outcome says how
  failure_avoided,   // the alarm's failure came and hit the host the rank had left
  // The events of a checkpoint trace (docs/trace-format.md), in each process's local order:
  data_sent,         // process `process` sent *message (its `id` is unique in the run)
  data_received,     // process `process` accepted *message (its runtime stores it now)
  local_checkpoint,  // the state of `process` now is its checkpoint `checkpoint` (a protocol's record)
  data_logged,       // process `process` now keeps (`logged`) or no longer keeps the data message it sent to
                     // message->destination of (message->handle, message->version) in a log it can replay
};

struct Record {
  Record(RecordKind record_kind, double at, double began = 0) : kind(record_kind), time(at), start(began) {}

  RecordKind kind = RecordKind::note;
  double time = 0;
  double start = 0;
  long process = -1;  // a node, the coordinator (= number of nodes), or -1: the driver
  NodeId peer = 0;
  std::uint32_t core = 0;
  TaskId task = 0;
  bool again = false;  // task_end: the task had completed before (a re-execution)
  bool logged = false;  // data_logged: kept in a log it can replay
  std::uint32_t incarnation = 0;
  std::uint32_t sequence = 0;
  std::uint32_t checkpoint = 0;
  std::uint32_t machine = 0;        // rehost, replacement under shrink
  std::uint32_t machine_ranks = 0;  // rehost
  std::uint32_t machines_up = 0;    // rehost, replacement under shrink (0: not a shrinking run)
  const Message* message = nullptr;
  const MigrationRecord* migration = nullptr;
  std::string_view text;
  const char* category = "";
};

class RecordSink {
public:
  virtual ~RecordSink() = default;
  virtual void record(const Record& record) = 0;
  virtual void close() {}
};

class Recorder {
public:
  void add(std::unique_ptr<RecordSink> sink) { sinks_.push_back(std::move(sink)); }
  bool active() const { return !sinks_.empty(); }
  void record(const Record& record) {
    for (auto& sink : sinks_) sink->record(record);
  }
  void close() {
    for (auto& sink : sinks_) sink->close();
    sinks_.clear();
  }

private:
  std::vector<std::unique_ptr<RecordSink>> sinks_;
};

}  // namespace ftsim::node
