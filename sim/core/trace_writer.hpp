#pragma once
// Writes a trace in the Chrome Trace Event format (opens in Perfetto and chrome://tracing):
// a process per node, a thread (lane) per core for tasks, a lane for sends with flow arrows to
// the receiver, a lane for protocol spans (checkpoints, recoveries), and failure markers.
#include <cstdint>
#include <fstream>
#include <string>

namespace ftsim::core {

class TraceWriter {
public:
  // Lanes of a node process besides its cores.
  static constexpr std::uint32_t kSendLane = 10000;
  static constexpr std::uint32_t kProtocolLane = 10001;

  TraceWriter(const std::string& path, std::uint32_t nodes, std::uint32_t cores, const std::string& coordinator_name);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void task(std::uint32_t node, std::uint32_t core, const std::string& name, const std::string& kernel,
            double start, double end, bool reexecution);
  void message(std::uint32_t from, std::uint32_t to, const std::string& name, const char* traffic, double start,
               double end, std::uint64_t bytes);
  void span(std::uint32_t node, const std::string& name, const char* category, double start, double end);
  void marker(std::uint32_t node, const std::string& name, double time);
  void close();

private:
  void event(const std::string& json);
  std::ofstream out_;
  bool first_ = true;
  std::uint64_t flow_id_ = 0;
};

}  // namespace ftsim::core
