// The local-restart examples of Lion 2022 (thesis, ch. 3: papers/lion-2022-thesis-buddy-
// checkpointing-starpu.txt; digest notes/lion-2022-thesis.md §3 and §8.2) as small graph files,
// run by the buddy protocol on the in-process queue backend (no SimGrid):
//   Fig. 3.1  the recovery line: a local restart may use N + 1 unless a message of the failed
//             node from before cut N + 1 is in transit (then N), while a global restart would
//             need N;
//   Fig. 3.4  orphans: the restarted node sends again what survivors already received;
//   Fig. 3.5  the communication cache: a version received once before the checkpoint and read
//             again after it must be sent again (the thesis's FAKE_SEND);
//   Fig. 3.9  a restart: the buddy sends the checkpoint (A), then the log (B1, copied because
//             it was overwritten since, and B2), and C goes normally.
// ftsim keeps no per-tag counters and no FAKE_SEND entries: a survivor replays exactly the
// versions it produced that the restarted node's tasks at or after the restart cut read (from
// its log, which pins sent versions: copy-on-write by reference; an initial value is read
// again), and the restarted node's re-sends of versions a survivor already has are dropped at
// the receiver by (handle, version). The restart checkpoint is the newest one a live buddy holds
// (the two newest valid ones of each origin) that no survivor's in-transit bound forbids.
//
// Every task costs 1 ms (1 MFlop at 1 GFlop/s, one core per node) unless its "flops" say
// otherwise; messages take latency + bytes / bandwidth and, as MPI between two ranks, arrive in
// the order they were sent. Sizes are distinct so that bytes name the data. Task numbers below
// are TaskIds (submission order from 0).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/config/json_reader.hpp"
#include "sim/world/simulation.hpp"
#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

constexpr double kLatency = 1e-6;    // 1 us
constexpr double kBandwidth = 1e9;   // 1 GB/s
constexpr std::uint64_t kEnvelope = 32;

// A graph file (ftsim-graph format) in a scratch directory of this process, removed with it.
class GraphFile {
public:
  GraphFile(const std::string& name, const std::string& text)
      : dir_(std::filesystem::temp_directory_path() /
             ("ftsim_buddy_recovery_examples_" + std::to_string(::getpid()))),
        path_(dir_ / (name + ".json")) {
    std::filesystem::create_directories(dir_);
    std::ofstream(path_) << text;
  }
  ~GraphFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
    std::filesystem::remove(dir_, ignored);  // once empty
  }
  GraphFile(const GraphFile&) = delete;
  GraphFile& operator=(const GraphFile&) = delete;
  operator std::string() const { return path_.string(); }

private:
  std::filesystem::path dir_, path_;
};

config::Json buddy_config(const std::string& graph_file, int nodes, const config::Json& buddies,
                          const config::Json& failures) {
  config::Json document = {
      {"application", {{"type", "json"}, {"file", graph_file}}},
      {"platform", {{"nodes", nodes}, {"cores_per_node", 1}, {"core_gflops", 1},
                    {"network", {{"envelope", std::to_string(kEnvelope) + "B"}}}}},
      {"protocol", {{"type", "buddy"}}},
      {"checkpoints", {{"every", 1}, {"buddy", buddies}}}};
  if (!failures.is_null()) document["failures"] = failures;
  return document;
}

config::Json failure_at(double seconds, int node) {
  return {{"model", "list"}, {"events", {{{"time", seconds}, {"node", node}}}}, {"downtime", "0.1ms"},
          {"detection", "0.05ms"}};
}

node::RunMetrics run(const config::Json& document, double latency = kLatency, double bandwidth = kBandwidth) {
  return testing::run_on_queue(document, "buddy recovery examples", latency, bandwidth);
}

std::uint64_t sent(const node::RunMetrics& m, std::size_t node, node::Traffic traffic) {
  return m.nodes.at(node).messages_sent[static_cast<std::size_t>(traffic)];
}
std::uint64_t sent_bytes(const node::RunMetrics& m, std::size_t node, node::Traffic traffic) {
  return m.nodes.at(node).bytes_sent[static_cast<std::size_t>(traffic)];
}

// The restore message a node sent: one control message carrying checkpoint entries, whose bytes
// are the entries' data plus the envelope and an encoded body (ids, counts, versions, digests).
// The body stays under kBodyOverhead, which is smaller than every datum whose absence a test
// checks, so the bytes tell which data were sent back.
constexpr std::uint64_t kBodyOverhead = 100;
std::uint64_t restored_data(const node::RunMetrics& m, std::size_t node) {
  REQUIRE(sent(m, node, node::Traffic::restore) == 1);
  return sent_bytes(m, node, node::Traffic::restore) - kEnvelope;
}

// Every run of these tests must end, hold the oracle, and fail exactly once.
void require_recovered(const node::RunMetrics& m) {
  std::string stalls;
  for (const auto& line : m.stall_report) stalls += "\n  stall: " + line;
  INFO("failure reason: " << m.failure_reason << stalls);
  REQUIRE(m.complete);
  CHECK(m.oracle_ok);
  CHECK(m.oracle_missing.empty());
  CHECK(m.oracle_wrong.empty());
  REQUIRE(m.failures.size() == 1);
  CHECK(m.failures[0].processes_rolled_back == 1);
  for (const auto& n : m.nodes) CHECK(n.inputs_missing_at_start == 0);
}

// ----------------------------------------------------------------------------- Fig. 3.1

// Three nodes; node 1's buddy is node 0 (not node 2, so that node 1's saves and VALIDATE do not
// queue behind the message m it sends to node 2). Sizes: S 10 B, T 11 B, A 12 B, X 13 B, BIG 10 MB
// (10 ms at 1 GB/s).
//   0 n1 W S | 1 n0 W A | 2 n2 W X | cut 1 (checkpoint N = 1)
//   3 n1 RW S            -> S v2: the message m to node 2
//   4 n0 RW A
//   5 n2 R S, RW X       node 2 reads m before cut 2: its checkpoint 2 waits for m
//   | cut 2 (checkpoint N + 1 = 2)
//   6 n1 W BIG (priority 1: runs first on node 1, at 0-1 ms; BIG goes to node 2 first on the
//     channel 1 -> 2, so m, sent at 3 ms, is delivered after it, at 11 ms)
//   7 n2 R BIG, RW X
//   8 n1 R S, W T (20 ms: node 1 is computing it at the failure)
//   9 n2 R T, RW X
//  10 n0 RW A (20 ms)
// Why BIG: S v2 is itself saved for checkpoint 2 when it is produced, so a big S would reach the
// buddy no sooner than m reaches node 2, and its acknowledgement would validate checkpoint 2 only
// after m had arrived. Here m is small but waits behind BIG, written in section 2 (after the last
// cut: never saved), on the FIFO channel 1 -> 2.
// Node 1 has validated checkpoint 2 at about 3 ms (S v2 saved to node 0 and acknowledged) while m
// is still in transit until 11 ms; node 2 validates checkpoint 2 only after m arrives: the global
// checkpoint 2 is complete at about 12 ms only.
constexpr const char* kFig31 = R"({
  "format": "ftsim-graph", "version": 1, "nodes": 3,
  "kernels": [{"name": "f", "flops": 1e6}],
  "data": [
    {"name": "S", "bytes": 10, "owner": 1}, {"name": "T", "bytes": 11, "owner": 1},
    {"name": "A", "bytes": 12, "owner": 0}, {"name": "X", "bytes": 13, "owner": 2},
    {"name": "BIG", "bytes": 10000000, "owner": 1}
  ],
  "submission": [
    {"kernel": "f", "node": 1, "access": [["W", "S"]]},
    {"kernel": "f", "node": 0, "access": [["W", "A"]]},
    {"kernel": "f", "node": 2, "access": [["W", "X"]]},
    {"checkpoint": true},
    {"kernel": "f", "node": 1, "access": [["RW", "S"]]},
    {"kernel": "f", "node": 0, "access": [["RW", "A"]]},
    {"kernel": "f", "node": 2, "access": [["R", "S"], ["RW", "X"]]},
    {"checkpoint": true},
    {"kernel": "f", "node": 1, "access": [["W", "BIG"]], "priority": 1},
    {"kernel": "f", "node": 2, "access": [["R", "BIG"], ["RW", "X"]]},
    {"kernel": "f", "node": 1, "access": [["R", "S"], ["W", "T"]], "flops": 2e7},
    {"kernel": "f", "node": 2, "access": [["R", "T"], ["RW", "X"]]},
    {"kernel": "f", "node": 0, "access": [["RW", "A"]], "flops": 2e7}
  ]
})";

// ----------------------------------------------------------------------------- Fig. 3.4

// Two nodes, buddies 0 <-> 1. A 100 B (node 0), B 20 B (node 1).
//   0 n0 W A | 1 n1 W B | cut 1
//   2 n0 RW A -> A v2, first message of "tag" A to node 1
//   3 n1 R A, RW B          consumes A v2 at 2-3 ms
//   4 n0 RW A -> A v3, second message of tag A to node 1 (arrives at 3 ms)
//   5 n1 RW B (10 ms)       node 1 busy until 13 ms: it still holds A v3, unread, at the failure
//   6 n1 R A, RW B
//   7 n0 RW A (20 ms)       node 0 computing at the failure (6 ms)
constexpr const char* kFig34 = R"({
  "format": "ftsim-graph", "version": 1, "nodes": 2,
  "kernels": [{"name": "f", "flops": 1e6}],
  "data": [{"name": "A", "bytes": 100, "owner": 0}, {"name": "B", "bytes": 20, "owner": 1}],
  "submission": [
    {"kernel": "f", "node": 0, "access": [["W", "A"]]},
    {"kernel": "f", "node": 1, "access": [["W", "B"]]},
    {"checkpoint": true},
    {"kernel": "f", "node": 0, "access": [["RW", "A"]]},
    {"kernel": "f", "node": 1, "access": [["R", "A"], ["RW", "B"]]},
    {"kernel": "f", "node": 0, "access": [["RW", "A"]]},
    {"kernel": "f", "node": 1, "access": [["RW", "B"]], "flops": 1e7},
    {"kernel": "f", "node": 1, "access": [["R", "A"], ["RW", "B"]]},
    {"kernel": "f", "node": 0, "access": [["RW", "A"]], "flops": 2e7}
  ]
})";

// ----------------------------------------------------------------------------- Fig. 3.5

// Two nodes, buddies 0 <-> 1. A 1000 B (node 0), B 200 B (node 1). The thesis's tasks 1-3 are 0-2.
//   0 n0 W A                (task 1)
//   1 n1 R A, W B           (task 2) A v1 goes 0 -> 1 before the checkpoint
//   | cut 1
//   2 n1 R A, RW B (20 ms)  (task 3) a cache hit: A v1 is not sent again
//   3 n0 RW A               A v2 overwrites A v1 on node 0 at 2 ms (the log keeps A v1: pinned)
//   4 n0 RW A (20 ms)
constexpr const char* kFig35 = R"({
  "format": "ftsim-graph", "version": 1, "nodes": 2,
  "kernels": [{"name": "f", "flops": 1e6}],
  "data": [{"name": "A", "bytes": 1000, "owner": 0}, {"name": "B", "bytes": 200, "owner": 1}],
  "submission": [
    {"kernel": "f", "node": 0, "access": [["W", "A"]]},
    {"kernel": "f", "node": 1, "access": [["R", "A"], ["W", "B"]]},
    {"checkpoint": true},
    {"kernel": "f", "node": 1, "access": [["R", "A"], ["RW", "B"]], "flops": 2e7},
    {"kernel": "f", "node": 0, "access": [["RW", "A"]]},
    {"kernel": "f", "node": 0, "access": [["RW", "A"]], "flops": 2e7}
  ]
})";

// ----------------------------------------------------------------------------- Fig. 3.9

// Two nodes, buddies 0 <-> 1. A 100 kB (node 0), B 2000 B and C 300 B (node 1).
//   0 n0 W A                A v1: node 0's checkpoint 1, saved to node 1 (the purple arrow)
//   | cut 1
//   1 n1 W B                -> B v1 (B_1) to node 0, logged
//   2 n0 R B, RW A
//   3 n1 RW B               -> B v2 (B_2) to node 0, logged; B v1 is overwritten on node 1 and
//                           stays beside B v2 only because the log pins it (the thesis's copy)
//   4 n0 R B, RW A
//   5 n1 R B, W C (20 ms)   the thesis's task 6, not finished at the failure: C not sent yet
//   6 n0 R C, RW A
constexpr const char* kFig39 = R"({
  "format": "ftsim-graph", "version": 1, "nodes": 2,
  "kernels": [{"name": "f", "flops": 1e6}],
  "data": [{"name": "A", "bytes": 100000, "owner": 0}, {"name": "B", "bytes": 2000, "owner": 1},
           {"name": "C", "bytes": 300, "owner": 1}],
  "submission": [
    {"kernel": "f", "node": 0, "access": [["W", "A"]]},
    {"checkpoint": true},
    {"kernel": "f", "node": 1, "access": [["W", "B"]]},
    {"kernel": "f", "node": 0, "access": [["R", "B"], ["RW", "A"]]},
    {"kernel": "f", "node": 1, "access": [["RW", "B"]]},
    {"kernel": "f", "node": 0, "access": [["R", "B"], ["RW", "A"]]},
    {"kernel": "f", "node": 1, "access": [["R", "B"], ["W", "C"]], "flops": 2e7},
    {"kernel": "f", "node": 0, "access": [["R", "C"], ["RW", "A"]]}
  ]
})";

}  // namespace

// Thesis Fig. 3.1 (§3.1): node 1 fails while node 2 has not completed its last checkpoint N + 1.
// The global checkpoint N + 1 is not complete, so a global restart must use N. A local restart
// may use a local checkpoint of the failed node that is complete even if the global one is not,
// provided no message is in transit: if node 1 completed N + 1 while its message m (sent before
// cut N + 1) has not reached node 2, node 1 must restart from N; node 0, which has no such
// message, restarts from N + 1. In ftsim, node 2 still waits for S v2 (m), written in section 1,
// so its in-transit bound is 1 and the replacement takes the older of the two checkpoints its
// buddy keeps; once m is delivered (a later failure, or a faster network) the bound only names
// section 2 and the newest checkpoint is taken.
TEST_CASE("thesis Fig. 3.1: a local restart uses N + 1 unless a message of the failed node from before cut N + 1 is "
          "in transit, and a node with no such message restarts from N + 1 before the global N + 1 exists",
          "[buddy][papers][recovery]") {
  const GraphFile file("fig3_1", kFig31);
  const config::Json buddies = config::Json::array({1, 0, 0});
  const node::RunMetrics reference = run(buddy_config(file, 3, buddies, nullptr));
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  REQUIRE(reference.checkpoints.size() == 2);
  // The timeline the scenarios rely on: the global checkpoint 2 completes once m has reached node
  // 2 (11 ms) and node 2 has run task 5; the run ends after node 1's 20 ms task.
  CHECK(reference.checkpoints[0].committed < 0.003);
  CHECK(reference.checkpoints[1].committed > 0.011);
  CHECK(reference.makespan > 0.02);

  SECTION("node 1 fails while m is in transit: checkpoint N = 1") {
    const node::RunMetrics m = run(buddy_config(file, 3, buddies, failure_at(0.006, 1)));
    require_recovered(m);
    CHECK(m.failures[0].restart_point == "checkpoint 1");
    // Tasks 3 and 6, done before the failure, run again (task 8 was running: not a re-execution).
    CHECK(m.nodes[1].reexecutions == 2);
    CHECK(m.failures[0].tasks_reexecuted == 2);
    CHECK(m.nodes[0].reexecutions == 0);
    CHECK(m.nodes[2].reexecutions == 0);
    CHECK(m.failures[0].messages_replayed == 0);  // node 1 reads nothing of the others after cut 1
    CHECK(m.nodes[0].messages_sent[static_cast<std::size_t>(node::Traffic::restore)] == 1);  // its buddy
  }
  SECTION("node 1 fails once m was delivered (later): checkpoint N + 1 = 2") {
    const node::RunMetrics m = run(buddy_config(file, 3, buddies, failure_at(0.015, 1)));
    require_recovered(m);
    CHECK(m.failures[0].restart_point == "checkpoint 2");
    CHECK(m.nodes[1].reexecutions == 1);  // task 6 only
    CHECK(m.failures[0].tasks_reexecuted == 1);
    CHECK(m.nodes[0].reexecutions == 0);
    CHECK(m.nodes[2].reexecutions == 0);
  }
  SECTION("node 1 fails at the same time on a network fast enough that m was delivered: checkpoint N + 1 = 2") {
    // 1 TB/s: BIG takes 10 us, m arrives at about 3 ms, before the failure at 6 ms.
    const node::RunMetrics m = run(buddy_config(file, 3, buddies, failure_at(0.006, 1)), kLatency, 1e12);
    require_recovered(m);
    CHECK(m.failures[0].restart_point == "checkpoint 2");
    CHECK(m.nodes[1].reexecutions == 1);
    CHECK(m.nodes[2].reexecutions == 0);
  }
  SECTION("node 0 fails at the same time: no message of it in transit, checkpoint N + 1 = 2 although the global "
          "checkpoint 2 is not complete") {
    const double t = 0.006;
    const node::RunMetrics m = run(buddy_config(file, 3, buddies, failure_at(t, 0)));
    require_recovered(m);
    CHECK(m.failures[0].restart_point == "checkpoint 2");
    REQUIRE(m.checkpoints.size() == 2);
    CHECK(m.checkpoints[0].committed < t);  // the global checkpoint N: what a global restart would use
    CHECK(m.checkpoints[1].committed > t);  // the global N + 1 came later (node 2 waited for m)
    CHECK(m.nodes[0].reexecutions == 0);  // task 10 was running; tasks 1 and 4 are before cut 2
    CHECK(m.nodes[1].reexecutions == 0);
    CHECK(m.nodes[2].reexecutions == 0);
    CHECK(m.nodes[1].messages_sent[static_cast<std::size_t>(node::Traffic::restore)] == 1);  // node 0's buddy
  }
}

// Thesis Fig. 3.4 (§3.2.4): between its checkpoint and its failure, node 0 sent two messages of tag
// t (here two versions of A) that node 1 received. Restarted from the checkpoint, node 0 sends them
// again: orphans, which node 1 must not receive a second time (the thesis counts them per tag and
// has node 0 skip them). In ftsim node 0 re-sends them and node 1 drops them by (handle, version):
// A v3, which it still holds for its waiting task, counts as a duplicate; A v2, consumed already,
// is no longer wanted by any task. Node 1 executes nothing twice and the final digests are those
// of the failure-free run.
TEST_CASE("thesis Fig. 3.4: orphans re-sent by the restarted node are dropped by the survivor, which executes "
          "nothing twice",
          "[buddy][papers][recovery]") {
  const GraphFile file("fig3_4", kFig34);
  const node::RunMetrics reference = run(buddy_config(file, 2, "next", nullptr));
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  REQUIRE(sent(reference, 0, node::Traffic::application) == 2);  // A v2 and A v3

  const node::RunMetrics m = run(buddy_config(file, 2, "next", failure_at(0.006, 0)));
  require_recovered(m);
  CHECK(m.failures[0].restart_point == "checkpoint 1");
  // Node 0 runs tasks 2 and 4 again and sends A v2 and A v3 again: the two orphans.
  CHECK(m.nodes[0].reexecutions == 2);
  CHECK(m.failures[0].tasks_reexecuted == 2);
  CHECK(sent(m, 0, node::Traffic::application) == 4);
  CHECK(sent_bytes(m, 0, node::Traffic::application) == 4 * (100 + kEnvelope));
  // Node 1: every one of its 4 tasks executed exactly once; A v3 arrived while still held.
  CHECK(m.nodes[1].executions == 4);
  CHECK(m.nodes[1].reexecutions == 0);
  CHECK(m.nodes[1].duplicates_received == 1);
  CHECK(m.nodes[1].restarts == 0);
  // Node 0 reads nothing of node 1 after the cut: nothing to replay.
  CHECK(m.failures[0].messages_replayed == 0);
  CHECK(sent(m, 1, node::Traffic::recovery) == 0);
}

// Thesis Fig. 3.5 (§3.2.5): node 0 sent A to node 1 before the checkpoint for task 2; task 3 reads
// A again after the checkpoint, served by the communication cache (no message). If node 1 fails
// and restarts from the checkpoint, it needs A for task 3, which is neither in its checkpoint nor,
// for the thesis, in node 0's log for that section: the thesis logs a FAKE_SEND for the cache hit
// and replays it when the real send came from an earlier section. In ftsim the graph says that
// task 3 (after the cut) reads A v1 from node 0, so node 0 replays A v1 — from its log, which
// pinned A v1 when it was sent, although task 3 of node 0 has overwritten A since. Conversely, if
// node 0 fails, the thesis's restarted node has lost its cache and would send A again (an orphan
// for its counters); ftsim's transfer plan is static, so A v1's send, made after task 0 (before
// the cut), is not repeated.
TEST_CASE("thesis Fig. 3.5: a version received before the checkpoint and read again after it through the cache is "
          "replayed to the restarted reader (FAKE_SEND), and not re-sent by a restarted producer",
          "[buddy][papers][recovery]") {
  constexpr std::uint64_t kA = 1000, kB = 200;
  const GraphFile file("fig3_5", kFig35);
  const node::RunMetrics reference = run(buddy_config(file, 2, "next", nullptr));
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  {
    // The cache of Fig. 3.5: one transfer (A v1 for task 1), one cache hit (task 2).
    const config::Config cfg =
        protocols::load_config_json(buddy_config(file, 2, "next", nullptr), "buddy recovery examples");
    const graphs::TaskGraph g = graphs::build_application(cfg);
    REQUIRE(g.transfers().size() == 1u);
    CHECK(g.transfers()[0].consumer == 1u);
    CHECK(g.transfers().cache_hits() == 1u);
  }
  REQUIRE(sent(reference, 0, node::Traffic::application) == 1);

  SECTION("node 1 fails: node 0 replays A v1 (the FAKE_SEND case)") {
    const node::RunMetrics m = run(buddy_config(file, 2, "next", failure_at(0.010, 1)));
    require_recovered(m);
    CHECK(m.failures[0].restart_point == "checkpoint 1");
    CHECK(m.failures[0].messages_replayed == 1);
    CHECK(m.failures[0].bytes_replayed == kA);
    CHECK(sent(m, 0, node::Traffic::recovery) == 1);
    CHECK(sent_bytes(m, 0, node::Traffic::recovery) == kA + kEnvelope);
    // Node 1's checkpoint, sent back by node 0, holds B only, not A.
    CHECK(sent(m, 0, node::Traffic::restore) == 1);
    CHECK(restored_data(m, 0) >= kB);
    CHECK(restored_data(m, 0) < kB + kBodyOverhead);
    CHECK(sent(m, 0, node::Traffic::application) == 1);  // no other send of A
    CHECK(m.nodes[0].reexecutions == 0);
    CHECK(m.nodes[1].reexecutions == 0);  // task 2 was running at the failure
  }
  SECTION("node 0 fails: A v1 is not sent again (no orphan from the lost cache)") {
    const node::RunMetrics m = run(buddy_config(file, 2, "next", failure_at(0.010, 0)));
    require_recovered(m);
    CHECK(m.failures[0].restart_point == "checkpoint 1");
    CHECK(sent(m, 0, node::Traffic::application) == 1);
    CHECK(m.nodes[1].duplicates_received == 0);
    CHECK(m.failures[0].messages_replayed == 0);  // node 0 reads nothing of node 1
    // Node 0's checkpoint 1 is A v1, which node 1 kept from the transfer (a free save).
    CHECK(sent(m, 1, node::Traffic::restore) == 1);
    CHECK(restored_data(m, 1) >= kA);
    CHECK(restored_data(m, 1) < kA + kBodyOverhead);
    CHECK(m.nodes[0].reexecutions == 1);  // task 3
    CHECK(m.nodes[1].reexecutions == 0);
  }
}

// Thesis Fig. 3.9 (§3.3.2.9-10): (a) node 0 sent A, its local checkpoint, to node 1; node 1 sent
// B_1 and B_2, needed by node 0's tasks, and logged them; task 6 is not finished, so C is not sent
// yet; node 0 fails. (b) Node 1 sends node 0' the checkpoint (A), then the log: B_1 (which it had
// to copy) and B_2 (no copy needed); C is sent normally (and logged) once produced. In ftsim, B v1
// stays in node 1's memory beside B v2 because the log pinned it at the send (copy-on-write by
// reference); node 1 replays B v1 and B v2 (recovery traffic) and sends A back (restore traffic).
// It sends the replay before the checkpoint on the same channel (the thesis queues the checkpoint
// first); the replacement keeps data that arrive before its checkpoint aside until it is installed.
TEST_CASE("thesis Fig. 3.9: the buddy sends back the checkpoint (A), then replays the log: B1 (overwritten since, "
          "kept by the log) and B2, then C goes normally",
          "[buddy][papers][recovery]") {
  constexpr std::uint64_t kA = 100000, kB = 2000, kC = 300;
  const GraphFile file("fig3_9", kFig39);
  const node::RunMetrics reference = run(buddy_config(file, 2, "next", nullptr));
  REQUIRE(reference.complete);
  REQUIRE(reference.oracle_ok);
  REQUIRE(sent(reference, 1, node::Traffic::application) == 3);  // B v1, B v2, C v1

  const node::RunMetrics m = run(buddy_config(file, 2, "next", failure_at(0.010, 0)));
  require_recovered(m);
  CHECK(m.failures[0].restart_point == "checkpoint 1");
  // The checkpoint: A, from node 1's memory.
  CHECK(sent(m, 1, node::Traffic::restore) == 1);
  CHECK(restored_data(m, 1) >= kA);
  CHECK(restored_data(m, 1) < kA + kBodyOverhead);
  // The log: B v1 and B v2, exactly.
  CHECK(m.failures[0].messages_replayed == 2);
  CHECK(m.failures[0].bytes_replayed == 2 * kB);
  CHECK(sent(m, 1, node::Traffic::recovery) == 2);
  CHECK(sent_bytes(m, 1, node::Traffic::recovery) == 2 * (kB + kEnvelope));
  // C went once, by the normal path, and was logged like B v1 and B v2.
  CHECK(sent(m, 1, node::Traffic::application) == 3);
  CHECK(sent_bytes(m, 1, node::Traffic::application) == 2 * kB + kC + 3 * kEnvelope);
  CHECK(m.nodes[1].log_store_total == 2 * kB + kC);
  // B v1 was overwritten by task 3 before the failure and kept beside B v2: node 1 held B v1,
  // B v2 and C at once (without the log's pin, at most one version of B and C: kB + kC).
  CHECK(m.nodes[1].peak_memory_bytes == 2 * kB + kC);
  // Node 0 runs tasks 2 and 4 again; node 1 nothing.
  CHECK(m.nodes[0].reexecutions == 2);
  CHECK(m.failures[0].tasks_reexecuted == 2);
  CHECK(m.nodes[1].reexecutions == 0);
  CHECK(m.nodes[1].restarts == 0);
  CHECK(sent(m, 0, node::Traffic::application) == 0);  // node 1 reads nothing of node 0
}


// The same four graphs, every node failing at every time (every 0.5 ms) on two networks: each run
// ends, the oracle holds, the restart point is reported, and no survivor runs a task twice.
TEST_CASE("thesis Figs. 3.1-3.9 graphs: a failure of any node at any time recovers with the failure-free digests "
          "and no re-execution on the survivors",
          "[buddy][papers][recovery]") {
  struct Example {
    const char* name;
    const char* graph;
    int nodes;
    config::Json buddies;
  };
  const std::vector<Example> examples = {{"sweep3_1", kFig31, 3, config::Json::array({1, 0, 0})},
                                         {"sweep3_4", kFig34, 2, "next"},
                                         {"sweep3_5", kFig35, 2, "next"},
                                         {"sweep3_9", kFig39, 2, "next"}};
  int failed_runs = 0;
  for (const Example& example : examples) {
    const GraphFile file(example.name, example.graph);
    for (double bandwidth : {kBandwidth, 1e12}) {
      for (int node = 0; node < example.nodes; ++node) {
        for (int step = 0; step < 60; ++step) {
          const double t = 0.0001 + 0.0005 * step;
          const node::RunMetrics m =
              run(buddy_config(file, example.nodes, example.buddies, failure_at(t, node)), kLatency, bandwidth);
          INFO(example.name << ": node " << node << " fails at " << t << " s, bandwidth " << bandwidth << " B/s: "
                            << m.failure_reason);
          REQUIRE(m.complete);
          REQUIRE(m.oracle_ok);
          REQUIRE(m.failures.size() <= 1);
          if (m.failures.empty()) continue;  // after the end of the run
          ++failed_runs;
          CHECK_FALSE(m.failures[0].restart_point.empty());
          for (int n = 0; n < example.nodes; ++n) {
            if (n != node) CHECK(m.nodes[n].reexecutions == 0);
          }
        }
      }
    }
  }
  CHECK(failed_runs > 500);
}

// Found with the graph of Fig. 3.1 on a slow network: a node is finished once its last checkpoint
// is valid, which may happen on the arrival of a buddy's ACK after the last task of the whole job
// has ended; the run must end then (it used to stall with every task done). Failure-free, default
// network: node 1's only task ends at 2 ms, its save of B v1 is acknowledged at 2 ms + 2
// latencies, after node 0's last task (1-2 ms) has ended.
TEST_CASE("buddy: the run ends when the last event is a checkpoint acknowledgement",
          "[buddy][recovery]") {
  SECTION("three tasks, no failure, default network") {
    const GraphFile file("last_ack", R"({
      "format": "ftsim-graph", "version": 1, "nodes": 2,
      "kernels": [{"name": "f", "flops": 1e6}],
      "data": [{"name": "A", "bytes": 100, "owner": 0}, {"name": "B", "bytes": 20, "owner": 1}],
      "submission": [
        {"kernel": "f", "node": 0, "access": [["W", "A"]]},
        {"kernel": "f", "node": 1, "access": [["W", "B"]], "flops": 2e6},
        {"checkpoint": true},
        {"kernel": "f", "node": 0, "access": [["RW", "A"]]}
      ]
    })");
    const node::RunMetrics m = run(buddy_config(file, 2, "next", nullptr));
    INFO(m.failure_reason);
    CHECK(m.complete);
    CHECK(m.oracle_ok);
  }
  SECTION("the graph of Fig. 3.1, no failure, 2 ms latency and 1 MB/s") {
    // Node 2 runs tasks 5, 7 and 9 as soon as BIG and m arrive (10 s); the ACK of its save of X v2
    // for checkpoint 2 comes back 4 ms later, after its last task.
    const GraphFile file("fig3_1_slow", kFig31);
    const node::RunMetrics m = run(buddy_config(file, 3, config::Json::array({1, 0, 0}), nullptr), 2e-3, 1e6);
    INFO(m.failure_reason);
    CHECK(m.complete);
    CHECK(m.oracle_ok);
  }
}
