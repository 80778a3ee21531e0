#pragma once
// The SimGrid backend: runs the sans-I/O core on a simulated platform. It uses no actors: every
// message is a host-to-host Comm started by maestro, whose completion comes back through
// Activity::on_completion (as in SimGrid's DAG mode), and every task end and timer is a timed
// event of the backend's own queue (timed_events.hpp: equal times fire in insertion order), with
// one SimGrid kernel timer armed for the earliest (a node never runs more tasks than it has cores,
// so SimGrid's CPU model would give each task exactly its cost-model time; a timed event gives the
// same time without a CPU action, an LMM solve and SimGrid 3.32's linear-time removal of maestro
// activities). No context switch per task: this is what makes million-task graphs simulate fast.
// With /platform/network/contention "nic", messages and storage transfers are not Comms: each is a
// timed event at the arrival time that NicQueues (nic_queues.hpp, LogGP-style send and receive
// queues per host) computes when it is sent, so SimGrid's solver never runs. With the "grouped"
// sharing solver (the default under "flows"), they are not Comms either: they are flows of
// FlowSharing (flow_sharing.hpp, SimGrid's max-min model with the flows of a route solved as one),
// whose next join or completion is one late timed event.
// A failed node is the equivalent of turning its host off: its executions and every
// communication from or to it are cancelled; a spare host (or, with unlimited spares, the same
// host rebooted) then takes its rank.
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/config/config.hpp"
#include "sim/world/backend.hpp"
#include "sim/simgrid/flow_network.hpp"
#include "sim/simgrid/nic_queues.hpp"
#include "sim/simgrid/platform.hpp"
#include "sim/simgrid/timed_events.hpp"

namespace ftsim::simgrid_backend {

class SimgridBackend final : public world::Backend {
public:
  explicit SimgridBackend(const config::Config& config);
  ~SimgridBackend() override;

  void set_events(world::BackendEvents* events) { events_ = events; }
  // Runs the engine until no event is left.
  void run();

  double now() const override;
  void start_task(node::NodeId node, node::TaskId task, double seconds) override;
  void cancel_task(node::NodeId node, node::TaskId task) override;
  void send(node::Message message) override;
  void storage_transfer(node::NodeId node, std::uint32_t server, std::uint64_t bytes, bool write,
                        std::uint64_t token) override;
  std::uint32_t storage_servers() const override { return static_cast<std::uint32_t>(platform_.storage.size()); }
  void set_timer(double time, std::uint64_t token) override;
  void fail_node(node::NodeId node) override;
  void replace_node(node::NodeId node) override;
  bool rehost_node(node::NodeId node, node::NodeId host_rank) override;
  void halt() override;
  bool reserve_spare_host(node::NodeId node) override;
  void migration_transfer(node::NodeId node, std::uint64_t bytes, std::uint64_t token) override;
  void move_to_reserved_host(node::NodeId node) override;
  bool ends_instants() const override { return true; }
  void request_end_of_instant() override;

private:
  enum class Kind : std::uint8_t { message, storage, migration };
  // A communication in flight, found from its activity's user data (a ticket: its index + 1), not
  // a hash map: no allocation per message.
  struct Pending {
    const simgrid::s4u::Activity* activity = nullptr;  // null: a free ticket
    Kind kind = Kind::message;
    node::NodeId node = 0;
    std::uint64_t value = 0;  // message slot or storage token
  };
  void track(simgrid::s4u::Activity& activity, Kind kind, node::NodeId node, std::uint64_t value);
  // The pending entry of a reported activity, or null (cancelled, or not ours).
  Pending* tracked(const simgrid::s4u::Activity& activity);
  void untrack(Pending& pending);
  simgrid::s4u::Host* host_of(node::NodeId node) const;
  void on_completion(const simgrid::s4u::Activity& activity);
  void bury(simgrid::s4u::ActivityPtr activity);
  void cancel(simgrid::s4u::ActivityPtr activity);
  void cancel_everything();
  std::uint32_t store_message(node::Message message, simgrid::s4u::CommPtr comm);
  // Runs `action` in maestro at simulated `time` unless the run has halted.
  void at(double time, std::function<void()> action);
  // Arms the SimGrid timer for the earliest timed event; fire() runs every event due.
  void arm();
  void fire();
  void fire_due();
  void after_report();

  const config::Config& config_;
  world::BackendEvents* events_ = nullptr;
  Platform platform_;
  std::vector<simgrid::s4u::Host*> node_host_;
  std::size_t next_spare_ = 0;
  static constexpr std::size_t kNoSpare = static_cast<std::size_t>(-1);
  std::vector<std::size_t> reserved_spare_;  // per rank: the spare set aside by a migration
  std::vector<Pending> pending_;
  std::vector<std::uint32_t> free_pending_;
  std::vector<std::vector<std::pair<node::TaskId, TimedEvents::Handle>>> running_;
  // A message in flight. "nic": what its first timed event reads comes first, in one cache line.
  struct Slot {
    bool nic_in_flight = false;  // "nic": its delivery is nic_event
    bool flow_in_flight = false;  // "grouped": it is flow `flow` of the sharing
    TimedEvents::Handle nic_event = 0;
    FlowSharing::FlowId flow = 0;
    std::uint32_t nic_source = 0, nic_destination = 0;  // "nic": its hosts' queues
    double nic_bytes = 1;                               // "nic": its simulated size, at least 1
    node::Message message;
    simgrid::s4u::CommPtr comm;
  };
  // Cache hints for the next timed events (at thousands of nodes each one's state is a miss).
  void hint_upcoming();
  template <int kForWrite>  // __builtin_prefetch's read/write argument must be a constant
  void prefetch_slot(std::uint32_t slot) const {
    if (slot >= slots_.size()) return;
    const char* begin = reinterpret_cast<const char*>(&slots_[slot]);
    for (std::size_t offset = 0; offset < sizeof(Slot); offset += 64) __builtin_prefetch(begin + offset, kForWrite);
  }
  // "nic" or "grouped": a storage or migration transfer in flight (its completion is a timed event
  // under "nic", a flow of the sharing under "grouped").
  struct NicStorage {
    node::NodeId node = 0;
    bool migration = false;  // a migration transfer (its completion is on_migration_transfer_done)
    TimedEvents::Handle event = 0;  // "nic"
    FlowSharing::FlowId flow = 0;   // "grouped"
    std::uint64_t token = 0;        // "grouped"
    bool in_flight = false;
  };
  void send_nic(node::Message message);
  void nic_head(std::uint32_t slot);     // its first byte reaches the receiver: reserve its receive queue
  void nic_arrival(std::uint32_t slot);  // its last byte has arrived: deliver it
  void storage_transfer_nic(node::NodeId node, std::uint32_t server, std::uint64_t bytes, bool write, std::uint64_t token);
  // "nic": a transfer between two hosts' queues that is not a message (storage, migration).
  void nic_transfer(node::NodeId node, std::size_t source, std::size_t destination, std::uint64_t bytes,
                    bool migration, std::uint64_t token);
  // "grouped": messages and transfers as flows of the sharing (a tag tells which: kind << 32 | index).
  enum class FlowKind : std::uint8_t { message, transfer };
  static std::uint64_t flow_tag(FlowKind kind, std::uint32_t index) { return std::uint64_t(kind) << 32 | index; }
  void send_grouped(node::Message message);
  void grouped_transfer(node::NodeId node, simgrid::s4u::Host* from, simgrid::s4u::Host* to, std::uint64_t bytes,
                        bool migration, std::uint64_t token);
  std::uint32_t add_transfer(node::NodeId node, bool migration);
  void flows_due();       // the flows' event: joins and completions now
  void reschedule_flows();  // after a change: one late timed event at the sharing's next event
  std::unique_ptr<FlowNetwork> flows_;
  bool flows_changed_ = false;
  bool flows_event_armed_ = false;
  TimedEvents::Handle flows_event_ = 0;
  double flows_event_time_ = 0;
  std::vector<std::uint64_t> completed_flows_;
  struct FlowDelivery {  // a completed flow, taken out of its slot before any callback runs
    FlowKind kind = FlowKind::message;
    bool migration = false;
    node::NodeId node = 0;
    std::uint64_t token = 0;
    node::Message message;
  };
  std::vector<FlowDelivery> flow_deliveries_;
  bool nic_ = false;
  NicQueues nic_queues_;
  std::vector<std::size_t> node_nic_;  // per rank (the coordinator's last): its host's queues
  std::size_t spare_nic_ = 0, storage_nic_ = 0;  // the first spare's and storage server's queues
  std::vector<NicStorage> nic_storage_;
  std::vector<std::uint32_t> free_nic_storage_;
  std::vector<Slot> slots_;
  std::vector<std::pair<node::NodeId, simgrid::s4u::CommPtr>> storage_comms_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<simgrid::s4u::ActivityPtr> graveyard_;
  std::unordered_map<const simgrid::s4u::Activity*, simgrid::s4u::ActivityPtr> cancelled_;  // released after their completion returns
  TimedEvents timed_;
  simgrid::kernel::timer::Timer* armed_ = nullptr;  // SimGrid's timer for timed_.earliest()
  double armed_time_ = 0;
  bool firing_ = false;
  // The end of an instant (backend.hpp): asked for, and the network's completions of the current
  // instant not reported yet (SimGrid reports them after its timers, in the same step).
  bool instant_requested_ = false;
  bool cancelling_ = false;
  double completions_time_ = -1;
  std::uint64_t completions_unreported_ = 0;
  bool completions_pending() const { return completions_unreported_ > 0 && completions_time_ == now(); }
  bool halted_ = false;
  int completion_depth_ = 0;
  std::uint64_t comms_started_ = 0;  // SimGrid Comms (lazy and full solvers)
};

}  // namespace ftsim::simgrid_backend
