#include "graphs/stf_builder.hpp"

#include "graphs/huge_pages.hpp"

#include <algorithm>

#include "sim/config/stop_request.hpp"

namespace ftsim::graphs {

std::uint64_t checked_product(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) {
    throw GraphError("a data size of " + std::to_string(a) + " x " + std::to_string(b) + " bytes does not fit 64 bits");
  }
  return product;
}

const char* to_string(AccessMode mode) {
  switch (mode) {
    case AccessMode::R: return "R";
    case AccessMode::W: return "W";
    case AccessMode::RW: return "RW";
  }
  return "?";
}

StfBuilder::StfBuilder(NodeId node_count) {
  if (node_count == 0) throw GraphError("a task graph needs at least one node");
  graph_.node_count_ = node_count;
  graph_.access_offset_.push_back(0);
  in_edge_offset_.push_back(0);
  graph_.family_names_.push_back("data");
  family_index_.emplace("data", 0);
}

KernelId StfBuilder::kernel(std::string_view name, double flops) {
  for (std::size_t k = 0; k < graph_.kernel_names_.size(); ++k) {
    if (graph_.kernel_names_[k] == name) {
      if (graph_.kernel_flops_[k] != flops) {
        throw GraphError("kernel \"" + std::string(name) + "\" registered twice with different flops");
      }
      return static_cast<KernelId>(k);
    }
  }
  if (graph_.kernel_names_.size() >= 0xffff) throw GraphError("too many kernels (65535 at most)");
  if (!(flops >= 0)) throw GraphError("kernel \"" + std::string(name) + "\" has negative flops");
  graph_.kernel_names_.emplace_back(name);
  graph_.kernel_flops_.push_back(flops);
  return static_cast<KernelId>(graph_.kernel_names_.size() - 1);
}

HandleId StfBuilder::data(std::uint64_t bytes, NodeId owner) { return data(bytes, owner, "data", {}); }

HandleId StfBuilder::data(std::uint64_t bytes, NodeId owner, std::string_view family, Label label) {
  if (owner >= graph_.node_count_) {
    throw GraphError("data owner " + std::to_string(owner) + " is not a node (there are " +
                     std::to_string(graph_.node_count_) + ")");
  }
  if (graph_.handle_bytes_.size() >= kNone - 1) throw GraphError("too many data handles");
  auto& families = graph_.family_names_;
  auto [found, inserted] = family_index_.try_emplace(std::string(family), static_cast<std::uint32_t>(families.size()));
  if (inserted) families.emplace_back(family);
  graph_.handle_bytes_.push_back(bytes);
  graph_.handle_owner_.push_back(owner);
  graph_.handle_family_.push_back(found->second);
  graph_.handle_label_.push_back(label);
  HandleState state;
  state.version_node = owner;
  state_.push_back(state);
  return static_cast<HandleId>(graph_.handle_bytes_.size() - 1);
}

void StfBuilder::reserve(std::size_t tasks, std::size_t accesses, std::size_t edges, std::size_t transfers) {
  // The arrays the engine reads per task at random, on huge pages (huge_pages.hpp).
  reserve_on_huge_pages(graph_.task_kernel_, tasks);
  reserve_on_huge_pages(graph_.task_node_, tasks);
  reserve_on_huge_pages(graph_.task_priority_, tasks);
  reserved_tasks_ = tasks;  // task_flops_ is reserved if a task overrides its kernel's flops
  graph_.task_label_.reserve(tasks);
  reserve_on_huge_pages(graph_.access_offset_, tasks + 1);
  reserve_on_huge_pages(graph_.accesses_, accesses);
  edge_source_.reserve(edges);  // read in order (predecessors): 4 KiB pages (huge_pages.hpp)
  in_edge_offset_.reserve(tasks + 1);
  graph_.transfers_.transfers_.reserve(transfers);
  // Their first touch on the second core while the build fills them (BackgroundPrefault).
  prefault_.add(graph_.task_kernel_);
  prefault_.add(graph_.task_node_);
  prefault_.add(graph_.task_priority_);
  prefault_.add(graph_.access_offset_);
  prefault_.add(graph_.accesses_);
  prefault_.add(edge_source_);
  prefault_.add(in_edge_offset_);
}

std::uint32_t StfBuilder::push_entry(std::vector<std::uint32_t>& values, std::vector<std::uint32_t>& next,
                                     std::uint32_t& free, std::uint32_t value, std::uint32_t head) {
  if (free == kNone) {
    values.push_back(value);
    next.push_back(head);
    return static_cast<std::uint32_t>(values.size() - 1);
  }
  const std::uint32_t entry = free;
  free = next[entry];
  values[entry] = value;
  next[entry] = head;
  return entry;
}

void StfBuilder::release_list(std::vector<std::uint32_t>& next, std::uint32_t& free, std::uint32_t head) {
  if (head == kNone) return;
  std::uint32_t last = head;
  while (next[last] != kNone) last = next[last];
  next[last] = free;
  free = head;
}

void StfBuilder::add_edge(TaskId from) {
  // Dependencies of one task are few: an insertion into its sorted group, which also removes
  // duplicates. Sorted by source, the group is the task's in-edge list as Boost orders it.
  const std::size_t begin = in_edge_offset_.back();
  std::size_t e = edge_source_.size();
  while (e > begin && edge_source_[e - 1] > from) --e;
  if (e > begin && edge_source_[e - 1] == from) return;
  // The dependency graph indexes its edges with 32 bits.
  if (edge_source_.size() >= kNone - 1) throw GraphError("too many dependencies (4294967294 at most)");
  edge_source_.insert(edge_source_.begin() + static_cast<std::ptrdiff_t>(e), from);
}

TaskId StfBuilder::task(KernelId kernel, std::span<const AccessSpec> accesses, NodeId node,
                        std::int32_t priority, Label label, std::optional<double> flops) {
  if (kernel >= graph_.kernel_names_.size()) throw GraphError("unknown kernel id " + std::to_string(kernel));
  if (node >= graph_.node_count_) {
    throw GraphError("task node " + std::to_string(node) + " is not a node (there are " +
                     std::to_string(graph_.node_count_) + ")");
  }
  if (graph_.task_kernel_.size() >= kNone - 1) throw GraphError("too many tasks");
  const auto task_id = static_cast<TaskId>(graph_.task_kernel_.size());
  // Building a graph of millions of tasks takes seconds: honour a stop request meanwhile.
  if ((task_id & 0xffff) == 0 && stop_requested()) throw Interrupted("interrupted while building the task graph");
  const double task_flops = flops ? *flops : graph_.kernel_flops_[kernel];
  if (!(task_flops >= 0)) throw GraphError("task flops must be non-negative");

  // Merge duplicate handles (R + W = RW), keeping the first position.
  merged_.assign(accesses.begin(), accesses.end());
  for (std::size_t i = 0; i < merged_.size(); ++i) {
    if (merged_[i].handle >= state_.size()) {
      throw GraphError("task accesses unknown data handle " + std::to_string(merged_[i].handle));
    }
    for (std::size_t j = i + 1; j < merged_.size();) {
      if (merged_[j].handle == merged_[i].handle) {
        merged_[i].mode = static_cast<AccessMode>(static_cast<std::uint8_t>(merged_[i].mode) |
                                                  static_cast<std::uint8_t>(merged_[j].mode));
        merged_.erase(merged_.begin() + static_cast<std::ptrdiff_t>(j));
      } else {
        ++j;
      }
    }
  }

  // Access offsets and the reader lists are 32-bit.
  if (graph_.accesses_.size() + merged_.size() >= kNone - 1) throw GraphError("too many data accesses (4294967294 at most)");
  auto& plan = graph_.transfers_;
  for (const AccessSpec& spec : merged_) {
    HandleState& h = state_[spec.handle];
    if (reads(spec.mode)) {
      // RAW: after the last writer.
      if (h.last_writer != kNone) add_edge(h.last_writer);
      // Cache rule: a node receives a given version once.
      const NodeId source = h.version_node;
      if (source != node) {
        constexpr NodeId kBitNodes = 64;
        bool cached = false;
        if (node < kBitNodes) {
          cached = (h.holder_bits >> node) & 1;
        } else {
          for (std::uint32_t i = h.holders_head; i != kNone; i = holder_next_[i]) {
            if (holder_node_[i] == node) {
              cached = true;
              break;
            }
          }
        }
        if (cached) {
          ++plan.cache_hits_;
        } else {
          plan.transfers_.push_back({spec.handle, h.version, source, node, task_id});
          if (node < kBitNodes) {
            h.holder_bits |= std::uint64_t{1} << node;
          } else {
            h.holders_head = push_entry(holder_node_, holder_next_, holder_free_, node, h.holders_head);
          }
        }
      }
    }
    if (writes(spec.mode)) {
      if (h.version >= kMaxVersion) {
        throw GraphError("data handle " + std::to_string(spec.handle) + " is written more than " +
                         std::to_string(kMaxVersion) + " times (the most versions a handle may have)");
      }
      // WAW: after the last writer; WAR: after every reader since then.
      if (h.last_writer != kNone) add_edge(h.last_writer);
      for (std::uint32_t i = h.readers_head; i != kNone; i = reader_next_[i]) {
        if (reader_task_[i] != task_id) add_edge(reader_task_[i]);
      }
      release_list(reader_next_, reader_free_, h.readers_head);
      h.readers_head = kNone;
      h.holder_bits = 0;  // a new write invalidates the remote copies
      release_list(holder_next_, holder_free_, h.holders_head);
      h.holders_head = kNone;
      h.last_writer = task_id;
      h.version_node = node;
      ++h.version;
      graph_.accesses_.push_back(make_access(spec.handle, h.version, spec.mode));
    } else {
      h.readers_head = push_entry(reader_task_, reader_next_, reader_free_, task_id, h.readers_head);
      graph_.accesses_.push_back(make_access(spec.handle, h.version, spec.mode));
    }
  }

  graph_.task_kernel_.push_back(kernel);
  graph_.task_node_.push_back(node);
  graph_.task_priority_.push_back(priority);
  if (!graph_.task_flops_.empty()) {
    graph_.task_flops_.push_back(task_flops);
  } else if (task_flops != graph_.kernel_flops_[kernel]) {
    // The first task whose flops are not its kernel's: from now on every task's is stored.
    reserve_on_huge_pages(graph_.task_flops_, std::max<std::size_t>(reserved_tasks_, task_id + 1));
    for (TaskId t = 0; t < task_id; ++t) graph_.task_flops_.push_back(graph_.kernel_flops_[graph_.task_kernel_[t]]);
    graph_.task_flops_.push_back(task_flops);
  }
  graph_.task_label_.push_back(label);
  graph_.access_offset_.push_back(static_cast<std::uint32_t>(graph_.accesses_.size()));
  in_edge_offset_.push_back(static_cast<std::uint32_t>(edge_source_.size()));
  return task_id;
}

void StfBuilder::checkpoint() {
  graph_.cut_position_.push_back(static_cast<TaskId>(graph_.task_kernel_.size()));
}

TaskGraph StfBuilder::finish() {
  TaskGraph& g = graph_;

  // Writers of every version, per handle (CSR): writer(h, v) = writers_[offset[h] + v - 1].
  const std::size_t handles = g.handle_bytes_.size();
  g.writer_offset_.assign(handles + 1, 0);
  for (HandleId h = 0; h < handles; ++h) g.writer_offset_[h + 1] = g.writer_offset_[h] + state_[h].version;
  g.writers_.assign(g.writer_offset_[handles], kNone);
  for (TaskId t = 0; t < g.task_kernel_.size(); ++t) {
    for (const Access& a : g.accesses(t)) {
      if (writes(a.mode)) g.writers_[g.writer_offset_[a.handle] + a.version - 1] = t;
    }
  }

  g.set_dependencies(std::move(in_edge_offset_), std::move(edge_source_), prefault_);

  // Release the builder's scratch state.
  std::vector<HandleState>().swap(state_);
  std::vector<TaskId>().swap(reader_task_);
  std::vector<std::uint32_t>().swap(reader_next_);
  std::vector<NodeId>().swap(holder_node_);
  std::vector<std::uint32_t>().swap(holder_next_);
  g.accesses_.shrink_to_fit();
  return std::move(graph_);
}

}  // namespace ftsim::graphs
