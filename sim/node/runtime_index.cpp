#include "sim/node/runtime_index.hpp"

#include "graphs/huge_pages.hpp"
#include "graphs/startup_threads.hpp"
#include "sim/config/stop_request.hpp"

namespace ftsim::node {

namespace {
// Fills a CSR (offsets + items) from a key per item, keeping the items' original order. `random`:
// the run reads it at random (huge pages), not only in order.
template <class KeyOf>
void fill_csr(std::size_t keys, std::size_t items, KeyOf key_of, std::vector<std::uint32_t>& offset,
              std::vector<std::uint32_t>& values, bool random = true) {
  if (random) graphs::reserve_on_huge_pages(offset, keys + 1);
  offset.assign(keys + 1, 0);
  for (std::size_t i = 0; i < items; ++i) ++offset[key_of(i) + 1];
  for (std::size_t k = 0; k < keys; ++k) offset[k + 1] += offset[k];
  if (random) graphs::reserve_on_huge_pages(values, items);
  values.resize(items);
  std::vector<std::uint32_t> cursor(offset.begin(), offset.end() - 1);
  for (std::size_t i = 0; i < items; ++i) values[cursor[key_of(i)]++] = static_cast<std::uint32_t>(i);
}
}  // namespace

RuntimeIndex::RuntimeIndex(const TaskGraph& graph) {
  const std::size_t handles = graph.handle_count();
  version_slot_.resize(handles + 1);
  version_slot_[0] = 0;
  for (HandleId h = 0; h < handles; ++h) version_slot_[h + 1] = version_slot_[h] + graph.final_version(h) + 1;
  const std::size_t slots = version_slot_[handles];

  // Each node's tasks are read in order (its start, its snapshots).
  fill_csr(graph.node_count(), graph.task_count(), [&](std::size_t t) { return graph.node(static_cast<TaskId>(t)); },
           node_task_offset_, node_tasks_, false);
  // The readers and the rest are independent passes over millions of tasks: on both cores. (If
  // the readers' pass is interrupted, the future's destructor waits for the other one.)
  graphs::run_both([&] { index_readers(graph, slots); }, [this, &graph] { index_sends_and_slots(graph); });
}

// Readers of each version: count, prefix, fill.
void RuntimeIndex::index_readers(const TaskGraph& graph, std::size_t slots) {
  graphs::reserve_on_huge_pages(reader_offset_, slots + 1);
  reader_offset_.assign(slots + 1, 0);
  auto read_slot = [&](const graphs::Access& a) {
    const Version read = a.mode == graphs::AccessMode::RW ? a.version - 1 : a.version;
    return version_slot_[a.handle] + read;
  };
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    // Millions of tasks take seconds: honour a stop request meanwhile.
    if ((t & 0xfffff) == 0 && stop_requested()) throw Interrupted("interrupted while indexing the task graph");
    for (const auto& a : graph.accesses(t)) {
      if (graphs::reads(a.mode)) ++reader_offset_[read_slot(a) + 1];
    }
  }
  for (std::size_t s = 0; s < slots; ++s) reader_offset_[s + 1] += reader_offset_[s];
  graphs::reserve_on_huge_pages(readers_, reader_offset_[slots]);
  readers_.resize(reader_offset_[slots]);
  {
    // Node by node, each node's tasks in submission order: every version's readers come grouped
    // by node, so that a node finds its own with a binary search (readers_on) instead of a
    // lookup of every reader's node.
    std::vector<std::uint32_t> cursor(reader_offset_.begin(), reader_offset_.end() - 1);
    for (TaskId t : node_tasks_) {
      for (const auto& a : graph.accesses(t)) {
        if (graphs::reads(a.mode)) readers_[cursor[read_slot(a)]++] = t;
      }
    }
  }
}

// Sends grouped by the task that produces their version, or by owner for initial values.
void RuntimeIndex::index_sends_and_slots(const TaskGraph& graph) {
  const std::size_t handles = graph.handle_count();
  const auto& plan = graph.transfers();
  const std::size_t tasks = graph.task_count();
  std::vector<std::uint32_t> producer_key(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const auto& x = plan[i];
    producer_key[i] = x.version == 0 ? static_cast<std::uint32_t>(tasks) : graph.writer(x.handle, x.version);
  }
  fill_csr(tasks + 1, plan.size(), [&](std::size_t i) { return producer_key[i]; }, send_offset_, send_ids_);
  // Initial sends: the items of key `tasks`, regrouped by owner.
  std::vector<std::uint32_t> initial_items(send_ids_.begin() + send_offset_[tasks], send_ids_.end());
  send_ids_.resize(send_offset_[tasks]);
  send_offset_.pop_back();
  send_offset_.back() = static_cast<std::uint32_t>(send_ids_.size());
  fill_csr(graph.node_count(), initial_items.size(),
           [&](std::size_t i) { return plan[initial_items[i]].source; }, initial_offset_, initial_send_ids_);
  for (auto& id : initial_send_ids_) id = initial_items[id];

  fill_csr(graph.node_count(), handles, [&](std::size_t h) { return graph.owner(static_cast<HandleId>(h)); },
           owned_offset_, owned_handles_);
  graphs::reserve_on_huge_pages(local_slot_, tasks);
  local_slot_.resize(tasks);
  for (NodeId n = 0; n < graph.node_count(); ++n) {
    for (std::uint32_t i = node_task_offset_[n]; i < node_task_offset_[n + 1]; ++i) local_slot_[node_tasks_[i]] = i - node_task_offset_[n];
  }
}

}  // namespace ftsim::node
