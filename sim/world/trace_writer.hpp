#pragma once
// Exports the run's records (run_record.hpp) as a trace in the Chrome Trace Event format (opens
// in Perfetto and chrome://tracing): a process per node, a thread (lane) per core for tasks, a
// lane for sends with flow arrows to a short slice on the receiver's receives lane, a lane for
// protocol spans and notes (checkpoints, recoveries, plans), failure, replacement and shrink
// markers, and with /failures/prediction a lane for migrations and alarms (docs/results.md).
#include <cstdint>
#include <fstream>
#include <string>

#include "graphs/task_graph.hpp"
#include "sim/node/run_record.hpp"

namespace ftsim::core {

class TraceWriter final : public RecordSink {
public:
  // Lanes of a node process besides its cores.
  static constexpr std::uint32_t kSendLane = 10000;
  static constexpr std::uint32_t kProtocolLane = 10001;
  static constexpr std::uint32_t kReceiveLane = 10002;
  static constexpr std::uint32_t kMigrationLane = 10003;  // only with a migration lane

  // `migration_lane`: the run may migrate (/failures/prediction): each node gets a lane for its
  // migrations and alarms (a migration may overlap a protocol span, so it has a lane of its own).
  TraceWriter(const std::string& path, const graphs::TaskGraph& graph, std::uint32_t cores,
              const std::string& coordinator_name, bool migration_lane = false);
  ~TraceWriter() override;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void record(const Record& record) override;
  void close() override;

private:
  void task(std::uint32_t node, std::uint32_t core, const std::string& name, const std::string& kernel,
            double start, double end, bool reexecution);
  void message(std::uint32_t from, std::uint32_t to, const std::string& name, const char* traffic, double start,
               double end, std::uint64_t bytes);
  void span(std::uint32_t node, const std::string& name, const char* category, double start, double end);
  void marker(std::uint32_t node, const std::string& name, double time, const std::string& args,
              std::uint32_t lane = kProtocolLane, const char* scope = "g");
  void migration(const Record& record);
  void event(const std::string& json);

  const graphs::TaskGraph& graph_;
  std::ofstream out_;
  bool first_ = true;
  std::uint64_t flow_id_ = 0;
};

}  // namespace ftsim::core
