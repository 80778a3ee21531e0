// The sans-I/O node runtime in isolation: a fake RuntimeServices records what the runtime asks
// for (start a task, send a version) and the test plays the backend's part by hand.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <memory>

#include "graphs/stf_builder.hpp"
#include "sim/node/node_runtime.hpp"

using namespace ftsim;
using namespace ftsim::graphs;
using node::NodeRuntime;
using node::TaskStatus;
using node::Traffic;

namespace {

struct Sent {
  NodeId from, to;
  HandleId handle;
  Version version;
  Traffic traffic;
};

struct FakeServices : node::RuntimeServices {
  explicit FakeServices(NodeId node) : node(node) {}
  NodeId node;
  std::vector<TaskId> started, cancelled, completed;
  std::vector<Sent> sent;
  bool veto = false;
  void start_task(TaskId task) override { started.push_back(task); }
  void cancel_task(TaskId task) override { cancelled.push_back(task); }
  void send_data(NodeId to, HandleId h, Version v, node::Digest digest, Traffic traffic, TaskId) override {
    sent.push_back({node, to, h, v, traffic});
    sent_digest = digest;
  }
  node::Digest sent_digest = 0;
  void task_completed(TaskId task, bool) override { completed.push_back(task); }
  bool may_start(TaskId) override { return !veto; }
};

// Lion & Thibault 2020, Fig. 1: f1 on node 0 writes A, f2 on node 1 writes B, f3 on node 1
// reads A, updates B and writes C; then f4 on node 1 reads A again and f5 on node 0 writes A.
struct Fig1 {
  TaskGraph graph;
  HandleId A, B, C;
  Fig1() {
    StfBuilder b(2);
    const KernelId k = b.kernel("f", 1e9);
    A = b.data(100, 0);
    B = b.data(20, 1);
    C = b.data(3, 1);
    b.task(k, {W(A)}, 0, 0);                 // 0
    b.task(k, {W(B)}, 1, 0);                 // 1
    b.task(k, {RW(B), R(A), W(C)}, 1, 0);    // 2
    b.task(k, {R(A), RW(C)}, 1, 0);          // 3
    b.task(k, {RW(A)}, 0, 0);                // 4
    graph = b.finish();
  }
};

// A random STF graph: `tasks` tasks on random nodes, each reading a random handle and writing
// another, in place or not; one task in `read_only_every` (0: none) only reads.
TaskGraph random_graph(unsigned seed, NodeId nodes, int handle_count, int tasks, int read_only_every) {
  std::mt19937 random(seed);
  StfBuilder b(nodes);
  const KernelId k = b.kernel("f", 1e9);
  std::vector<HandleId> handles;
  for (int i = 0; i < handle_count; ++i) handles.push_back(b.data(8, static_cast<NodeId>(i % nodes)));
  for (int t = 0; t < tasks; ++t) {
    const HandleId read = handles[random() % handles.size()];
    HandleId write = handles[random() % handles.size()];
    if (write == read) write = handles[(read + 1) % handles.size()];
    const NodeId node = static_cast<NodeId>(random() % nodes);
    if (read_only_every > 0 && random() % read_only_every == 0) {
      b.task(k, {R(read)}, node, 0);
    } else if (random() % 2) {
      b.task(k, {R(read), RW(write)}, node, 0);
    } else {
      b.task(k, {R(read), W(write)}, node, 0);
    }
  }
  return b.finish();
}

// The Fig. 1 graph with one runtime per node, each with `cores` cores, at its initial state.
struct Harness {
  Fig1 f;
  node::RuntimeIndex index{f.graph};
  FakeServices s0{0}, s1{1};
  NodeRuntime n0, n1;
  explicit Harness(std::uint32_t cores)
      : n0(0, cores, f.graph, index, s0), n1(1, cores, f.graph, index, s1) {
    n0.restore(n0.initial_snapshot());
    n1.restore(n1.initial_snapshot());
  }
};

}  // namespace

TEST_CASE("node runtime: runs ready tasks on its cores, sends what it produces, waits for remote data",
          "[core][runtime]") {
  Harness h(1);
  auto& [f, index, s0, s1, n0, n1] = h;
  n0.rebuild();
  n1.rebuild();
  // Node 0 starts f1; node 1 starts f2 (one core each); f3 waits for f2 and for A from node 0.
  CHECK(s0.started == std::vector<TaskId>{0});
  CHECK(s1.started == std::vector<TaskId>{1});
  CHECK(n1.status(2) == TaskStatus::waiting);

  n0.on_task_finished(0);
  // A v1 goes to node 1 (the transfer plan); f5 (RW A) must wait: A is being sent (write hold).
  REQUIRE(s0.sent.size() == 1);
  CHECK(s0.sent[0].to == 1);
  CHECK(s0.sent[0].handle == f.A);
  CHECK(s0.sent[0].version == 1);
  CHECK(s0.started == std::vector<TaskId>{0});
  CHECK(n0.outgoing_in_flight() == 1);
  n0.on_send_done(f.A);
  CHECK(s0.started == std::vector<TaskId>{0, 4});

  n1.on_task_finished(1);
  CHECK(s1.started == std::vector<TaskId>{1});  // f3 still needs A
  n1.on_data(f.A, 1, s0.sent_digest);
  CHECK(s1.started == std::vector<TaskId>{1, 2});
  // The copy of A is kept for f4, the second reader on node 1, then released.
  CHECK(n1.store().holds(f.A, 1));
  n1.on_task_finished(2);
  CHECK(n1.store().holds(f.A, 1));
  CHECK(s1.started == std::vector<TaskId>{1, 2, 3});
  n1.on_task_finished(3);
  CHECK_FALSE(n1.store().holds(f.A, 1));
  CHECK(n1.remaining_tasks() == 0);
  // In place: node 1 holds only the latest versions of its data.
  CHECK(n1.store().holds(f.B, 2));
  CHECK_FALSE(n1.store().holds(f.B, 1));
  CHECK(n1.store().holds(f.C, 2));
  // A late duplicate of a version no local task needs any more is not kept.
  n1.on_data(f.A, 1, s0.sent_digest);
  CHECK_FALSE(n1.store().holds(f.A, 1));
  CHECK(s1.started.size() == 3);
}

TEST_CASE("node runtime: a snapshot restores the tasks done and the versions held; tasks after it send again",
          "[core][runtime]") {
  Harness h(2);
  auto& [f, index, s0, s1, n0, n1] = h;
  n0.rebuild();
  n0.on_task_finished(0);
  const node::NodeSnapshot after_f1 = n0.snapshot();
  CHECK(after_f1.bytes == 100);  // A v1
  n0.on_send_done(f.A);
  n0.on_task_finished(4);
  CHECK(n0.store().holds(f.A, 2));

  // Roll back to the snapshot: f5 is undone, A is back at v1, and the node runs f5 again.
  n0.abort();
  n0.restore(after_f1);
  n0.rebuild();
  CHECK(n0.status(0) == TaskStatus::done);
  CHECK(n0.status(4) == TaskStatus::running);
  CHECK(n0.store().holds(f.A, 1));
  CHECK_FALSE(n0.store().holds(f.A, 2));
  CHECK(std::count(s0.started.begin(), s0.started.end(), 4) == 2);
}

TEST_CASE("node runtime: pause, task limit and a protocol veto hold ready tasks back", "[core][runtime]") {
  Harness h(4);
  auto& [f, index, s0, s1, n0, n1] = h;
  n1.pause();
  n1.rebuild();
  CHECK(s1.started.empty());
  n1.set_task_limit(1);  // f2 (task 1) is after the cut
  n1.resume();
  CHECK(s1.started.empty());
  s1.veto = true;
  n1.set_task_limit(kNone);
  CHECK(s1.started.empty());
  s1.veto = false;
  n1.retry();
  CHECK(s1.started == std::vector<TaskId>{1});
}

TEST_CASE("node runtime: a wiped node re-executes what a recovery marks, and subscriptions send on production",
          "[core][runtime]") {
  Harness h(1);
  auto& [f, index, s0, s1, n0, n1] = h;
  n0.rebuild();
  n0.on_task_finished(0);
  n0.on_send_done(f.A);
  n0.on_task_finished(4);
  // Node 0 fails: everything it held is lost. A recovery asks for A v1 again for node 1.
  n0.wipe();
  CHECK(n0.store().size() == 0);
  n0.store().add_own(f.A, 0, 100, node::initial_digest(f.A));  // the initial value is the job's input
  n0.mark_for_reexecution(0);
  n0.subscribe(f.A, 1, 1, Traffic::recovery);
  const std::size_t before = s0.sent.size();
  n0.rebuild();
  CHECK(s0.started.back() == 0);
  n0.on_task_finished(0);
  // A re-execution sends only to the subscribers, not the transfer plan again.
  REQUIRE(s0.sent.size() == before + 1);
  CHECK(s0.sent.back().traffic == Traffic::recovery);
  CHECK(s0.sent.back().to == 1);
  CHECK(n0.executions(0) == 2);
}

TEST_CASE("runtime index: each version's readers grouped by node, a node's own found by readers_on",
          "[core][runtime]") {
  // A random STF graph over 5 nodes: the index must list every reader of every version exactly
  // once, nodes in increasing order, each node's readers in submission order.
  const TaskGraph graph = random_graph(7, 5, 12, 400, 0);
  const node::RuntimeIndex index(graph);
  std::size_t listed = 0, expected = 0;
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    for (const Access& a : graph.accesses(t)) expected += reads(a.mode);
  }
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    for (Version v = 0; v <= graph.final_version(h); ++v) {
      std::vector<TaskId> truth;  // by scanning every access
      for (TaskId t = 0; t < graph.task_count(); ++t) {
        for (const Access& a : graph.accesses(t)) {
          const Version read = a.mode == AccessMode::RW ? a.version - 1 : a.version;
          if (a.handle == h && reads(a.mode) && read == v) truth.push_back(t);
        }
      }
      std::stable_sort(truth.begin(), truth.end(), [&](TaskId x, TaskId y) { return graph.node(x) < graph.node(y); });
      const auto all = index.readers(h, v);
      CHECK(std::vector<TaskId>(all.begin(), all.end()) == truth);
      listed += all.size();
      for (NodeId n = 0; n < 5; ++n) {
        std::vector<TaskId> mine;
        for (TaskId r : truth) {
          if (graph.node(r) == n) mine.push_back(r);
        }
        const auto on = index.readers_on(graph, h, v, n);
        CHECK(std::vector<TaskId>(on.begin(), on.end()) == mine);
      }
    }
  }
  CHECK(listed == expected);
}

TEST_CASE("node runtime: from a job's start, every task runs once, after its predecessors and with its inputs held",
          "[core][runtime]") {
  // Random STF graphs over 3 nodes, played to the end by hand: tasks end in a random order and
  // messages arrive in order. A task starts after its local predecessors and with its inputs
  // held. A pending count too low at the start (rebuild when no task has run) starts a task
  // early; one too high leaves it waiting at the end.
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 random(seed);
    const TaskGraph graph = random_graph(seed, 3, 9, 120, 3);
    const node::RuntimeIndex index(graph);
    std::vector<std::unique_ptr<FakeServices>> services;
    std::vector<std::unique_ptr<NodeRuntime>> nodes;
    for (NodeId n = 0; n < 3; ++n) {
      services.push_back(std::make_unique<FakeServices>(n));
      nodes.push_back(std::make_unique<NodeRuntime>(n, 2, graph, index, *services[n]));
      nodes[n]->restore(nodes[n]->initial_snapshot());
    }
    for (auto& node : nodes) node->send_initial_values();
    for (auto& node : nodes) node->rebuild();

    std::vector<bool> done(graph.task_count(), false);
    std::vector<int> starts(graph.task_count(), 0);
    std::vector<std::size_t> started_seen(3, 0), sent_seen(3, 0);
    std::vector<TaskId> running;
    for (int step = 0; step < 100000; ++step) {
      for (NodeId n = 0; n < 3; ++n) {
        for (; started_seen[n] < services[n]->started.size(); ++started_seen[n]) {
          const TaskId t = services[n]->started[started_seen[n]];
          ++starts[t];
          // A remote predecessor is waited for through the data it sends (a copy is read, so
          // a remote reader of an older version does not hold a local writer back).
          for (TaskId p : graph.predecessors(t)) {
            if (graph.node(p) == n) CHECK(done[p]);
          }
          for (const Access& a : graph.accesses(t)) {
            if (reads(a.mode)) CHECK(nodes[n]->store().holds(a.handle, a.mode == AccessMode::RW ? a.version - 1 : a.version));
          }
          running.push_back(t);
        }
      }
      bool delivered = false;
      for (NodeId n = 0; n < 3; ++n) {
        for (; sent_seen[n] < services[n]->sent.size(); ++sent_seen[n]) {
          const Sent x = services[n]->sent[sent_seen[n]];
          nodes[x.to]->on_data(x.handle, x.version, node::initial_digest(x.handle));
          nodes[n]->on_send_done(x.handle);
          delivered = true;
        }
      }
      if (delivered) continue;
      if (running.empty()) break;
      const std::size_t pick = random() % running.size();
      const TaskId t = running[pick];
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(pick));
      done[t] = true;
      nodes[graph.node(t)]->on_task_finished(t);
    }
    INFO("seed " << seed);
    for (TaskId t = 0; t < graph.task_count(); ++t) CHECK(starts[t] == 1);
    for (auto& node : nodes) CHECK(node->remaining_tasks() == 0);
  }
}
