#include "sim/world/machines.hpp"

#include "graphs/buddy_mapping.hpp"

namespace ftsim::world {

namespace {

std::vector<std::vector<NodeId>> buddies_of(const config::Config& config, NodeId ranks) {
  // Buddies keep each other's checkpoint data: the rule keeps them off one machine.
  std::vector<std::vector<NodeId>> buddies;
  if (config.checkpoints.empty() || ranks <= 1) return buddies;
  const graphs::BuddyMapping mapping(config.checkpoints.front().buddy, config.distribution, ranks);
  buddies.resize(ranks);
  for (NodeId n = 0; n < ranks; ++n) buddies[n].assign(mapping.buddies(n).begin(), mapping.buddies(n).end());
  return buddies;
}

}  // namespace

Machines::Machines(const config::Config& config, NodeId ranks, Backend& backend, node::RunMetrics& metrics)
    : backend_(backend),
      metrics_(metrics),
      ranks_(ranks),
      shrink_on_no_spare_(config.platform.shrink_on_no_spare),
      placement_(ranks, config.platform.ranks_per_machine, config.platform.unlimited_spares ? 0 : config.platform.spares),
      // cores_per_node is a machine's cores: its ranks share them.
      cores_(placement_.machines(), config.platform.cores_per_node),
      rehost_pending_(ranks, false),
      open_redistribution_(ranks, kNone) {
  if (auto buddies = buddies_of(config, ranks); !buddies.empty()) placement_.set_buddies(std::move(buddies));
  metrics_.shrink_enabled = true;
  metrics_.machines_at_start = placement_.machines_up();
  metrics_.ranks_per_machine = config.platform.ranks_per_machine;
}

void Machines::start_task(NodeId rank, TaskId task, double seconds) {
  // A task for which no core of the machine is free waits for one.
  if (rank < ranks_ && !cores_.request(placement_.machine_of(rank), {rank, task, seconds})) return;
  backend_.start_task(rank, task, seconds);
}

void Machines::cancel_task(NodeId rank, TaskId task) {
  if (rank >= ranks_) {
    backend_.cancel_task(rank, task);
    return;
  }
  const std::uint32_t machine = placement_.machine_of(rank);
  if (cores_.withdraw(machine, rank, task)) return;  // it was still waiting for a core
  backend_.cancel_task(rank, task);
  MachineCores::Start next{};
  if (cores_.release(machine, rank, task, next)) backend_.start_task(next.rank, next.task, next.seconds);
}

void Machines::task_finished(NodeId rank, TaskId task) {
  if (rank >= ranks_) return;
  MachineCores::Start next{};
  if (cores_.release(placement_.machine_of(rank), rank, task, next)) backend_.start_task(next.rank, next.task, next.seconds);
}

void Machines::rank_died(NodeId rank, bool spare) {
  std::vector<MachineCores::Start> started;
  cores_.drop_rank(placement_.machine_of(rank), rank, started);
  for (const auto& s : started) backend_.start_task(s.rank, s.task, s.seconds);
  open_redistribution_[rank] = kNone;  // a redistribution under way ends unrecovered
  rehost_pending_[rank] = !spare;
}

bool Machines::restart(NodeId rank, double now, bool& rehosted, std::string& error) {
  rehosted = rehost_pending_[rank];
  if (rehosted) return rehost(rank, now, error);
  // A spare machine; with several ranks per machine the ranks of the failed machine go to one.
  const NodeId joins = placement_.take_spare(rank);
  if (joins != ShrinkPlacement::kNoRank) {
    backend_.rehost_node(rank, joins);
  } else {
    backend_.replace_node(rank);
  }
  return true;
}

bool Machines::rehost(NodeId rank, double now, std::string& error) {
  const std::uint32_t machine = placement_.choose_machine(rank);
  if (machine == ShrinkPlacement::kNoMachine) {
    error = "node " + std::to_string(rank) +
            " failed and no machine is left to run it (/platform/on_no_spare = shrink: every machine failed)";
    return false;
  }
  const NodeId host_rank = placement_.ranks_on(machine).front();
  const std::uint32_t from_machine = placement_.machine_of(rank);  // the failed one, until hosted
  if (!backend_.rehost_node(rank, host_rank)) {
    error = "/platform/on_no_spare: \"shrink\" is not supported by this backend (it cannot run two ranks on one machine)";
    return false;
  }
  placement_.host(rank, machine);
  rehost_pending_[rank] = false;
  node::RedistributionRecord record;
  record.time = now;
  record.node = rank;
  record.machine_rank = host_rank;
  record.machine = machine;
  record.from_machine = from_machine;
  open_redistribution_[rank] = metrics_.redistributions.size();
  metrics_.redistributions.push_back(record);
  return true;
}

std::string Machines::describe(NodeId rank, node::Record& record) const {
  // A spare, or (shrink, no spare left) a surviving machine that now runs one rank more.
  record.machine = placement_.machine_of(rank);
  record.machines_up = placement_.machines_up();
  const std::vector<NodeId>& on_machine = placement_.ranks_on(record.machine);
  record.machine_ranks = static_cast<std::uint32_t>(on_machine.size());
  std::string ranks;
  for (NodeId r : on_machine) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return ranks;
}

void Machines::count_delivery(NodeId rank, node::Traffic traffic, std::uint64_t bytes) {
  // What moves the failed rank's state to its new machine: checkpoint data read back and data
  // re-sent to it (replays, lineage re-sends), until its failure is recovered.
  if (rank >= ranks_ || open_redistribution_[rank] == kNone) return;
  if (traffic != node::Traffic::restore && traffic != node::Traffic::recovery) return;
  metrics_.redistributions[open_redistribution_[rank]].bytes += bytes;
}

void Machines::recovered(NodeId rank, std::uint32_t incarnation, std::uint32_t current, double now) {
  if (rank >= ranks_ || open_redistribution_[rank] == kNone || incarnation + 1 != current) return;
  metrics_.redistributions[open_redistribution_[rank]].recovered_at = now;
  open_redistribution_[rank] = kNone;
}

}  // namespace ftsim::world
