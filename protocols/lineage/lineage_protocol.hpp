#pragma once
// lineage: no checkpoint. Lost data is recomputed from the task graph's lineage, as Dask and Ray
// do, by a planner on the coordinator (Dask's scheduler) that learns everything by message:
//  1. On a failure notice it asks every node it believes up for an INVENTORY: the state of each
//     of its tasks and the versions it holds. A node pins what it reports until the plan
//     arrives, so that nothing it reported disappears meanwhile (a copy released, an own version
//     overwritten in place by a writer already running). A replacement reports itself fresh.
//  2. From the inventories it plans: every version that a remaining task or the final result
//     needs and that no node holds or will produce is recomputed by re-executing its writer,
//     recursively through that task's own inputs; versions still held are re-sent; initial
//     values are read again. A failed node's replacement runs only the tasks the plan needs;
//     its other tasks count as done.
//  3. It sends each node its PLAN; a node applies it on arrival and answers APPLIED; once all
//     have, GO: only then are versions re-sent (one arriving before its receiver marked its
//     readers again would be dropped). A node answers DONE once the re-executions it was given
//     have run. The failure is recovered when every node is DONE.
// Survivors keep computing throughout. The messages and their fields: lineage_messages.hpp.
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "protocols/node_incarnations.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::lineage {

class LineageProtocol final : public node::Protocol {
public:
  explicit LineageProtocol(bool coordinator) : coordinator_(coordinator) {}

  void on_task_completed(node::ProtocolContext& ctx, node::TaskId task, bool first_execution) override;
  void on_control(node::ProtocolContext& ctx, const node::Message& message) override;
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& message) override;
  void on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) override;
  void on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) override;
  bool finished(node::ProtocolContext& ctx) override;
  std::string phase(node::ProtocolContext& ctx) override;

private:
  // --- node side ---
  void report_inventory(node::ProtocolContext& ctx, std::uint32_t round);
  void apply_plan(node::ProtocolContext& ctx, const node::Message& message);
  void release_inventory_pins(node::ProtocolContext& ctx);
  void start_sends(node::ProtocolContext& ctx);
  void maybe_done(node::ProtocolContext& ctx);
  std::uint32_t address(node::NodeId node) const;  // the incarnation data for `node` is meant for
  // --- coordinator side ---
  void gather(node::ProtocolContext& ctx);
  void plan(node::ProtocolContext& ctx);

  bool coordinator_;
  // node side
  bool fresh_ = false;                                   // a replacement not yet given its plan
  std::vector<std::uint64_t> inventory_pins_;            // versions pinned for the planner
  std::unordered_set<std::uint64_t> keep_outputs_;       // versions to pin when produced, until the plan
  std::unordered_map<node::TaskId, std::vector<std::uint64_t>> reexecuting_;  // task -> inputs pinned
  std::uint32_t plan_round_ = 0;
  std::uint32_t inventory_round_ = 0;                    // the latest round it reported for
  bool holding_recovery_sends_ = false;                  // between a plan and its GO
  bool done_sent_ = true;
  NodeIncarnations incarnation_;  // per node: after the latest failure heard of (0: none)
  // coordinator side
  struct Inventory {
    bool received = false;
    bool fresh = false;
    std::vector<std::uint8_t> state;    // per local task: 0 never ran, 1 done, 2 to run again
    std::vector<std::uint64_t> held;    // sorted VersionStore keys
  };
  std::uint32_t round_ = 0;
  std::vector<std::uint8_t> failed_;    // per node: failed since the last plan (holds nothing)
  std::vector<Inventory> inventories_;
  std::uint32_t waiting_ = 0;           // inventories still to come
  bool gathering_ = false;
  std::uint32_t planned_round_ = 0;
  std::uint32_t applied_waiting_ = 0;   // APPLIED answers still to come for planned_round_
  std::uint32_t done_waiting_ = 0;      // DONE answers still to come for planned_round_
  std::vector<node::FailureNotice> unrecovered_;
};

}  // namespace ftsim::protocols::lineage
