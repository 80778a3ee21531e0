#pragma once
// Exports the run's records (run_record.hpp) as a trace in the Chrome Trace Event format (opens
// in Perfetto and chrome://tracing): a process per node, a thread (lane) per core for tasks, a
// lane for sends with flow arrows to a short slice on the receiver's receives lane, a lane for
// protocol spans and notes (checkpoints, recoveries, plans), and failure markers (docs/results.md).
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

  TraceWriter(const std::string& path, const graphs::TaskGraph& graph, std::uint32_t cores,
              const std::string& coordinator_name);
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
  void marker(std::uint32_t node, const std::string& name, double time, const std::string& args);
  void event(const std::string& json);

  const graphs::TaskGraph& graph_;
  std::ofstream out_;
  bool first_ = true;
  std::uint64_t flow_id_ = 0;
};

}  // namespace ftsim::core
