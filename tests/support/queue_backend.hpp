#pragma once
// An in-process deterministic backend for unit tests: the whole engine (world driver, node
// hosts, protocols) runs on a time-ordered event queue, with no SimGrid. A message takes
// latency + bytes / bandwidth (no contention); a task takes its cost-model time on its core.
// Ties are broken by the order events were scheduled, so every run is the same.
#include <cstdint>
#include <functional>
#include <set>
#include <queue>
#include <vector>

#include "sim/world/backend.hpp"

namespace ftsim::testing {

class QueueBackend final : public world::Backend {
public:
  QueueBackend(node::NodeId nodes, std::uint32_t storage_servers, double latency = 1e-6, double bandwidth = 1e9)
      : storage_servers_(storage_servers), latency_(latency), bandwidth_(bandwidth), epoch_of_node_(nodes + 1, 0) {}

  void set_events(world::BackendEvents* events) { events_ = events; }

  // Runs until no event is left (or the run halted).
  void run() {
    while (!queue_.empty() && !halted_) {
      Event event = queue_.top();
      queue_.pop();
      now_ = event.time;
      if (event.node != kNoNode && epoch_of_node_[event.node] != event.node_epoch) continue;  // the node failed since
      event.action();
    }
  }

  double now() const override { return now_; }
  void start_task(node::NodeId node, node::TaskId task, double seconds) override {
    at(now_ + seconds, node, [this, node, task] { events_->on_task_finished(node, task); }, task_key(node, task));
  }
  void cancel_task(node::NodeId node, node::TaskId task) override { cancelled_.insert(task_key(node, task)); }
  void send(node::Message message) override {
    const double arrival = message.source == message.destination
                               ? now_
                               : now_ + latency_ + double(message.bytes) / bandwidth_;
    // A message dies with either end; a live sender learns that it was lost.
    const node::NodeId source = message.source, destination = message.destination;
    const std::uint32_t source_epoch = epoch_of_node_[source], destination_epoch = epoch_of_node_[destination];
    at(arrival, kNoNode, [=, this, message = std::move(message)] {
      if (epoch_of_node_[source] != source_epoch) return;
      if (epoch_of_node_[destination] != destination_epoch) {
        events_->on_message_lost(message);
        return;
      }
      events_->on_message_delivered(message);
    });
  }
  void storage_transfer(node::NodeId node, std::uint32_t, std::uint64_t bytes, bool, std::uint64_t token) override {
    at(now_ + latency_ + double(bytes) / bandwidth_, node, [this, node, token] { events_->on_storage_done(node, token); });
  }
  std::uint32_t storage_servers() const override { return storage_servers_; }
  void set_timer(double time, std::uint64_t token) override {
    at(time, kNoNode, [this, token] { events_->on_timer(token); });
  }
  void fail_node(node::NodeId node) override { ++epoch_of_node_[node]; }
  void replace_node(node::NodeId) override {}
  void halt() override { halted_ = true; }

private:
  static constexpr node::NodeId kNoNode = 0xffffffffu;
  struct Event {
    double time;
    std::uint64_t order;
    node::NodeId node;
    std::uint32_t node_epoch;
    std::function<void()> action;
    bool operator<(const Event& other) const {
      return time != other.time ? time > other.time : order > other.order;  // earliest first
    }
  };
  static std::uint64_t task_key(node::NodeId node, node::TaskId task) { return (std::uint64_t(node) << 32) | task; }
  void at(double time, node::NodeId node, std::function<void()> action, std::uint64_t cancel_key = ~0ull) {
    auto guarded = [this, cancel_key, action = std::move(action)] {
      if (cancel_key != ~0ull && cancelled_.erase(cancel_key) != 0) return;
      action();
    };
    queue_.push({time, next_order_++, node, node == kNoNode ? 0 : epoch_of_node_[node], std::move(guarded)});
  }

  world::BackendEvents* events_ = nullptr;
  std::uint32_t storage_servers_;
  double latency_, bandwidth_;
  double now_ = 0;
  std::uint64_t next_order_ = 0;
  bool halted_ = false;
  std::vector<std::uint32_t> epoch_of_node_;
  std::multiset<std::uint64_t> cancelled_;
  std::priority_queue<Event> queue_;
};

}  // namespace ftsim::testing
