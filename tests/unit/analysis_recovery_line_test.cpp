// Recovery lines on the textbook cases (docs/analysis.md): Randell's domino effect, a Z-cycle
// that makes a checkpoint useless, a rollback propagated to the sender of an unlogged message
// under the send rule, and what logging changes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis_json.hpp"
#include "analysis/failure_analysis.hpp"
#include "analysis/recovery_line.hpp"
#include "analysis/trace_builder.hpp"
#include "analysis/useless_checkpoints.hpp"

using namespace ftsim::analysis;

namespace {

using Line = std::vector<std::optional<CheckpointIndex>>;

std::vector<std::string> names(const Trace& trace, const std::vector<MessageId>& messages) {
  std::vector<std::string> result;
  for (MessageId m : messages) result.emplace_back(trace.message_name(m));
  return result;
}

// Randell 1975: two processes exchange messages and each checkpoints between a receive and the
// next send, so every checkpoint interval holds a message from the other's later interval.
//   P0: s(m1) r(m2) C1 s(m3) r(m4) C2 s(m5)
//   P1: r(m1) C1 s(m2) r(m3) C2 s(m4) r(m5)
Trace randell_domino() {
  TraceBuilder b(2);
  b.add_send(0, "m1", 1);
  b.add_receive(1, "m1");
  b.add_checkpoint(1);
  b.add_send(1, "m2", 0);
  b.add_receive(0, "m2");
  b.add_checkpoint(0);
  b.add_send(0, "m3", 1);
  b.add_receive(1, "m3");
  b.add_checkpoint(1);
  b.add_send(1, "m4", 0);
  b.add_receive(0, "m4");
  b.add_checkpoint(0);
  b.add_send(0, "m5", 1);
  b.add_receive(1, "m5");
  return std::move(b).build();
}

}  // namespace

TEST_CASE("analysis: recovery line: Randell's domino effect", "[analysis][recovery]") {
  const Trace trace = randell_domino();
  const ProcessId failed[] = {0};
  const RecoveryLine line = compute_recovery_line(trace, failed, Determinism::piecewise);
  // Each rollback orphans the message that makes the other roll back: back to the start.
  CHECK(line.positions == std::vector<Position>{0, 0});
  CHECK(line.checkpoints == Line{0, 0});
  CHECK(line.rolled_back == 2);
  CHECK(line.domino);
  CHECK(line.rollback_distance == std::vector<Position>{5, 5});
  // Every checkpoint is on a Z-cycle.
  const UselessCheckpoints useless = find_useless_checkpoints(trace);
  using Checkpoint = std::pair<ProcessId, CheckpointIndex>;
  CHECK(useless.checkpoints == std::vector<Checkpoint>{{0, 1}, {0, 2}, {1, 1}, {1, 2}});
  for (const ZCycle& cycle : useless.z_cycles) CHECK(is_z_cycle(trace, cycle.process, cycle.checkpoint, cycle.messages));
  // The send rule rolls back no orphan: P0 alone restarts from its last checkpoint; m5, received
  // by P1 which keeps its state, is an orphan that P0's re-execution sends again.
  const RecoveryLine send = compute_recovery_line(trace, failed, Determinism::send);
  CHECK(send.checkpoints == Line{2, std::nullopt});
  CHECK_FALSE(send.domino);
  CHECK(names(trace, classify_messages(trace, send).orphans) == std::vector<std::string>{"m5"});
}

TEST_CASE("analysis: recovery line: the failure of the receiver rolls back the sender of an unlogged message", "[analysis][recovery]") {
  //   P0: C1 s(m)        P1: C1 r(m)
  for (const bool logged : {false, true}) {
    TraceBuilder b(2);
    b.add_checkpoint(0);
    b.add_checkpoint(1);
    b.add_send(0, "m", 1, logged);
    b.add_receive(1, "m");
    const Trace trace = std::move(b).build();
    const ProcessId failed[] = {1};
    const RecoveryLine send = compute_recovery_line(trace, failed, Determinism::send);
    const LineMessages send_messages = classify_messages(trace, send);
    if (logged) {
      // Replayed from P0's log: P0 keeps its state.
      CHECK(send.checkpoints == Line{std::nullopt, 1});
      CHECK(names(trace, send_messages.to_replay) == std::vector<std::string>{"m"});
    } else {
      // Only P0's re-execution can send m again: P0 rolls back before the send.
      CHECK(send.checkpoints == Line{1, 1});
      CHECK(send.rolled_back == 2);
      CHECK(send_messages.to_replay.empty());
    }
    // Without send-determinism there is no orphan here: P0 keeps its state, m is in transit
    // across the line (replayed if logged, lost otherwise).
    const RecoveryLine piecewise = compute_recovery_line(trace, failed, Determinism::piecewise);
    CHECK(piecewise.checkpoints == Line{std::nullopt, 1});
    const LineMessages piecewise_messages = classify_messages(trace, piecewise);
    CHECK(piecewise_messages.to_replay.size() == (logged ? 1u : 0u));
    CHECK(piecewise_messages.lost.size() == (logged ? 0u : 1u));
  }
}

TEST_CASE("analysis: recovery line: the sender's failure orphans the receiver under the piecewise rule only", "[analysis][recovery]") {
  //   P0: C1 s(m)        P1: C1 r(m) s(n)     P2: r(n)
  TraceBuilder b(3);
  b.add_checkpoint(0);
  b.add_checkpoint(1);
  b.add_send(0, "m", 1);
  b.add_receive(1, "m");
  b.add_send(1, "n", 2);
  b.add_receive(2, "n");
  const Trace trace = std::move(b).build();
  const ProcessId failed[] = {0};
  // P1 received m, which P0 will not send again: P1 rolls back, and so P2 (orphan n) to its start.
  const RecoveryLine piecewise = compute_recovery_line(trace, failed, Determinism::piecewise);
  CHECK(piecewise.checkpoints == Line{1, 1, 0});
  CHECK(piecewise.rolled_back == 3);
  // Every process is back at position 0, but P0 and P1 from checkpoints of their own: no domino.
  CHECK(piecewise.positions == std::vector<Position>{0, 0, 0});
  CHECK_FALSE(piecewise.domino);
  // Send-deterministic: P0 sends m again, identical; nobody else moves.
  const RecoveryLine send = compute_recovery_line(trace, failed, Determinism::send);
  CHECK(send.checkpoints == Line{1, std::nullopt, std::nullopt});
  CHECK(send.rolled_back == 1);
}

TEST_CASE("analysis: useless checkpoints: a Z-cycle", "[analysis][zcycle]") {
  // P0 receives m2 and checkpoints, then sends m1; P1 sent m2 before receiving m1 in the same
  // interval. [m1, m2] is a Z-path from C(0,1) to itself (not a causal path: m2 leaves P1
  // before m1 arrives), so no consistent global checkpoint contains C(0,1).
  //   P0: r(m2) C1 s(m1)        P1: s(m2) r(m1) C1
  TraceBuilder b(2);
  b.add_send(1, "m2", 0);
  b.add_receive(0, "m2");
  b.add_checkpoint(0);
  b.add_send(0, "m1", 1);
  b.add_receive(1, "m1");
  b.add_checkpoint(1);
  const Trace trace = std::move(b).build();
  const UselessCheckpoints useless = find_useless_checkpoints(trace);
  REQUIRE(useless.checkpoints == std::vector<std::pair<ProcessId, CheckpointIndex>>{{0, 1}});
  REQUIRE(useless.z_cycles.size() == 1);
  CHECK(names(trace, useless.z_cycles[0].messages) == std::vector<std::string>{"m1", "m2"});
  CHECK(is_z_cycle(trace, 0, 1, useless.z_cycles[0].messages));
  CHECK_FALSE(is_z_cycle(trace, 0, 1, {useless.z_cycles[0].messages[0]}));
  CHECK_FALSE(is_z_cycle(trace, 1, 1, useless.z_cycles[0].messages));
  // The walk through a component root proves it too.
  const UselessCheckpoints walked = find_useless_checkpoints(trace, true, 0);
  CHECK(is_z_cycle(trace, 0, 1, walked.z_cycles.at(0).messages));
  // The failure of P0 rolls it back past its useless checkpoint: both to their initial states.
  const ProcessId failed[] = {0};
  const RecoveryLine line = compute_recovery_line(trace, failed, Determinism::piecewise);
  CHECK(line.checkpoints == Line{0, 0});
  CHECK(line.domino);
}

TEST_CASE("analysis: recovery line: bad failed process lists", "[analysis][recovery][errors]") {
  const Trace trace = randell_domino();
  const ProcessId none[] = {0};
  CHECK_THROWS_WITH(compute_recovery_line(trace, std::span<const ProcessId>(none, 0), Determinism::send),
                    "no failed process given");
  const ProcessId missing[] = {2};
  CHECK_THROWS_WITH(compute_recovery_line(trace, missing, Determinism::send),
                    "failed process 2 does not exist (the trace has 2 processes, 0 to 1)");
  CHECK(parse_determinism("send") == Determinism::send);
  CHECK_THROWS_AS(parse_determinism("pessimistic"), std::invalid_argument);
}

TEST_CASE("analysis: recovery line: several failures, messages in transit and each failure in turn", "[analysis][recovery]") {
  //   P0: C1 s(a) s(never)     P1: r(a) C1 s(b)     P2: C1 r(b)
  TraceBuilder b(3);
  b.add_checkpoint(0);
  b.add_send(0, "a", 1);
  b.add_send(0, "never", 2);  // in transit when the trace ends: it constrains nothing
  b.add_receive(1, "a");
  b.add_checkpoint(1);
  b.add_send(1, "b", 2);
  b.add_checkpoint(2);
  b.add_receive(2, "b");
  const Trace trace = std::move(b).build();
  const ProcessId both[] = {0, 2};
  const RecoveryLine line = compute_recovery_line(trace, both, Determinism::piecewise);
  // P0 back before a: P1 must unreceive a, to its initial state.
  CHECK(line.checkpoints == Line{1, 0, 1});
  const FailureAnalysis analysis = analyze_failure(trace, both, Determinism::piecewise);
  const std::string json = failure_analysis_json(trace, analysis);
  CHECK(json.find("\"recovery_line\": [1, 0, 1]") != std::string::npos);
  CHECK(json.find("\"failed\": [0, 2]") != std::string::npos);
  // Each failure alone under the send rule: P0 alone; P1: P1 and... b is unlogged and received by
  // P2 who keeps its state, so P1 alone; P2: P2 unreceives b, so P1 rolls back before it.
  const EachFailureSummary each = analyze_each_failure(trace, Determinism::send);
  CHECK(each.rolled_back == std::vector<std::uint32_t>{1, 1, 2});
  CHECK(each.times_rolled_back == std::vector<std::uint32_t>{1, 2, 1});
  CHECK(each.mean_rolled_back_percent == Approx(100.0 * 4 / 9));
}
