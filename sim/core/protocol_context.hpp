#pragma once
// ProtocolContext: everything a protocol instance may do, bound to its node (or to the
// coordinator). Protocols never see the backend: only this context.
#include "sim/core/simulation.hpp"

namespace ftsim::core {

class ProtocolContext {
public:
  ProtocolContext(Simulation& simulation, NodeId node) : sim_(simulation), node_(node) {}

  NodeId node() const { return node_; }
  bool is_coordinator() const { return node_ == sim_.coordinator(); }
  NodeId node_count() const { return sim_.node_count(); }
  NodeId coordinator() const { return sim_.coordinator(); }
  double now() const { return sim_.now(); }
  const config::Config& config() const { return sim_.config(); }
  const graphs::TaskGraph& graph() const { return sim_.graph(); }
  const RuntimeIndex& index() const { return sim_.index(); }
  TaskTable& tasks() { return sim_.tasks(); }
  double task_seconds(TaskId task) const { return sim_.task_seconds(task); }

  // This node's runtime.
  NodeRuntime& runtime() { return sim_.runtime(node_); }
  // Another node's runtime: the global view a centralized coordinator or planner has (a Dask
  // scheduler knows where every result is). Node-local protocol logic must not use it.
  NodeRuntime& runtime_of(NodeId node) { return sim_.runtime(node); }
  bool alive(NodeId node) const { return sim_.alive(node); }

  std::uint32_t epoch() const { return sim_.epoch(node_); }
  void set_epoch(std::uint32_t epoch) { sim_.set_epoch(node_, epoch); }

  void send_control(NodeId to, std::uint32_t type, std::uint64_t bytes,
                    std::shared_ptr<const ControlPayload> payload = {}, Traffic traffic = Traffic::control) {
    sim_.send_control(node_, to, type, bytes, traffic, std::move(payload));
  }
  void storage_transfer(std::uint64_t bytes, bool write, std::uint64_t token) {
    sim_.storage_transfer(node_, bytes, write, token);
  }
  std::uint32_t storage_servers() const { return sim_.storage_servers(); }
  void set_timer(double delay, std::uint64_t token) { sim_.set_timer(node_, delay, token); }

  RunMetrics& metrics() { return sim_.mutable_metrics(); }
  FailureRecord* latest_failure() { return sim_.latest_failure(); }
  FailureRecord* failure_record(NodeId node) { return sim_.failure_record(node); }
  // Failure detections so far: the recovery epoch every node agrees on.
  std::uint32_t detections() const { return sim_.detections(); }
  TraceWriter* trace() { return sim_.trace(); }
  void fail_run(const std::string& reason) { sim_.fail_run(reason); }
  void check_completion() { sim_.check_completion(); }

private:
  Simulation& sim_;
  NodeId node_;
};

}  // namespace ftsim::core
