// The world driver's part of a shrink (/platform/on_no_spare: "shrink"; sim/world/shrink.hpp,
// docs/shrink.md): machines and their shared cores, the re-hosting of a failed rank on a
// survivor, and the measure of what moved to it.
#include "sim/world/simulation.hpp"

namespace ftsim::core {

namespace {
constexpr std::size_t kNone = static_cast<std::size_t>(-1);
}

void Simulation::start_task(NodeId node, TaskId task, double seconds) {
  // The ranks of one machine share its cores: a task for which none is free waits for one.
  if (tracks_machines() && node < node_count() && !machine_cores_->request(placement_->machine_of(node), {node, task, seconds})) {
    return;
  }
  backend_.start_task(node, task, seconds);
}

void Simulation::cancel_task(NodeId node, TaskId task) {
  if (!tracks_machines() || node >= node_count()) {
    backend_.cancel_task(node, task);
    return;
  }
  const std::uint32_t machine = placement_->machine_of(node);
  if (machine_cores_->withdraw(machine, node, task)) return;  // it was still waiting for a core
  backend_.cancel_task(node, task);
  MachineCores::Start next{};
  if (machine_cores_->release(machine, node, task, next)) backend_.start_task(next.rank, next.task, next.seconds);
}

void Simulation::shrink_task_finished(NodeId node, TaskId task) {
  if (node >= node_count()) return;
  MachineCores::Start next{};
  if (machine_cores_->release(placement_->machine_of(node), node, task, next)) {
    backend_.start_task(next.rank, next.task, next.seconds);
  }
}

std::vector<NodeId> Simulation::shrink_machine_failed(NodeId node) { return placement_->machine_failed(node); }

void Simulation::shrink_rank_died(NodeId node) {
  std::vector<MachineCores::Start> started;
  machine_cores_->drop_rank(placement_->machine_of(node), node, started);
  for (const auto& s : started) backend_.start_task(s.rank, s.task, s.seconds);
  open_redistribution_[node] = kNone;  // a redistribution under way ends unrecovered
}

bool Simulation::shrink_rehost(NodeId node) {
  const std::uint32_t machine = placement_->choose_machine(node);
  if (machine == ShrinkPlacement::kNoMachine) {
    fail_run("node " + std::to_string(node) + " failed and no machine is left to run it (/platform/on_no_spare = shrink: "
             "every machine failed)");
    return false;
  }
  const NodeId host_rank = placement_->ranks_on(machine).front();
  const std::uint32_t from_machine = placement_->machine_of(node);  // the failed one, until hosted
  if (!backend_.rehost_node(node, host_rank)) {
    fail_run("/platform/on_no_spare: \"shrink\" is not supported by this backend (it cannot run two ranks on one machine)");
    return false;
  }
  placement_->host(node, machine);
  rehost_pending_[node] = false;
  RedistributionRecord record;
  record.time = now();
  record.node = node;
  record.machine_rank = host_rank;
  record.machine = machine;
  record.from_machine = from_machine;
  open_redistribution_[node] = metrics_.redistributions.size();
  metrics_.redistributions.push_back(record);
  return true;  // replace() records it (RecordKind::rehost)
}

void Simulation::shrink_count_delivery(NodeId node, Traffic traffic, std::uint64_t bytes) {
  // What moves the failed rank's state to its new machine: checkpoint data read back and data
  // re-sent to it (replays, lineage re-sends), until its failure is recovered.
  if (node >= node_count() || open_redistribution_[node] == kNone) return;
  if (traffic != Traffic::restore && traffic != Traffic::recovery) return;
  metrics_.redistributions[open_redistribution_[node]].bytes += bytes;
}

void Simulation::shrink_recovered(NodeId node, std::uint32_t incarnation) {
  if (node >= node_count() || open_redistribution_[node] == kNone || incarnation + 1 != ranks_[node].incarnation()) return;
  metrics_.redistributions[open_redistribution_[node]].recovered_at = now();
  open_redistribution_[node] = kNone;
}

}  // namespace ftsim::core
