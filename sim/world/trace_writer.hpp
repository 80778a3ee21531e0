#pragma once
// Exports the run's records (run_record.hpp) as a trace in the Chrome Trace Event format (opens
// in Perfetto and chrome://tracing): a process per node, a thread (lane) per core for tasks,
// lanes for sends with flow arrows to a short slice on the receiver's receives lanes, lanes for
// protocol spans and a lane for notes (checkpoints, recoveries, plans), failure, replacement and
// shrink markers, and with /failures/prediction a lane for migrations and alarms
// (docs/results.md). Sends, receives and protocol spans may be concurrent: each kind has as many
// lanes as it needs (TraceLanes), so that no two slices of one lane overlap.
#include <cstdint>
#include <fstream>
#include <string>

#include "graphs/task_graph.hpp"
#include "sim/node/run_record.hpp"
#include "sim/world/trace_lanes.hpp"

namespace ftsim::world {

class TraceWriter final : public node::RecordSink {
public:
  // Lanes of a node process besides its cores.
  static constexpr std::uint32_t kSendLane = 10000;
  static constexpr std::uint32_t kProtocolLane = 10001;
  static constexpr std::uint32_t kReceiveLane = 10002;
  static constexpr std::uint32_t kMigrationLane = 10003;  // only with a migration lane
  // The k-th extra lane (k >= 1) of a kind, added when its first k lanes are busy: far above the
  // others, so that any number fits.
  static constexpr std::uint32_t kMoreSendLanes = 1000000;
  static constexpr std::uint32_t kMoreReceiveLanes = 2000000;
  static constexpr std::uint32_t kMoreProtocolLanes = 3000000;

  // `migration_lane`: the run may migrate (/failures/prediction): each node gets a lane for its
  // migrations and alarms (a migration may overlap a protocol span, so it has a lane of its own).
  TraceWriter(const std::string& path, const graphs::TaskGraph& graph, std::uint32_t cores,
              const std::string& coordinator_name, bool migration_lane = false);
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void record(const node::Record& record) override;
  void close() override;

private:
  void task(std::uint32_t node, std::uint32_t core, const std::string& name, const std::string& kernel,
            double start, double end, bool reexecution);
  void message(std::uint32_t from, std::uint32_t to, const std::string& name, const char* traffic, double start,
               double end, std::uint64_t bytes);
  void span(std::uint32_t node, const std::string& name, const char* category, double start, double end);
  void marker(std::uint32_t node, const std::string& name, double time, const std::string& args,
              std::uint32_t lane = kProtocolLane, const char* scope = "g");
  void migration(const node::Record& record);
  void event(const std::string& json);
  void name_lane(std::uint32_t pid, std::uint32_t tid, const std::string& name);
  // The lane of slice [start, end] (nanoseconds) of `pid` among `lanes`, named when it is new.
  std::uint32_t lane_of(TraceLanes& lanes, std::uint32_t pid, std::int64_t start, std::int64_t end,
                        std::uint32_t first_lane, std::uint32_t more_lanes, const char* name);

  const graphs::TaskGraph& graph_;
  std::ofstream out_;
  bool first_ = true;
  std::uint64_t flow_id_ = 0;
  TraceLanes send_lanes_{true};     // a gap between slices: flow arrows start in them
  TraceLanes receive_lanes_{true};  // and end in them
  TraceLanes protocol_lanes_{false};
};

}  // namespace ftsim::world
