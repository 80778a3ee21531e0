#include "sim/simgrid/simgrid_backend.hpp"

#include <algorithm>
#include <cstdint>

#include <cstdio>

#include "sim/simgrid/comm_detach_shim.hpp"
#include "sim/simgrid/network_model.hpp"

namespace ftsim::simgrid_backend {

namespace sg4 = simgrid::s4u;

namespace {
// SimGrid wants argc/argv; ftsim passes only its own settings (quiet logs).
sg4::Engine& engine() {
  static int argc = 2;
  static char name[] = "ftsim";
  static char quiet[] = "--log=root.thresh:critical";
  static char* argv[] = {name, quiet, nullptr};
  static sg4::Engine* instance = new sg4::Engine(&argc, argv);  // one per process, never destroyed
  return *instance;
}
}  // namespace

SimgridBackend::SimgridBackend(const config::Config& config) : config_(config) {
  platform_ = build_platform(engine(), config);
  // Machine m (host node-m) runs ranks m*k .. m*k+k-1 (/platform/ranks_per_machine k).
  const std::uint32_t ranks = config.platform.nodes, per_machine = config.platform.ranks_per_machine;
  for (std::uint32_t r = 0; r < ranks; ++r) node_host_.push_back(platform_.nodes[r / per_machine]);
  node_host_.push_back(platform_.manager);  // the coordinator's rank
  running_.resize(ranks);
  reserved_spare_.assign(node_host_.size(), kNoSpare);
  nic_ = config.platform.network.contention == config::Contention::nic;
  if (nic_) {
    std::vector<std::size_t> machine_nic;
    // The simulated values of each host's link: configured x the model's factors (LV08, CM02).
    const auto factors = network_model_factors(config.platform.network.model);
    const auto& net = config.platform.network;
    const NicQueues::Nic node_nic{net.latency * factors.latency, net.bandwidth * factors.bandwidth};
    const NicQueues::Nic storage_nic{config.platform.storage.latency * factors.latency,
                                     config.platform.storage.bandwidth * factors.bandwidth};
    for (std::size_t i = 0; i < platform_.nodes.size(); ++i) machine_nic.push_back(nic_queues_.add(node_nic));
    for (std::uint32_t r = 0; r < ranks; ++r) node_nic_.push_back(machine_nic[r / per_machine]);  // shared by its ranks
    spare_nic_ = nic_queues_.size();
    for (std::size_t i = 0; i < platform_.spares.size(); ++i) nic_queues_.add(node_nic);
    storage_nic_ = nic_queues_.size();
    for (std::size_t i = 0; i < platform_.storage.size(); ++i) nic_queues_.add(storage_nic);
    node_nic_.push_back(nic_queues_.add(node_nic));  // the coordinator's host
  }
  if (config.platform.network.contention == config::Contention::flows &&
      config.platform.network.solver == config::SharingSolver::grouped) {
    flows_ = std::make_unique<FlowNetwork>(config);
  }
  sg4::Activity::on_completion_cb([this](const sg4::Activity& activity) { on_completion(activity); });
  // A communication that ends in SimGrid's solve is reported after the step's timers: count them,
  // so that the end of the instant waits for their reports (request_end_of_instant).
  sg4::Link::on_communication_state_change_cb(
      [this](simgrid::kernel::resource::NetworkAction&, simgrid::kernel::resource::Action::State previous) {
        if (cancelling_ || previous != simgrid::kernel::resource::Action::State::STARTED) return;
        if (completions_time_ != now()) {
          completions_time_ = now();
          completions_unreported_ = 0;
        }
        ++completions_unreported_;
      });
}

SimgridBackend::~SimgridBackend() = default;

void SimgridBackend::run() {
  const std::uint64_t shim_calls = simgrid_compat::comm_detach_shim_calls();
  engine().run();
  if (comms_started_ > 0 && simgrid_compat::comm_detach_shim_compiled() &&
      simgrid_compat::comm_detach_shim_calls() == shim_calls) {
    // The executable did not export the replacement (a build without ftsim_simgrid's link options).
    std::fprintf(stderr, "ftsim: warning: SimGrid's CommImpl::detach was not replaced (comm_detach_shim.cpp): runs "
                         "with many messages in flight pay SimGrid 3.32's linear-time removal\n");
  }
}

double SimgridBackend::now() const { return sg4::Engine::get_clock(); }

sg4::Host* SimgridBackend::host_of(node::NodeId node) const { return node_host_[node]; }

void SimgridBackend::track(sg4::Activity& activity, Kind kind, node::NodeId node, std::uint64_t value) {
  ++comms_started_;
  std::uint32_t ticket;
  if (free_pending_.empty()) {
    ticket = static_cast<std::uint32_t>(pending_.size());
    pending_.emplace_back();
  } else {
    ticket = free_pending_.back();
    free_pending_.pop_back();
  }
  pending_[ticket] = Pending{&activity, kind, node, value};
  activity.set_data(reinterpret_cast<void*>(std::uintptr_t{ticket} + 1));
}

SimgridBackend::Pending* SimgridBackend::tracked(const sg4::Activity& activity) {
  const auto ticket = reinterpret_cast<std::uintptr_t>(activity.get_data<void>());
  if (ticket == 0 || ticket > pending_.size()) return nullptr;
  Pending& pending = pending_[ticket - 1];
  return pending.activity == &activity ? &pending : nullptr;  // a ticket freed or given to another
}

void SimgridBackend::untrack(Pending& pending) {
  pending.activity = nullptr;
  free_pending_.push_back(static_cast<std::uint32_t>(&pending - pending_.data()));
}

void SimgridBackend::cancel(sg4::ActivityPtr activity) {
  // SimGrid reports a cancelled activity twice: at once (CANCELED), then when its model action is
  // reaped (FAILED). Our reference must outlive the second report.
  if (Pending* pending = tracked(*activity)) untrack(*pending);
  activity->set_data(nullptr);
  const sg4::Activity* key = activity.get();
  cancelled_.emplace(key, activity);
  cancelling_ = true;
  activity->cancel();
  cancelling_ = false;
}

void SimgridBackend::bury(sg4::ActivityPtr activity) {
  // Dropping the last reference inside on_completion would free the activity while SimGrid still
  // uses it: keep it until a later completion.
  graveyard_.push_back(std::move(activity));
}

void SimgridBackend::start_task(node::NodeId node, node::TaskId task, double seconds) {
  // A node never runs more tasks than it has cores, so a task takes exactly its cost-model time:
  // a timed event models it as SimGrid's CPU model would, without a CPU action per task.
  running_[node].emplace_back(task, timed_.add_task_end(now() + seconds, node, task));
  arm();
}

void SimgridBackend::cancel_task(node::NodeId node, node::TaskId task) {
  auto& running = running_[node];
  for (std::size_t i = 0; i < running.size(); ++i) {
    if (running[i].first != task) continue;
    timed_.cancel(running[i].second);
    running[i] = running.back();
    running.pop_back();
    return;
  }
}

void SimgridBackend::request_end_of_instant() {
  if (halted_) return;
  instant_requested_ = true;
  arm();
}

void SimgridBackend::arm() {
  if (firing_ || halted_) return;
  if (flows_changed_) reschedule_flows();
  // The end of the instant waits for the reports of communications that ended now: on_completion
  // arms it after them (arming it now would run it before them, in the same step).
  const bool end_instant = instant_requested_ && !completions_pending();
  if (timed_.empty() && !end_instant) return;
  const double earliest = end_instant ? now() : std::max(timed_.earliest(), now());
  if (armed_ != nullptr && armed_time_ <= earliest) return;
  if (armed_ != nullptr) armed_->remove();
  armed_time_ = earliest;
  armed_ = simgrid_compat::set_timer(earliest, [this] {
    armed_ = nullptr;  // fired: SimGrid deletes it
    fire();
  });
}

void SimgridBackend::fire() {
  // Every event due now, in (time, insertion) order; events added meanwhile for now run too.
  // Then the end of the instant, unless communications that ended now are still to be reported
  // (SimGrid reports them after its timers: on_completion arms this again, and it runs after them).
  firing_ = true;
  for (;;) {
    fire_due();
    if (halted_ || !instant_requested_ || completions_pending()) break;
    instant_requested_ = false;
    events_->on_end_of_instant();
    if (timed_.earliest() > now() && !instant_requested_) break;
  }
  firing_ = false;
  arm();
}

void SimgridBackend::fire_due() {
  TimedEvents::Event event;
  while (!halted_ && timed_.pop_due(now(), event)) {
    if (event.cancelled) continue;
    hint_upcoming();
    switch (event.kind) {
      case TimedEvents::Kind::action: event.action(); continue;
      case TimedEvents::Kind::nic_head: nic_head(event.id); continue;
      case TimedEvents::Kind::nic_arrival: nic_arrival(event.id); continue;
      case TimedEvents::Kind::flows_due: flows_due(); continue;
      case TimedEvents::Kind::task_end: break;
    }
    auto& running = running_[event.node];
    for (std::size_t i = 0; i < running.size(); ++i) {
      if (running[i].first != event.id) continue;
      running[i] = running.back();
      running.pop_back();
      break;
    }
    events_->on_task_finished(event.node, event.id);
  }
}

void SimgridBackend::hint_upcoming() {
  // Three stages, each reading what the stage before fetched (see BackendEvents' hints):
  //   the third event: a task end's per-task entries;
  //   the second: a task end's state, accesses and successors; a message's slot;
  //   the next: a task end's version-table slots and the slots its sends will take; for a message
  //   about to be delivered, what its delivery looks up (read from its slot, fetched a stage before).
  TimedEvents::Upcoming up;
  if (timed_.peek(2, up) && up.kind == TimedEvents::Kind::task_end) events_->hint({world::Upcoming::Stage::task_entries, up.node, up.id});
  if (timed_.peek(1, up)) {
    if (up.kind == TimedEvents::Kind::task_end) {
      events_->hint({world::Upcoming::Stage::task_end, up.node, up.id});
    } else if (up.kind == TimedEvents::Kind::nic_head || up.kind == TimedEvents::Kind::nic_arrival) {
      prefetch_slot<0>(up.id);
    }
  }
  if (timed_.peek(0, up)) {
    if (up.kind == TimedEvents::Kind::task_end) {
      events_->hint({world::Upcoming::Stage::task_versions, up.node, up.id});
      // The slots its sends will take, last freed first (storing a message reads the one it replaces).
      const std::size_t free = free_slots_.size();
      for (std::size_t i = free > 2 ? free - 2 : 0; i < free; ++i) prefetch_slot<1>(free_slots_[i]);
    } else if (up.kind == TimedEvents::Kind::nic_arrival && up.id < slots_.size()) {
      events_->hint({world::Upcoming::Stage::delivery, 0, 0, &slots_[up.id].message});
    }
  }
}

std::uint32_t SimgridBackend::store_message(node::Message message, sg4::CommPtr comm) {
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.nic_in_flight = false;  // the other "nic" fields are read only while it is in flight (send_nic sets them)
  s.message = std::move(message);
  s.comm = std::move(comm);
  return slot;
}

void SimgridBackend::send(node::Message message) {
  if (halted_) return;
  if (message.source == message.destination || host_of(message.source) == host_of(message.destination)) {
    // A node's own data never crosses the network (nor does data between two ranks of one
    // machine after a shrink: they share its memory).
    auto shared = std::make_shared<node::Message>(std::move(message));
    at(now(), [this, shared] { events_->on_message_delivered(*shared); });
    return;
  }
  if (nic_) {
    send_nic(std::move(message));
    return;
  }
  if (flows_) {
    send_grouped(std::move(message));
    return;
  }
  sg4::CommPtr comm = simgrid_compat::start_transfer(host_of(message.source), host_of(message.destination),
                                                     std::max<std::uint64_t>(message.bytes, 1));
  const node::NodeId source = message.source;
  sg4::Activity& activity = *comm;
  const std::uint32_t slot = store_message(std::move(message), std::move(comm));
  track(activity, Kind::message, source, slot);
}

void SimgridBackend::send_nic(node::Message message) {
  // Two timed events: the first byte reaches the receiver (its receive queue is reserved then, in
  // the order messages reach it), then the last byte has arrived (delivery).
  const std::size_t source = node_nic_[message.source], destination = node_nic_[message.destination];
  const double bytes = double(std::max<std::uint64_t>(message.bytes, 1));
  const double head = nic_queues_.send(source, destination, bytes, now());
  const std::uint32_t slot = store_message(std::move(message), nullptr);
  slots_[slot].nic_in_flight = true;
  slots_[slot].nic_bytes = bytes;
  slots_[slot].nic_source = static_cast<std::uint32_t>(source);
  slots_[slot].nic_destination = static_cast<std::uint32_t>(destination);
  slots_[slot].nic_event = timed_.add(head, TimedEvents::Kind::nic_head, 0, slot);
  arm();
}

void SimgridBackend::nic_head(std::uint32_t slot) {
  Slot& s = slots_[slot];
  const double arrival = nic_queues_.receive(s.nic_source, s.nic_destination, s.nic_bytes, now());
  s.nic_event = timed_.add(arrival, TimedEvents::Kind::nic_arrival, 0, slot);
}

void SimgridBackend::nic_arrival(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.nic_in_flight = false;
  node::Message delivered = std::move(s.message);
  free_slots_.push_back(slot);
  events_->on_message_delivered(delivered);
}

void SimgridBackend::storage_transfer_nic(node::NodeId node, std::uint32_t server, std::uint64_t bytes, bool write,
                                          std::uint64_t token) {
  const std::size_t storage = storage_nic_ + server, host = node_nic_[node];
  nic_transfer(node, write ? host : storage, write ? storage : host, bytes, false, token);
}

std::uint32_t SimgridBackend::add_transfer(node::NodeId node, bool migration) {
  std::uint32_t index;
  if (!free_nic_storage_.empty()) {
    index = free_nic_storage_.back();
    free_nic_storage_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(nic_storage_.size());
    nic_storage_.emplace_back();
  }
  NicStorage& transfer = nic_storage_[index];
  transfer.node = node;
  transfer.migration = migration;
  transfer.in_flight = true;
  return index;
}

void SimgridBackend::nic_transfer(node::NodeId node, std::size_t source, std::size_t destination, std::uint64_t bytes,
                                  bool migration, std::uint64_t token) {
  const double size = double(std::max<std::uint64_t>(bytes, 1));
  const double head = nic_queues_.send(source, destination, size, now());
  const std::uint32_t index = add_transfer(node, migration);
  NicStorage& transfer = nic_storage_[index];
  transfer.event = timed_.add_action(head, [this, index, node, token, source, destination, size, migration] {
    nic_storage_[index].event = timed_.add_action(nic_queues_.receive(source, destination, size, now()), [this, index, node, token, migration] {
      nic_storage_[index].in_flight = false;
      free_nic_storage_.push_back(index);
      if (migration) {
        events_->on_migration_transfer_done(node, token);
      } else {
        events_->on_storage_done(node, token);
      }
    });
  });
  arm();
}

// ----------------------------------------------------------------------------- "grouped" flows

void SimgridBackend::send_grouped(node::Message message) {
  const sg4::Host* from = host_of(message.source);
  const sg4::Host* to = host_of(message.destination);
  const std::uint64_t bytes = std::max<std::uint64_t>(message.bytes, 1);
  const std::uint32_t slot = store_message(std::move(message), nullptr);
  slots_[slot].flow_in_flight = true;
  slots_[slot].flow = flows_->start(from, to, bytes, now(), flow_tag(FlowKind::message, slot));
  flows_changed_ = true;
  arm();
}

void SimgridBackend::grouped_transfer(node::NodeId node, sg4::Host* from, sg4::Host* to, std::uint64_t bytes,
                                      bool migration, std::uint64_t token) {
  const std::uint32_t index = add_transfer(node, migration);
  nic_storage_[index].token = token;
  nic_storage_[index].flow =
      flows_->start(from, to, std::max<std::uint64_t>(bytes, 1), now(), flow_tag(FlowKind::transfer, index));
  flows_changed_ = true;
  arm();
}

void SimgridBackend::reschedule_flows() {
  flows_changed_ = false;
  const double next = flows_->sharing().next_event(now());
  if (flows_event_armed_ && next == flows_event_time_) return;
  if (flows_event_armed_) timed_.cancel(flows_event_);
  flows_event_armed_ = next != FlowSharing::kNever;
  if (!flows_event_armed_) return;
  flows_event_ = timed_.add_late(next, TimedEvents::Kind::flows_due, 0, 0);
  flows_event_time_ = next;
}

void SimgridBackend::flows_due() {
  flows_event_armed_ = false;
  flows_changed_ = true;
  completed_flows_.clear();
  flows_->sharing().advance(now(), completed_flows_);
  // Every completed flow leaves its slot before any callback runs: a callback may fail a node
  // (whose flows are cancelled) or send (and reuse the slots and flow ids freed here).
  flow_deliveries_.resize(completed_flows_.size());
  for (std::size_t i = 0; i < completed_flows_.size(); ++i) {
    const std::uint64_t tag = completed_flows_[i];
    const auto index = static_cast<std::uint32_t>(tag);
    FlowDelivery& delivery = flow_deliveries_[i];
    delivery.kind = FlowKind(tag >> 32);
    if (delivery.kind == FlowKind::message) {
      Slot& s = slots_[index];
      s.flow_in_flight = false;
      delivery.message = std::move(s.message);
      free_slots_.push_back(index);
    } else {
      NicStorage& transfer = nic_storage_[index];
      transfer.in_flight = false;
      delivery.node = transfer.node;
      delivery.migration = transfer.migration;
      delivery.token = transfer.token;
      free_nic_storage_.push_back(index);
    }
  }
  for (FlowDelivery& delivery : flow_deliveries_) {
    if (halted_) break;
    if (delivery.kind == FlowKind::message) {
      events_->on_message_delivered(delivery.message);
    } else if (delivery.migration) {
      events_->on_migration_transfer_done(delivery.node, delivery.token);
    } else {
      events_->on_storage_done(delivery.node, delivery.token);
    }
  }
}

void SimgridBackend::storage_transfer(node::NodeId node, std::uint32_t server, std::uint64_t bytes, bool write,
                                      std::uint64_t token) {
  if (nic_) {
    if (halted_) return;
    storage_transfer_nic(node, server, bytes, write, token);
    return;
  }
  sg4::Host* storage = platform_.storage.at(server);
  sg4::Host* host = host_of(node);
  if (flows_) {
    if (halted_) return;
    grouped_transfer(node, write ? host : storage, write ? storage : host, bytes, false, token);
    return;
  }
  sg4::CommPtr comm = write ? simgrid_compat::start_transfer(host, storage, std::max<std::uint64_t>(bytes, 1))
                            : simgrid_compat::start_transfer(storage, host, std::max<std::uint64_t>(bytes, 1));
  track(*comm, Kind::storage, node, token);
  storage_comms_.emplace_back(node, std::move(comm));  // SimGrid needs it alive until it completes
}

void SimgridBackend::at(double time, std::function<void()> action) {
  if (halted_) return;
  timed_.add_action(std::max(time, now()), std::move(action));
  arm();
}

void SimgridBackend::set_timer(double time, std::uint64_t token) {
  at(time, [this, token] { events_->on_timer(token); });
}

void SimgridBackend::after_report() {
  if (!instant_requested_ || halted_) return;
  if (!firing_ && completion_depth_ == 0 && !completions_pending() && timed_.earliest() > now()) {
    // The step's last completion is reported and no timed event is due: the instant is complete
    // (ending it here saves SimGrid a step; otherwise fire() ends it after the due events).
    instant_requested_ = false;
    events_->on_end_of_instant();
  }
  arm();
}

void SimgridBackend::on_completion(const sg4::Activity& activity) {
  // Only at the outermost completion: a nested one (a cancel inside a callback) must not free
  // the activity whose completion is still running.
  if (completion_depth_ == 0 && graveyard_.size() > 256) graveyard_.clear();
  // An end of instant waiting for the step's reports runs after the last one.
  struct AfterReport {
    SimgridBackend& backend;
    ~AfterReport() { backend.after_report(); }
  } after_report{*this};
  Pending* tracked_pending = tracked(activity);
  if (tracked_pending == nullptr) {
    auto cancelled = cancelled_.find(&activity);
    if (cancelled != cancelled_.end() && activity.get_state() != sg4::Activity::State::CANCELED) {
      bury(std::move(cancelled->second));
      cancelled_.erase(cancelled);
    }
    return;
  }
  ++completion_depth_;
  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  } leave{completion_depth_};
  const Pending pending = *tracked_pending;
  untrack(*tracked_pending);
  const bool ok = activity.get_state() == sg4::Activity::State::FINISHED;
  if (ok && completions_unreported_ > 0 && completions_time_ == now()) --completions_unreported_;
  switch (pending.kind) {
    case Kind::message: {
      const auto slot = static_cast<std::uint32_t>(pending.value);
      node::Message message = std::move(slots_[slot].message);
      bury(std::move(slots_[slot].comm));
      free_slots_.push_back(slot);
      if (halted_) break;
      if (ok) {
        events_->on_message_delivered(message);
      } else {
        events_->on_message_lost(message);
      }
      break;
    }
    case Kind::storage:
    case Kind::migration:
      for (std::size_t i = 0; i < storage_comms_.size(); ++i) {
        if (storage_comms_[i].second.get() != &activity) continue;
        bury(std::move(storage_comms_[i].second));
        storage_comms_[i] = std::move(storage_comms_.back());
        storage_comms_.pop_back();
        break;
      }
      if (!ok || halted_) break;
      if (pending.kind == Kind::storage) {
        events_->on_storage_done(pending.node, pending.value);
      } else {
        events_->on_migration_transfer_done(pending.node, pending.value);
      }
      break;
  }
}

void SimgridBackend::fail_node(node::NodeId node) {
  // Its executions stop.
  for (auto& [task, handle] : running_[node]) timed_.cancel(handle);
  running_[node].clear();
  // Every message from or to it is lost; live senders learn it (later, not re-entrantly).
  std::vector<std::shared_ptr<node::Message>> lost;
  for (std::uint32_t slot = 0; slot < slots_.size(); ++slot) {
    Slot& s = slots_[slot];
    if ((!s.comm && !s.nic_in_flight && !s.flow_in_flight) ||
        (s.message.source != node && s.message.destination != node)) {
      continue;
    }
    if (s.nic_in_flight) {
      timed_.cancel(s.nic_event);
      s.nic_in_flight = false;
    } else if (s.flow_in_flight) {
      flows_->sharing().cancel(s.flow, now());
      s.flow_in_flight = false;
      flows_changed_ = true;
    } else {
      cancel(std::move(s.comm));
      s.comm = nullptr;
    }
    if (s.message.source != node) lost.push_back(std::make_shared<node::Message>(std::move(s.message)));
    free_slots_.push_back(slot);
  }
  for (std::size_t i = 0; i < storage_comms_.size();) {
    if (storage_comms_[i].first != node) {
      ++i;
      continue;
    }
    sg4::CommPtr comm = std::move(storage_comms_[i].second);
    storage_comms_[i] = std::move(storage_comms_.back());
    storage_comms_.pop_back();
    cancel(comm);
  }
  if (nic_) {
    for (std::uint32_t i = 0; i < nic_storage_.size(); ++i) {
      NicStorage& transfer = nic_storage_[i];
      if (!transfer.in_flight || transfer.node != node) continue;
      timed_.cancel(transfer.event);
      transfer.in_flight = false;
      free_nic_storage_.push_back(i);
    }
    nic_queues_.reset(node_nic_[node], now());  // its host is off: its queues empty
  }
  if (flows_) {
    for (std::uint32_t i = 0; i < nic_storage_.size(); ++i) {
      NicStorage& transfer = nic_storage_[i];
      if (!transfer.in_flight || transfer.node != node) continue;
      flows_->sharing().cancel(transfer.flow, now());
      transfer.in_flight = false;
      free_nic_storage_.push_back(i);
      flows_changed_ = true;
    }
  }
  if (!lost.empty()) {
    at(now(), [this, lost] {
      for (const auto& message : lost) events_->on_message_lost(*message);
    });
  }
}

void SimgridBackend::replace_node(node::NodeId node) {
  if (reserved_spare_[node] != kNoSpare) {
    move_to_reserved_host(node);  // a migration set a spare aside for this rank, then it failed
    return;
  }
  if (next_spare_ < platform_.spares.size()) {
    if (nic_) node_nic_[node] = spare_nic_ + next_spare_;
    node_host_[node] = platform_.spares[next_spare_++];
  }
  // Unlimited spares: the same host stands for a fresh machine.
}

bool SimgridBackend::rehost_node(node::NodeId node, node::NodeId host_rank) {
  node_host_[node] = node_host_[host_rank];
  if (nic_) node_nic_[node] = node_nic_[host_rank];
  return true;
}

bool SimgridBackend::reserve_spare_host(node::NodeId node) {
  if (reserved_spare_[node] != kNoSpare) return true;
  if (next_spare_ >= platform_.spares.size()) return false;
  reserved_spare_[node] = next_spare_++;
  return true;
}

void SimgridBackend::migration_transfer(node::NodeId node, std::uint64_t bytes, std::uint64_t token) {
  if (halted_) return;
  const std::size_t spare = reserved_spare_.at(node);
  if (spare == kNoSpare) throw std::logic_error("migration transfer without a reserved spare host");
  if (nic_) {
    nic_transfer(node, node_nic_[node], spare_nic_ + spare, bytes, true, token);
    return;
  }
  if (flows_) {
    grouped_transfer(node, host_of(node), platform_.spares[spare], bytes, true, token);
    return;
  }
  sg4::CommPtr comm = simgrid_compat::start_transfer(host_of(node), platform_.spares[spare], std::max<std::uint64_t>(bytes, 1));
  track(*comm, Kind::migration, node, token);
  storage_comms_.emplace_back(node, std::move(comm));  // cancelled with the rank's host, as storage transfers
}

void SimgridBackend::move_to_reserved_host(node::NodeId node) {
  const std::size_t spare = reserved_spare_.at(node);
  if (spare == kNoSpare) throw std::logic_error("no spare host reserved for this rank");
  if (nic_) node_nic_[node] = spare_nic_ + spare;
  node_host_[node] = platform_.spares[spare];
  reserved_spare_[node] = kNoSpare;
}

void SimgridBackend::halt() {
  if (halted_) return;
  halted_ = true;  // from now on no event reaches the core
  // Cancelling activities from inside a completion callback is not safe in SimGrid 3.32: do it
  // from a kernel timer, as failures do.
  simgrid_compat::set_timer(now(), [this] { cancel_everything(); });
}

void SimgridBackend::cancel_everything() {
  for (auto& running : running_) running.clear();
  timed_.clear();
  flows_event_armed_ = false;
  flows_changed_ = false;
  if (armed_ != nullptr) armed_->remove();
  armed_ = nullptr;
  for (auto& transfer : nic_storage_) transfer.in_flight = false;  // their events are gone with timed_
  for (Slot& s : slots_) {
    s.nic_in_flight = false;
    s.flow_in_flight = false;  // the flows' event is gone with timed_
    if (!s.comm) continue;
    cancel(std::move(s.comm));
    s.comm = nullptr;
  }
  for (auto& [node, comm] : storage_comms_) cancel(comm);
  storage_comms_.clear();
}

}  // namespace ftsim::simgrid_backend
