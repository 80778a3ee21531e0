#pragma once
// CheckpointTraceWriter: the run's checkpoint trace (`ftsim run --checkpoint-trace FILE`), in the
// ftsim-trace format of the recovery-line analysis (docs/trace-format.md, analysis/trace.hpp), for
// every protocol: per node, in its local order, the data messages it sent (application and
// recovery traffic; `logged` when its sender keeps it in a log it can replay), those it accepted,
// and its local checkpoints (what its protocol records with ProtocolContext::record_local_checkpoint).
// The trace ends where the protocols learn of the first failure, as the analysis assumes ("the
// failure of the listed processes at the end of the trace"): a node that fails stops at its
// failure; the others stop at the first failure notice (until then they go on sending, receiving
// and checkpointing, and a protocol's recovery line is that of the state it has when the notice
// comes). With no detection latency that is the instant of the first failure. Its metadata names
// the nodes that failed before the first notice, so that `ftsim analyze FILE --failed`
// recomputes offline the recovery line the protocol chose. A protocol that decides on logging
// after the send (ProtocolContext::record_log_change) changes the `logged` flag of the send until
// then.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/node/run_record.hpp"

namespace ftsim::world {

using graphs::NodeId;

class CheckpointTraceWriter final : public node::RecordSink {
public:
  CheckpointTraceWriter(std::string path, NodeId nodes, std::string run_name, std::string protocol);
  void record(const node::Record& record) override;
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
  struct SendKey {
    std::uint64_t channel;  // source, destination
    std::uint64_t version;  // handle, version
    bool operator==(const SendKey&) const = default;
  };
  struct SendKeyHash {
    std::size_t operator()(const SendKey& k) const { return std::hash<std::uint64_t>{}(k.channel * 0x9e3779b97f4a7c15ull ^ k.version); }
  };
  static SendKey key(const node::Message& m) {
    return {(std::uint64_t(m.source) << 32) | m.destination, (std::uint64_t(m.handle) << 32) | m.version};
  }
  std::vector<std::vector<Event>> events_;  // per node, in its local order
  std::vector<char> stopped_;               // per node: failed before the end of the trace
  std::unordered_map<SendKey, std::size_t, SendKeyHash> sends_;  // a data message's send event, by identity
  std::vector<NodeId> failed_;              // the nodes failed before the end of the trace
  double failure_ = -1;                     // the time of the first failure (-1: none yet)
  bool ended_ = false;                      // the first failure notice came: the trace is over
  bool closed_ = false;
};

}  // namespace ftsim::world
