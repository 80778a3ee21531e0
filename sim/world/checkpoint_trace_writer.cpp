#include "sim/world/checkpoint_trace_writer.hpp"

#include <string_view>

#include "analysis/trace_builder.hpp"
#include "analysis/trace_json_writer.hpp"

namespace ftsim::world {

CheckpointTraceWriter::CheckpointTraceWriter(std::string path, NodeId nodes, std::string run_name, std::string protocol)
    : path_(std::move(path)),
      run_name_(std::move(run_name)),
      protocol_(std::move(protocol)),
      events_(nodes),
      stopped_(nodes, 0) {}

void CheckpointTraceWriter::record(const node::Record& r) {
  if (ended_) return;
  if (r.kind == node::RecordKind::failure) {
    // A failed node stops at its failure (a replacement's events are not its own); the others
    // go on until the first notice.
    if (failure_ < 0) failure_ = r.time;
    if (r.peer < stopped_.size() && !stopped_[r.peer]) {
      stopped_[r.peer] = 1;
      failed_.push_back(r.peer);
    }
    return;
  }
  if (r.kind == node::RecordKind::notice) {
    ended_ = true;
    return;
  }
  if (r.process < 0 || static_cast<std::size_t>(r.process) >= events_.size() || stopped_[r.process]) return;
  auto& events = events_[static_cast<std::size_t>(r.process)];
  switch (r.kind) {
    case node::RecordKind::data_sent:
    case node::RecordKind::data_received: {
      const node::Message& m = *r.message;
      if (m.traffic != node::Traffic::application && m.traffic != node::Traffic::recovery) return;  // not the job's messages
      const bool send = r.kind == node::RecordKind::data_sent;
      if (send) sends_[key(m)] = events.size();
      events.push_back({send ? Kind::send : Kind::receive, m.logged, m.destination, m.id, r.time});
      return;
    }
    case node::RecordKind::data_logged: {
      auto it = sends_.find(key(*r.message));
      if (it != sends_.end()) events[it->second].logged = r.logged;
      return;
    }
    case node::RecordKind::local_checkpoint: events.push_back({Kind::checkpoint, false, 0, r.checkpoint, r.time}); return;
    default: return;
  }
}

void CheckpointTraceWriter::close() {
  if (closed_) return;
  closed_ = true;
  analysis::TraceBuilder builder(events_.size());
  std::string id;
  for (std::size_t p = 0; p < events_.size(); ++p) {
    builder.set_process_name(static_cast<analysis::ProcessId>(p), "node " + std::to_string(p));
    for (const Event& e : events_[p]) {
      const auto process = static_cast<analysis::ProcessId>(p);
      id = "m" + std::to_string(e.id);
      switch (e.kind) {
        case Kind::send: builder.add_send(process, id, e.peer, e.logged, analysis::kNoBytes, e.time); break;
        case Kind::receive: builder.add_receive(process, id, e.time); break;
        case Kind::checkpoint: builder.add_checkpoint(process, e.time); break;
      }
    }
  }
  // A message received without its send in the trace cannot happen: a message is received after
  // it is sent, and a failed node's messages in flight are lost with it.
  nlohmann::json metadata = {{"source", "ftsim run"}, {"run", run_name_}, {"protocol", protocol_}};
  metadata["failed"] = failed_;
  metadata["failure_time"] = failure_ < 0 ? nlohmann::json(nullptr) : nlohmann::json(failure_);
  builder.set_metadata(std::move(metadata));
  analysis::write_trace_json_file(std::move(builder).build(), path_);
}

}  // namespace ftsim::world
