#pragma once
// TaskGraph: the immutable task graph of one application run, built by StfBuilder.
// Struct-of-arrays indexed by dense ids (no per-task heap allocation, no per-task string);
// dependencies in a directed Boost compressed_sparse_row_graph so Boost algorithms run on it
// directly, and its in-edges (the predecessors) in a CSR of their own. Task ids follow the STF
// submission order, which is a topological order.
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include "graphs/background_prefault.hpp"
#include "graphs/ids.hpp"
#include "graphs/label_column.hpp"
#include "graphs/transfer_plan.hpp"

namespace ftsim::graphs {

class TaskGraph {
public:
  using Dag = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property,
                                                 boost::no_property, boost::no_property,
                                                 TaskId, std::uint32_t>;

  TaskGraph() = default;
  TaskGraph(TaskGraph&&) = default;
  TaskGraph& operator=(TaskGraph&&) = default;
  TaskGraph(const TaskGraph&) = delete;
  TaskGraph& operator=(const TaskGraph&) = delete;

  // --- sizes ---
  std::size_t task_count() const { return task_kernel_.size(); }
  std::size_t handle_count() const { return handle_bytes_.size(); }
  std::size_t kernel_count() const { return kernel_names_.size(); }
  NodeId node_count() const { return node_count_; }
  std::size_t edge_count() const { return boost::num_edges(dag_); }

  // --- kernels: name and default flops of one execution (the cost model) ---
  const std::string& kernel_name(KernelId k) const { return kernel_names_[k]; }
  double kernel_flops(KernelId k) const { return kernel_flops_[k]; }

  // --- tasks ---
  KernelId kernel(TaskId t) const { return task_kernel_[t]; }
  NodeId node(TaskId t) const { return task_node_[t]; }
  // A cache hint for a task about to be handled: its entries in the per-task arrays (the
  // offsets of its accesses and successors, which say where the next hints point).
  void prefetch_task(TaskId t) const {
    __builtin_prefetch(&task_node_[t]);
    __builtin_prefetch(&task_kernel_[t]);
    __builtin_prefetch(&task_priority_[t]);
    __builtin_prefetch(&access_offset_[t]);
    __builtin_prefetch(&dag_.m_forward.m_rowstart[t]);
  }
  std::int32_t priority(TaskId t) const { return task_priority_[t]; }
  // Its kernel's flops unless a task of the graph overrode them (then each task's is stored).
  double flops(TaskId t) const { return task_flops_.empty() ? kernel_flops_[task_kernel_[t]] : task_flops_[t]; }
  Label label(TaskId t) const { return task_label_[t]; }
  std::span<const Access> accesses(TaskId t) const {
    return {accesses_.data() + access_offset_[t], accesses_.data() + access_offset_[t + 1]};
  }
  // Readable task name: "GEMM(5,3,1)" or "GEMM#1234".
  std::string task_name(TaskId t) const;

  // --- dependencies ---
  const Dag& dag() const { return dag_; }
  std::span<const TaskId> successors(TaskId t) const;
  std::size_t predecessor_count(TaskId t) const { return predecessor_offset_[t + 1] - predecessor_offset_[t]; }
  std::span<const TaskId> predecessors(TaskId t) const {
    return {predecessors_.data() + predecessor_offset_[t], predecessors_.data() + predecessor_offset_[t + 1]};
  }

  // --- data handles ---
  std::uint64_t bytes(HandleId h) const { return handle_bytes_[h]; }
  NodeId owner(HandleId h) const { return handle_owner_[h]; }
  Label handle_label(HandleId h) const { return handle_label_[h]; }
  const std::string& handle_family(HandleId h) const { return family_names_[handle_family_[h]]; }
  std::string handle_name(HandleId h) const;  // "A[5][3]", "alpha" (a name), or "data#12"
  Version final_version(HandleId h) const {
    return writer_offset_[h + 1] - writer_offset_[h];
  }
  // The task that wrote version v >= 1 of h.
  TaskId writer(HandleId h, Version v) const { return writers_[writer_offset_[h] + v - 1]; }
  // The node where version v of h is produced: the owner for the initial value, else the writer's.
  NodeId version_node(HandleId h, Version v) const {
    return v == 0 ? handle_owner_[h] : task_node_[writer(h, v)];
  }
  std::uint64_t total_data_bytes() const;

  // --- candidate checkpoint cuts (StfBuilder::checkpoint calls), numbered 1..cut_count ---
  std::size_t cut_count() const { return cut_position_.size(); }
  // Number of tasks submitted before cut c.
  TaskId cut_position(CutId c) const { return cut_position_[c - 1]; }
  // Candidate cuts before task t (its section if every cut were a checkpoint).
  CutId section(TaskId t) const;
  // The handles written between cut c-1 and cut c, each with its version at cut c
  // (the version of its last writer submitted before the cut).
  struct CutEntry {
    HandleId handle;
    Version version;
  };
  // The handles written between cut c - 1 and cut c, each with its version at cut c, by handle:
  // what a checkpoint at c saves beyond one at c - 1. Computed for every cut in one pass over the
  // accesses the first time it is asked (thread-safe): they take 73 MB of the Lion 2020 graph,
  // which no run without checkpoints reads.
  std::span<const CutEntry> modified_before_cut(CutId c) const {
    const CutEntries& cut = cut_entries();
    return {cut.entries.data() + cut.offset[c - 1], cut.entries.data() + cut.offset[c]};
  }

  // --- the transfer plan (StarPU-MPI cache rule) ---
  const TransferPlan& transfers() const { return transfers_; }

private:
  friend class StfBuilder;

  // The dependency DAG from its predecessors' CSR (each task's in-edges, sources in edge order),
  // which it keeps: the only code that touches the Boost CSR graph's arrays (task_graph.cpp).
  // `prefault` faults the successors' array in the background.
  void set_dependencies(std::vector<std::uint32_t> predecessor_offset, std::vector<TaskId> predecessors,
                        BackgroundPrefault& prefault);

  NodeId node_count_ = 0;
  std::vector<std::string> kernel_names_;
  std::vector<double> kernel_flops_;
  std::vector<std::string> family_names_;

  std::vector<KernelId> task_kernel_;
  std::vector<NodeId> task_node_;
  std::vector<std::int32_t> task_priority_;
  std::vector<double> task_flops_;  // empty while every task has its kernel's flops
  LabelColumn task_label_;
  std::vector<std::uint32_t> access_offset_;  // task_count + 1
  std::vector<Access> accesses_;

  std::vector<std::uint64_t> handle_bytes_;
  std::vector<NodeId> handle_owner_;
  std::vector<std::uint32_t> handle_family_;
  std::vector<Label> handle_label_;
  std::vector<std::uint32_t> writer_offset_;  // handle_count + 1
  std::vector<TaskId> writers_;

  std::vector<TaskId> cut_position_;
  struct CutEntries {
    std::once_flag computed;
    std::vector<std::uint32_t> offset;  // cut_count + 1
    std::vector<CutEntry> entries;
  };
  const CutEntries& cut_entries() const;
  std::unique_ptr<CutEntries> cut_entries_ = std::make_unique<CutEntries>();  // a pointer: moves

  TransferPlan transfers_;
  Dag dag_;  // out-edges by target
  // In-edges by source: a directed CSR graph has no in-edges, and a bidirectional one would store,
  // besides these, the index of each in-edge's out-edge (4 bytes per edge that nothing reads).
  std::vector<std::uint32_t> predecessor_offset_;  // task_count + 1
  std::vector<TaskId> predecessors_;
};

}  // namespace ftsim::graphs
