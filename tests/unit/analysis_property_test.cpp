// Property tests (RapidCheck): on random small traces, the rollback-propagation fixpoint equals
// a brute-force search over every combination of checkpoints, for both rules; the useless
// checkpoints found on the R-graph are exactly those in no consistent global checkpoint, and
// every Z-cycle reported is one. The checks here read the definitions directly (docs/analysis.md)
// and share no code with analysis/ but the Trace accessors.
//
// Seeded: FTSIM_PROPERTY_SEED=<n> replays another seed (a failure prints the seed and the
// shrunk trace).
#include <catch2/catch.hpp>
#include <rapidcheck.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <tuple>

#include "analysis/recovery_line.hpp"
#include "analysis/trace_builder.hpp"
#include "analysis/trace_json_writer.hpp"
#include "analysis/useless_checkpoints.hpp"

using namespace ftsim::analysis;

namespace {

// A random execution, as a recipe that shrinks well: a process count and steps (kind, a, b).
// kind 0-2: a checkpoint of process a; 3-5: a send from a to b (logged if 5); 6-9: the delivery
// of the pending message number a (a checkpoint if none is pending). Messages left pending stay
// in transit at the end.
struct Recipe {
  int processes = 2;
  std::vector<std::tuple<int, int, int>> steps;
  int failed_mask = 1;
};

Trace build(const Recipe& recipe) {
  const int n = recipe.processes;
  TraceBuilder builder{std::size_t(n)};
  std::vector<std::pair<std::string, int>> pending;  // id, receiver
  int next_id = 0;
  for (const auto& [kind, a, b] : recipe.steps) {
    const int p = a % n;
    if (kind >= 3 && kind <= 5) {
      std::string id = "m" + std::to_string(next_id++);
      builder.add_send(ProcessId(p), id, std::uint64_t(b % n), kind == 5);
      pending.emplace_back(id, b % n);
    } else if (kind >= 6 && !pending.empty()) {
      const std::size_t which = std::size_t(a) % pending.size();
      builder.add_receive(ProcessId(pending[which].second), pending[which].first);
      pending.erase(pending.begin() + std::ptrdiff_t(which));
    } else {
      builder.add_checkpoint(ProcessId(p));
    }
  }
  return std::move(builder).build();
}

std::vector<ProcessId> failed_of(const Recipe& recipe) {
  std::vector<ProcessId> failed;
  for (int p = 0; p < recipe.processes; ++p) {
    if (recipe.failed_mask & (1 << p)) failed.push_back(ProcessId(p));
  }
  if (failed.empty()) failed.push_back(0);
  return failed;
}

std::string show(const Trace& trace) {
  std::ostringstream out;
  write_trace_json(trace, out);
  return out.str();
}

// The rule, read from the definition: for every received message, where its send and its
// receive fall with respect to the cut.
bool allowed(const Trace& trace, const std::vector<Position>& cut, Determinism rule) {
  for (MessageId m = 0; m < trace.message_count(); ++m) {
    if (!trace.received(m)) continue;
    const bool sent_inside = trace.send_position(m) < cut[trace.sender(m)];
    const bool received_inside = trace.receive_position(m) < cut[trace.receiver(m)];
    if (rule == Determinism::piecewise && received_inside && !sent_inside) return false;
    if (rule == Determinism::send && sent_inside && !received_inside && !trace.logged(m)) return false;
  }
  return true;
}

// Calls f(cut) for every combination of one candidate position per process.
template <class F>
void for_each_cut(const std::vector<std::vector<Position>>& candidates, F&& f) {
  std::vector<std::size_t> choice(candidates.size(), 0);
  std::vector<Position> cut(candidates.size());
  while (true) {
    for (std::size_t p = 0; p < candidates.size(); ++p) cut[p] = candidates[p][choice[p]];
    f(cut);
    std::size_t p = 0;
    while (p < candidates.size() && ++choice[p] == candidates[p].size()) choice[p++] = 0;
    if (p == candidates.size()) return;
  }
}

// Every checkpoint's position, plus the final state if the process may keep it.
std::vector<std::vector<Position>> candidate_positions(const Trace& trace, const std::vector<bool>& may_keep_state) {
  std::vector<std::vector<Position>> candidates(trace.process_count());
  for (ProcessId p = 0; p < trace.process_count(); ++p) {
    for (CheckpointIndex k = 0; k <= trace.checkpoint_count(p); ++k) candidates[p].push_back(trace.checkpoint_position(p, k));
    if (may_keep_state[p]) candidates[p].push_back(trace.communication_count(p));
  }
  return candidates;
}

template <class Testable>
void check_property(const std::string& description, Testable&& testable, int successes = 1000) {
  rc::detail::TestParams params;
  const char* seed = std::getenv("FTSIM_PROPERTY_SEED");
  params.seed = seed ? std::strtoull(seed, nullptr, 10) : 20110521;
  params.maxSuccess = successes;
  params.maxSize = 100;
  rc::detail::TestMetadata metadata;
  metadata.id = metadata.description = description;
  const auto result = rc::detail::checkTestable(std::forward<Testable>(testable), metadata, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  INFO(description << " (seed " << params.seed << ")\n" << message.str());
  CHECK(result.template is<rc::detail::SuccessResult>());
}

// Drawn inside a property. RapidCheck scales a generator's range with the test's size (small
// first): only the step count grows with it; the steps themselves and the process count use
// their whole ranges (resize to the nominal size, 100).
Recipe draw_recipe(int max_processes = 4, int max_steps = 25) {
  Recipe recipe;
  recipe.processes = *rc::gen::resize(100, rc::gen::inRange(2, max_processes + 1));
  const int steps = *rc::gen::resize(100, rc::gen::inRange(0, max_steps + 1));
  recipe.steps = *rc::gen::container<std::vector<std::tuple<int, int, int>>>(
      std::size_t(steps),
      rc::gen::resize(100, rc::gen::tuple(rc::gen::inRange(0, 10), rc::gen::inRange(0, 16), rc::gen::inRange(0, 16))));
  recipe.failed_mask = *rc::gen::resize(100, rc::gen::inRange(1, 16));
  return recipe;
}

// What the random traces covered, so that a generator too weak to reach the interesting cases
// fails the test instead of passing it vacuously.
struct Coverage {
  int events = 0, traces = 0, with_receives = 0, with_logged_receives = 0, rolled_back_others = 0, domino = 0, with_useless = 0;
};
Coverage coverage;

void count(const Trace& trace) {
  ++coverage.traces;
  bool receives = false, logged = false;
  for (MessageId m = 0; m < trace.message_count(); ++m) {
    receives = receives || trace.received(m);
    logged = logged || (trace.received(m) && trace.logged(m));
  }
  coverage.with_receives += receives;
  coverage.with_logged_receives += logged;
}

}  // namespace

TEST_CASE("analysis: property: the fixpoint is the latest allowed cut of a brute-force search", "[analysis][property]") {
  for (const Determinism rule : {Determinism::piecewise, Determinism::send}) {
    check_property(std::string("recovery line, ") + determinism_name(rule) + " rule", [rule] {
      const Recipe recipe = draw_recipe();
      const Trace trace = build(recipe);
      const std::vector<ProcessId> failed = failed_of(recipe);
      RC_LOG() << show(trace);
      count(trace);
      std::vector<bool> keeps_state(trace.process_count(), true);
      for (ProcessId p : failed) keeps_state[p] = false;

      // The component-wise maximum of every allowed cut; and it must be allowed itself.
      std::vector<Position> latest(trace.process_count(), 0);
      for_each_cut(candidate_positions(trace, keeps_state), [&](const std::vector<Position>& cut) {
        if (!allowed(trace, cut, rule)) return;
        for (std::size_t p = 0; p < cut.size(); ++p) latest[p] = std::max(latest[p], cut[p]);
      });
      RC_ASSERT(allowed(trace, latest, rule));

      const RecoveryLine line = compute_recovery_line(trace, failed, rule);
      RC_ASSERT(line.positions == latest);
      coverage.rolled_back_others += line.rolled_back > line.failed.size();
      coverage.domino += line.domino;
      // The checkpoint reported is the latest at that position; null only for a process that
      // keeps its state.
      for (ProcessId p = 0; p < trace.process_count(); ++p) {
        if (!line.checkpoints[p]) {
          RC_ASSERT(keeps_state[p]);
          RC_ASSERT(latest[p] == trace.communication_count(p));
          continue;
        }
        const CheckpointIndex k = *line.checkpoints[p];
        RC_ASSERT(trace.checkpoint_position(p, k) == latest[p]);
        // (RC_ASSERT decomposes its expression: no short-circuit inside it.)
        const bool latest_at_position = k == trace.checkpoint_count(p) || trace.checkpoint_position(p, k + 1) > latest[p];
        RC_ASSERT(latest_at_position);
        RC_ASSERT(line.rollback_distance[p] == trace.communication_count(p) - latest[p]);
      }
    });
  }
  INFO("traces " << coverage.traces << ", with receives " << coverage.with_receives << ", with logged receives "
                 << coverage.with_logged_receives << ", other processes rolled back " << coverage.rolled_back_others
                 << ", domino " << coverage.domino);
  CHECK(coverage.with_receives > coverage.traces / 2);
  CHECK(coverage.with_logged_receives > coverage.traces / 10);
  CHECK(coverage.rolled_back_others > coverage.traces / 20);
  CHECK(coverage.domino > 10);
}

TEST_CASE("analysis: property: useless checkpoints are those in no consistent global checkpoint, each with a Z-cycle",
          "[analysis][property][zcycle]") {
  check_property("useless checkpoints", [] {
    // Fewer processes, longer histories: Z-cycles need a few checkpoints per process.
    const Recipe recipe = draw_recipe(3, 36);
    const Trace trace = build(recipe);
    RC_LOG() << show(trace);
    // Consistent global checkpoints: one checkpoint per process, the final state counting as
    // the last one, no orphan. A checkpoint is useful if one of them puts its process at its
    // position.
    std::vector<std::set<Position>> useful_positions(trace.process_count());
    const std::vector<bool> final_state_counts(trace.process_count(), true);
    for_each_cut(candidate_positions(trace, final_state_counts), [&](const std::vector<Position>& cut) {
      if (!allowed(trace, cut, Determinism::piecewise)) return;
      for (std::size_t p = 0; p < cut.size(); ++p) useful_positions[p].insert(cut[p]);
    });
    std::vector<std::pair<ProcessId, CheckpointIndex>> expected;
    for (ProcessId p = 0; p < trace.process_count(); ++p) {
      for (CheckpointIndex k = 1; k <= trace.checkpoint_count(p); ++k) {
        if (!useful_positions[p].count(trace.checkpoint_position(p, k))) expected.emplace_back(p, k);
      }
    }
    coverage.with_useless += !expected.empty();
    coverage.events += int(trace.total_event_count());
    for (const std::uint64_t budget : {kDefaultShortestSearchBudget, std::uint64_t(0)}) {
      const UselessCheckpoints useless = find_useless_checkpoints(trace, true, budget);
      RC_ASSERT(useless.checkpoints == expected);
      RC_ASSERT(useless.z_cycles.size() == expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) {
        const ZCycle& cycle = useless.z_cycles[i];
        RC_ASSERT(cycle.process == expected[i].first);
        RC_ASSERT(cycle.checkpoint == expected[i].second);
        RC_ASSERT(is_z_cycle(trace, cycle.process, cycle.checkpoint, cycle.messages));
      }
    }
  }, 3000);
  INFO("traces with a useless checkpoint: " << coverage.with_useless << " events " << coverage.events);
  CHECK(coverage.with_useless > 100);  // about 5% of the traces
}

TEST_CASE("analysis: property: the brute force itself sees the textbook cases", "[analysis][property]") {
  // A check of the checker: a recipe that makes Randell's domino, seen by the brute force.
  Recipe domino;
  domino.processes = 2;
  //           s m0 0->1   r m0       C P1      s m1 1->0   r m1      C P0
  domino.steps = {{3, 0, 1}, {6, 0, 0}, {0, 1, 0}, {3, 1, 0}, {6, 0, 0}, {0, 0, 0},
                  {3, 0, 1}, {6, 0, 0}, {0, 1, 0}, {3, 1, 0}, {6, 0, 0}, {0, 0, 0}, {3, 0, 1}, {6, 0, 0}};
  const Trace trace = build(domino);
  std::vector<Position> latest(2, 0);
  for_each_cut(candidate_positions(trace, {false, true}), [&](const std::vector<Position>& cut) {
    if (!allowed(trace, cut, Determinism::piecewise)) return;
    for (std::size_t p = 0; p < cut.size(); ++p) latest[p] = std::max(latest[p], cut[p]);
  });
  CHECK(latest == std::vector<Position>{0, 0});
  const ProcessId failed[] = {0};
  CHECK(compute_recovery_line(trace, failed, Determinism::piecewise).domino);
}
