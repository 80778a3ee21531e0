#pragma once
// CheckpointTraceWriter: the run's checkpoint trace (`ftsim run --checkpoint-trace FILE`), in the
// ftsim-trace format of the recovery-line analysis (docs/trace-format.md, analysis/trace.hpp), for
// every protocol: per node, in its local order, the data messages it sent (application and
// recovery traffic; `logged` when its sender keeps it in a log it can replay), those it accepted,
// and its local checkpoints (what its protocol records with ProtocolContext::record_local_checkpoint).
// The trace ends at the first failure, as the analysis assumes ("the failure of the listed
// processes at the end of the trace"): its metadata names the nodes that failed at that instant,
// so that `ftsim analyze FILE --failed` recomputes offline the recovery line the protocol chose.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/node/run_record.hpp"

namespace ftsim::core {

class CheckpointTraceWriter final : public RecordSink {
public:
  CheckpointTraceWriter(std::string path, NodeId nodes, std::string run_name, std::string protocol);
  void record(const Record& record) override;
  // Writes the file (throws std::runtime_error naming it if it cannot be written).
  void close() override;

private:
  enum class Kind : std::uint8_t { send, receive, checkpoint };
  struct Event {
    Kind kind;
    bool logged;
    NodeId peer;         // send: its destination
    std::uint64_t id;    // send, receive: the message; checkpoint: the protocol's number
    double time;
  };
  std::string path_;
  std::string run_name_, protocol_;
  std::vector<std::vector<Event>> events_;  // per node, in its local order
  std::vector<NodeId> failed_;              // the nodes failed at the end of the trace
  double end_ = -1;                         // the time of the first failure (-1: none yet)
  bool closed_ = false;
};

}  // namespace ftsim::core
