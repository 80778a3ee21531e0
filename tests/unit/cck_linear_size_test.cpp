// Ḡ^p stays linear in the work since the checkpoint on a long iterative run (the case that made
// the closure-per-send Ḡ quadratic, docs/protocols.md "CCK"): a 6 x 6-tile stencil on 2 nodes,
// each a 6 x 3 block (two of its three columns never leave the node), thousands of sweeps since
// checkpoint 0, node 1 failed. The paper's Ḡ^0 would list, for each of the ~6 sends of sweep i,
// the ~6·i receives before it (about 9·10⁷ numbers at 3000 sweeps); the linear one has at most one
// vertex per task and one dependency per input.
#include <catch2/catch.hpp>

#include <chrono>

#include "graphs/apps/applications.hpp"
#include "graphs/distribution.hpp"
#include "graphs/stf_builder.hpp"
#include "protocols/cck/cck_planning.hpp"
#include "sim/node/runtime_index.hpp"
#include "sim/node/version_store.hpp"

using namespace ftsim;
using graphs::NodeId;
using protocols::cck::LocalState;
using protocols::cck::PlanningContext;
using protocols::cck::RestrictedGraph;

namespace {

graphs::TaskGraph two_node_stencil(std::uint32_t sweeps) {
  config::StencilConfig c;
  c.tiles_x = 6;
  c.tiles_y = 6;
  c.tile_size_x = 4;
  c.tile_size_y = 4;
  c.iterations = sweeps;
  config::DistributionConfig d;
  d.type = config::DistributionType::block_cyclic;
  d.P = 1;
  d.Q = 2;
  d.block_rows = 6;
  d.block_cols = 3;
  const graphs::Distribution distribution(d, 2);
  graphs::StfBuilder builder(2);
  graphs::submit_stencil(c, distribution, builder);
  return builder.finish();
}

struct Measure {
  std::size_t tasks = 0, sends = 0, bytes = 0, reexecute = 0, resends = 0;
  double seconds = 0;
};

// Everything ran since checkpoint 0 (the input), then node 1 failed: node 0's Ḡ and plan.
Measure measure(std::uint32_t sweeps) {
  const graphs::TaskGraph graph = two_node_stencil(sweeps);
  const node::RuntimeIndex index(graph);
  const protocols::cck::TransferLookup transfers(graph);
  const PlanningContext context{graph, index, transfers, false};
  std::vector<LocalState> states(2);
  for (NodeId n = 0; n < 2; ++n) {
    const std::size_t tasks = index.tasks_of(n).size();
    states[n].executed.assign(tasks, 1);
    states[n].done.assign(tasks, 1);
    states[n].at_checkpoint.assign(tasks, 0);
  }
  for (graphs::HandleId h = 0; h < graph.handle_count(); ++h) {
    states[graph.owner(h)].checkpoint_versions.insert(node::VersionStore::key(h, 0));
  }
  states[1].restoring = true;
  const auto start = std::chrono::steady_clock::now();
  std::vector<RestrictedGraph> graphs;
  for (NodeId n = 0; n < 2; ++n) graphs.push_back(build_restricted_graph(context, n, states[n]));
  const protocols::cck::NodePlan plan = plan_node(context, 0, states[0], graphs);
  Measure m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  m.tasks = index.tasks_of(0).size();
  m.sends = graphs[0].sends.size();
  m.bytes = graphs[0].encode().size();
  m.reexecute = plan.reexecute.size();
  m.resends = plan.resends.size();
  REQUIRE(plan.missing.empty());
  return m;
}

}  // namespace

TEST_CASE("cck: Ḡ and the plan stay linear in the sweeps since the checkpoint", "[cck][planning]") {
  const Measure half = measure(1500);
  const Measure full = measure(3000);
  WARN("cck linear Ḡ, 2-node stencil: 1500 sweeps " << half.bytes << " bytes (" << half.tasks << " tasks, "
                                                     << half.sends << " sends) in " << half.seconds << " s; 3000 sweeps "
                                                     << full.bytes << " bytes in " << full.seconds << " s");
  // Every send of node 0 goes to node 1, which restores checkpoint 0: all are lost, and all its
  // tasks but the last ones feed them.
  CHECK(full.resends == full.sends);
  CHECK(full.reexecute > full.tasks * 9 / 10);
  // At most a vertex (8 bytes) per task and per send, and a dependency (4 bytes) per input.
  CHECK(full.bytes <= 48 * (full.tasks + full.sends));
  CHECK(double(full.bytes) <= 2.05 * double(half.bytes));
  // Bounded work: well under a second in a release build (the closure per send took minutes).
  CHECK(full.seconds < 20.0);
}
