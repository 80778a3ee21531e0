#include "sim/world/shrink.hpp"

#include <algorithm>

namespace ftsim::world {

ShrinkPlacement::ShrinkPlacement(NodeId ranks, std::uint32_t ranks_per_machine, std::uint32_t spares)
    : machine_of_(ranks), home_(ranks), ranks_on_(ranks / ranks_per_machine + spares),
      up_(ranks / ranks_per_machine + spares, false), ranks_per_machine_(ranks_per_machine),
      next_spare_(ranks / ranks_per_machine), machines_up_(ranks / ranks_per_machine) {
  if (ranks_per_machine > 1) replaced_by_.assign(ranks_on_.size(), kNoMachine);
  for (NodeId r = 0; r < ranks; ++r) {
    const std::uint32_t m = r / ranks_per_machine;
    machine_of_[r] = home_[r] = m;
    ranks_on_[m].push_back(r);
    up_[m] = true;
  }
}

std::vector<NodeId> ShrinkPlacement::machine_failed(NodeId rank) {
  const std::uint32_t machine = machine_of_[rank];
  std::vector<NodeId> gone = std::move(ranks_on_[machine]);
  ranks_on_[machine].clear();
  if (up_[machine]) {
    up_[machine] = false;
    --machines_up_;
  }
  return gone;
}

NodeId ShrinkPlacement::take_spare(NodeId rank) {
  const std::uint32_t failed = machine_of_[rank];
  std::uint32_t machine = kNoMachine;
  NodeId joins = kNoRank;
  if (!replaced_by_.empty() && replaced_by_[failed] != kNoMachine) {
    machine = replaced_by_[failed];  // a co-located rank restarted on a spare first: join it
    if (!ranks_on_[machine].empty()) joins = ranks_on_[machine].front();
  }
  if (machine == kNoMachine) machine = next_spare_ < ranks_on_.size() ? next_spare_++ : failed;
  if (!replaced_by_.empty() && machine != failed) replaced_by_[failed] = machine;
  host(rank, machine);
  home_[rank] = machine;  // a spare is the rank's own machine, not a shrink
  return joins;
}

bool ShrinkPlacement::runs_buddy_of(std::uint32_t machine, NodeId rank) const {
  if (buddies_of_.empty()) return false;
  const auto has = [](const std::vector<NodeId>& list, NodeId n) { return std::find(list.begin(), list.end(), n) != list.end(); };
  for (NodeId other : ranks_on_[machine]) {
    if (has(buddies_of_[rank], other) || has(buddies_of_[other], rank)) return true;
  }
  return false;
}

std::uint32_t ShrinkPlacement::choose_machine(NodeId rank) const {
  const std::uint32_t machines = static_cast<std::uint32_t>(ranks_on_.size());
  const std::uint32_t start = machine_of_[rank];
  std::uint32_t best = kNoMachine;
  bool best_conflicts = false;
  for (std::uint32_t step = 1; step <= machines; ++step) {
    const std::uint32_t m = (start + step) % machines;
    if (!up_[m]) continue;
    const bool conflicts = runs_buddy_of(m, rank);
    if (best == kNoMachine || ranks_on_[m].size() < ranks_on_[best].size() ||
        (ranks_on_[m].size() == ranks_on_[best].size() && best_conflicts && !conflicts)) {
      best = m;
      best_conflicts = conflicts;
    }
  }
  return best;
}

void ShrinkPlacement::host(NodeId rank, std::uint32_t machine) {
  machine_of_[rank] = machine;
  ranks_on_[machine].push_back(rank);
  if (!up_[machine]) {
    up_[machine] = true;
    ++machines_up_;
  }
}

MachineCores::MachineCores(std::uint32_t machines, std::uint32_t cores_per_machine)
    : cores_(cores_per_machine), machines_(machines) {}

bool MachineCores::request(std::uint32_t machine, const Start& start) {
  Machine& m = machines_[machine];
  if (m.running.size() < cores_ && m.waiting.empty()) {
    m.running.emplace_back(start.rank, start.task);
    return true;
  }
  m.waiting.push_back(start);
  return false;
}

bool MachineCores::release(std::uint32_t machine, NodeId rank, TaskId task, Start& next) {
  Machine& m = machines_[machine];
  const auto it = std::find(m.running.begin(), m.running.end(), std::make_pair(rank, task));
  if (it == m.running.end()) return false;
  m.running.erase(it);
  if (m.waiting.empty()) return false;
  next = m.waiting.front();
  m.waiting.erase(m.waiting.begin());
  m.running.emplace_back(next.rank, next.task);
  return true;
}

bool MachineCores::withdraw(std::uint32_t machine, NodeId rank, TaskId task) {
  Machine& m = machines_[machine];
  const auto it = std::find_if(m.waiting.begin(), m.waiting.end(),
                               [&](const Start& s) { return s.rank == rank && s.task == task; });
  if (it == m.waiting.end()) return false;
  m.waiting.erase(it);
  return true;
}

void MachineCores::drop_rank(std::uint32_t machine, NodeId rank, std::vector<Start>& started) {
  Machine& m = machines_[machine];
  std::erase_if(m.running, [&](const auto& r) { return r.first == rank; });
  std::erase_if(m.waiting, [&](const Start& s) { return s.rank == rank; });
  while (m.running.size() < cores_ && !m.waiting.empty()) {
    started.push_back(m.waiting.front());
    m.waiting.erase(m.waiting.begin());
    m.running.emplace_back(started.back().rank, started.back().task);
  }
}

}  // namespace ftsim::world
