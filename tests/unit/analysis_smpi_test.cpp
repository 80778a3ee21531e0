// The SMPI time-independent trace reader (collectives expanded as SimGrid's default selector,
// point-to-point matching, non-blocking requests, errors by line) and the checkpoint placement
// policies and logging rules (docs/trace-format.md, docs/analysis.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include "analysis/causal_order.hpp"
#include "analysis/checkpoint_placement.hpp"
#include "analysis/smpi_trace_reader.hpp"
#include "analysis/trace_error.hpp"
#include "analysis/trace_input.hpp"

using namespace ftsim::analysis;

namespace {

Trace parse(const std::string& text) { return parse_smpi_actions({text}, {"t.actions"}); }

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

// The (sender, receiver) pairs of every message.
std::multiset<std::pair<ProcessId, ProcessId>> edges(const Trace& trace) {
  std::multiset<std::pair<ProcessId, ProcessId>> result;
  for (MessageId m = 0; m < trace.message_count(); ++m) {
    CHECK(trace.received(m));
    result.emplace(trace.sender(m), trace.receiver(m));
  }
  return result;
}

std::string collective_on(int ranks, const std::string& action) {
  std::string text;
  for (int r = 0; r < ranks; ++r) text += std::to_string(r) + " " + action + "\n";
  return text;
}

}  // namespace

TEST_CASE("analysis: SMPI: point-to-point messages match in MPI order, irecv completes at its wait", "[analysis][smpi]") {
  const Trace trace = parse(R"(# comment
0 init
0 send 1 7 100
0 isend 1 7 100
0 recv 1 0 8
1 irecv 0 7 100
1 recv 0 7 100
1 wait 0 1 7
1 send 0 0 8
1 finalize
)");
  REQUIRE(trace.process_count() == 2);
  CHECK(trace.process_name(1) == "rank 1");
  // Rank 1: the blocking recv takes the first send; the irecv the second, at its wait.
  REQUIRE(trace.communication_count(1) == 3);
  CHECK(trace.message_name(trace.message_at(1, 0)) == "0>1#7.0");
  CHECK(trace.message_name(trace.message_at(1, 1)) == "0>1#7.1");
  CHECK(trace.is_receive_at(1, 1));
  CHECK(trace.message_name(trace.message_at(0, 2)) == "1>0#0.0");
  CHECK_FALSE(find_causal_cycle(trace));
  // The older form without a tag, and "p" rank labels.
  const Trace old = parse("p0 send 1 1e6\np1 recv 0 1e6\n");
  CHECK(old.message_count() == 1);
  CHECK(old.received(0));
}

TEST_CASE("analysis: SMPI: collectives expanded as SimGrid's default selector", "[analysis][smpi]") {
  using Edges = std::multiset<std::pair<ProcessId, ProcessId>>;
  // bcast: binomial tree. From root 2 on 5 ranks (relative ranks 0..4 = 2,3,4,0,1): 0->4->
  // relative 4 = rank 1; 0->2 = rank 4; 0->1 = rank 3; relative 2 -> 3 = rank 0.
  CHECK(edges(parse(collective_on(5, "bcast 100 2"))) == Edges{{2, 1}, {2, 4}, {2, 3}, {4, 0}});
  // The children of a node are sent to farthest first; a node receives before it sends.
  const Trace bcast = parse(collective_on(8, "bcast 100"));
  CHECK(edges(bcast) == Edges{{0, 4}, {0, 2}, {0, 1}, {4, 6}, {4, 5}, {2, 3}, {6, 7}});
  CHECK(bcast.message_name(bcast.message_at(0, 0)) == "bcast1:0>4");
  CHECK(bcast.is_receive_at(4, 0));
  // barrier: ompi_basic_linear, in to rank 0 then out.
  const Trace barrier = parse(collective_on(3, "barrier"));
  CHECK(edges(barrier) == Edges{{1, 0}, {2, 0}, {0, 1}, {0, 2}});
  CHECK(barrier.is_receive_at(0, 0));
  CHECK(barrier.is_receive_at(0, 1));
  CHECK_FALSE(barrier.is_receive_at(0, 2));
  // reduce and gather: linear to the root; scatter: linear from it.
  CHECK(edges(parse(collective_on(3, "reduce 10 10 1"))) == Edges{{0, 1}, {2, 1}});
  CHECK(edges(parse(collective_on(3, "gather 10 10 2"))) == Edges{{0, 2}, {1, 2}});
  CHECK(edges(parse(collective_on(3, "scatter 10 10 0"))) == Edges{{0, 1}, {0, 2}});
  CHECK(edges(parse(collective_on(3, "gatherv 10 5 5 5 1"))) == Edges{{0, 1}, {2, 1}});
  // allreduce: reduce to 0 then binomial broadcast from 0.
  CHECK(edges(parse(collective_on(3, "allreduce 10 10"))) == Edges{{1, 0}, {2, 0}, {0, 2}, {0, 1}});
  // allgather, alltoall: every pair once each way.
  CHECK(edges(parse(collective_on(3, "alltoall 10 10"))).size() == 6);
  CHECK(edges(parse(collective_on(3, "allgather 10 10"))).size() == 6);
  // A collective on one rank has no message; two collectives are numbered apart.
  CHECK(parse(collective_on(1, "barrier")).message_count() == 0);
  const Trace two = parse(collective_on(2, "barrier") + collective_on(2, "barrier"));
  CHECK(two.find_message("barrier2:in:1>0"));
  CHECK_FALSE(find_causal_cycle(two));
}

TEST_CASE("analysis: SMPI: bad traces name the file and the line", "[analysis][smpi][errors]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of("0 init\n0 sendd 1 0 5\n"), Contains("t.actions: line 2: unknown action \"sendd\""));
  CHECK_THAT(error_of("0 send 1 0 5\n1 recv 0 0 5\n1 recv 0 0 5\n"),
             Contains("t.actions: line 3: receive from rank 0 with tag 0 has no matching send"));
  CHECK_THAT(error_of("0 recv -1 0 5\n"), Contains("line 1: partner -1: a receive from any source"));
  CHECK_THAT(error_of("0 send 4 0 5\n1 init\n"), Contains("line 1: partner 4 is not a rank (ranks 0 to 1)"));
  CHECK_THAT(error_of("0 send x 0 5\n"), Contains("line 1: partner: expected an integer"));
  CHECK_THAT(error_of("0 bcast\n"), Contains("line 1: bcast needs a size"));
  CHECK_THAT(error_of("0 bcast 5 3\n1 bcast 5 3\n"), Contains("line 1: root 3 is not a rank"));
  CHECK_THAT(error_of("0 barrier\n1 bcast 5\n"), Contains("line 2: collective 1 of rank 1 is bcast but rank 0's is barrier"));
  CHECK_THAT(error_of("0 barrier\n1 init\n"), Contains("line 1: rank 0 calls barrier (collective 1) but rank 1 makes only 0"));
  CHECK_THAT(error_of("justoneword\n"), Contains("line 1: expected \"RANK ACTION ...\""));
  // A receive that waits for a send made after it: the trace cannot have run.
  CHECK_THAT(error_of("0 recv 1 0 5\n0 send 1 0 5\n1 recv 0 0 5\n1 send 0 0 5\n"),
             Contains("t.actions: line 1: receive of \"1>0#0.0\""));
  // Per-rank files: each file holds one rank's lines.
  CHECK_THROWS_WITH(parse_smpi_actions({"0 send 1 0 5\n", "0 recv 0 0 5\n1 init\n"}, {"r0", "r1"}),
                    Contains("r1: line 2: this file holds the actions of \"0\", not of \"1\""));
  CHECK(looks_like_smpi_actions("# x\n0 init\n"));
  CHECK_FALSE(looks_like_smpi_actions("rank0.actions\nrank1.actions\n"));
}

TEST_CASE("analysis: SMPI: the shipped examples read, with every message received", "[analysis][smpi]") {
  const std::string data = std::string(FTSIM_SOURCE_DIR) + "/tests/data/smpi/";
  const Trace ring = read_smpi_trace(data + "ring-4.actions");
  CHECK(ring.process_count() == 4);
  const Trace jacobi = read_smpi_trace(data + "jacobi-4/index.txt");
  CHECK(jacobi.process_count() == 4);
  for (const Trace* trace : {&ring, &jacobi}) {
    for (MessageId m = 0; m < trace->message_count(); ++m) CHECK(trace->received(m));
  }
  // An SMPI trace needs a checkpoint placement.
  CHECK_THROWS_WITH(load_trace(data + "ring-4.actions", {}), Catch::Matchers::Contains("an SMPI trace has no checkpoints"));
}

TEST_CASE("analysis: checkpoint placement: periodic, random and clusters; logging by epochs", "[analysis][placement]") {
  const std::string data = std::string(FTSIM_SOURCE_DIR) + "/tests/data/smpi/";
  const Trace jacobi = read_smpi_trace(data + "jacobi-4/index.txt");

  const Trace periodic = place_checkpoints(jacobi, parse_checkpoint_policy("periodic:5"), Logging::none);
  for (ProcessId p = 0; p < periodic.process_count(); ++p) {
    CHECK(periodic.checkpoint_count(p) == periodic.communication_count(p) / 5);
    for (CheckpointIndex k = 1; k <= periodic.checkpoint_count(p); ++k) CHECK(periodic.checkpoint_position(p, k) == 5 * k);
  }
  for (MessageId m = 0; m < periodic.message_count(); ++m) CHECK_FALSE(periodic.logged(m));

  // Random: the same seed gives the same checkpoints; about RATE of the events are followed by one.
  const Trace random1 = place_checkpoints(jacobi, parse_checkpoint_policy("random:42:0.3"), Logging::all);
  const Trace random2 = place_checkpoints(jacobi, parse_checkpoint_policy("random:42:0.3"), Logging::all);
  const Trace random3 = place_checkpoints(jacobi, parse_checkpoint_policy("random:43:0.3"), Logging::all);
  std::size_t checkpoints = 0, events = 0;
  bool differs = false;
  for (ProcessId p = 0; p < jacobi.process_count(); ++p) {
    CHECK(random1.checkpoint_positions(p) == random2.checkpoint_positions(p));
    differs = differs || random1.checkpoint_positions(p) != random3.checkpoint_positions(p);
    checkpoints += random1.checkpoint_count(p);
    events += random1.communication_count(p);
  }
  CHECK(differs);
  CHECK(double(checkpoints) / double(events) == Approx(0.3).margin(0.12));
  CHECK(random1.logged(0));

  // Epochs: logged iff the sender's checkpoint count at the send is below the receiver's at the receive.
  const Trace epochs = place_checkpoints(jacobi, parse_checkpoint_policy("random:1:0.25"), Logging::epochs);
  std::size_t logged = 0;
  for (MessageId m = 0; m < epochs.message_count(); ++m) {
    auto epoch_at = [&](ProcessId p, Position x) {
      const auto& positions = epochs.checkpoint_positions(p);
      return std::upper_bound(positions.begin(), positions.end(), x) - positions.begin();
    };
    const bool expected = epoch_at(epochs.sender(m), epochs.send_position(m)) <
                          epoch_at(epochs.receiver(m), epochs.receive_position(m));
    CHECK(epochs.logged(m) == expected);
    logged += epochs.logged(m);
  }
  CHECK(logged > 0);
  CHECK(logged < epochs.message_count());
}

TEST_CASE("analysis: checkpoint placement: clusters checkpoint together at consistent cuts", "[analysis][placement]") {
  const std::string data = std::string(FTSIM_SOURCE_DIR) + "/tests/data/smpi/";
  const Trace ring = read_smpi_trace(data + "ring-4.actions");
  const std::string file = (std::filesystem::temp_directory_path() / "ftsim-clusters-test.txt").string();
  std::ofstream(file) << "# two clusters\nperiod 4\n0-1\n2 3  # the second\n";
  const Trace clustered = place_checkpoints(ring, parse_checkpoint_policy("clusters:" + file), Logging::epochs);
  // The processes of a cluster take the same number of checkpoints, and each joint checkpoint is
  // a cut with no orphan among them.
  for (const auto& cluster : {std::vector<ProcessId>{0, 1}, std::vector<ProcessId>{2, 3}}) {
    const CheckpointIndex count = clustered.checkpoint_count(cluster[0]);
    CHECK(count > 0);
    for (ProcessId p : cluster) CHECK(clustered.checkpoint_count(p) == count);
    for (CheckpointIndex k = 1; k <= count; ++k) {
      for (MessageId m = 0; m < clustered.message_count(); ++m) {
        const ProcessId s = clustered.sender(m), r = clustered.receiver(m);
        if (std::find(cluster.begin(), cluster.end(), s) == cluster.end()) continue;
        if (std::find(cluster.begin(), cluster.end(), r) == cluster.end()) continue;
        const bool received_inside = clustered.receive_position(m) < clustered.checkpoint_position(r, k);
        const bool sent_inside = clustered.send_position(m) < clustered.checkpoint_position(s, k);
        CHECK((!received_inside || sent_inside));
      }
    }
  }
  // Cluster 1 starts two epochs later: messages from cluster 0 to cluster 1 are logged, not back.
  for (MessageId m = 0; m < clustered.message_count(); ++m) {
    if (clustered.sender(m) == 1 && clustered.receiver(m) == 2) CHECK(clustered.logged(m));
    if (clustered.sender(m) == 3 && clustered.receiver(m) == 0) CHECK_FALSE(clustered.logged(m));
  }
  using Catch::Matchers::Contains;
  std::ofstream(file) << "period 4\n0-1\n1 2\n";
  CHECK_THROWS_WITH(place_checkpoints(ring, parse_checkpoint_policy("clusters:" + file), Logging::epochs),
                    Contains("clusters-test.txt: line 3: rank 1 is already in the cluster of line 2"));
  std::ofstream(file) << "period 4\n0-2\n";
  CHECK_THROWS_WITH(place_checkpoints(ring, parse_checkpoint_policy("clusters:" + file), Logging::epochs),
                    Contains("rank 3 is in no cluster"));
  std::ofstream(file) << "0-3\n";
  CHECK_THROWS_WITH(parse_checkpoint_policy("clusters:" + file), Contains("missing \"period EVENTS\""));
  std::ofstream(file) << "period 2\n0-x\n";
  CHECK_THROWS_WITH(parse_checkpoint_policy("clusters:" + file), Contains("line 2: \"0-x\": expected a rank or a range"));
  CHECK_THROWS_AS(parse_checkpoint_policy("periodic:0"), std::invalid_argument);
  CHECK_THROWS_AS(parse_checkpoint_policy("random:1:1.5"), std::invalid_argument);
  CHECK_THROWS_AS(parse_checkpoint_policy("hourly:1"), std::invalid_argument);
  CHECK_THROWS_AS(parse_logging("some"), std::invalid_argument);
}
