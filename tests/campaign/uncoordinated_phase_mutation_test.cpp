// The uncoordinated protocol's phase gating (Guermouche 2011, Fig. 4 l. 40; issue 39): a logged
// message (sent in an epoch before the one its receiver got it in) is replayed after a rollback
// only once its sender has received READY for its phase. In a task graph the digest oracle cannot
// see an early replay (versions are named, tasks deterministic), so an observer checks the order
// itself. It wraps each process's protocol and judges from what the process received and sent,
// not from the protocol's own condition (protocols/uncoordinated/unco_replay.cpp):
//  - the READY phases: the latest READY of the process's current ROUND (none yet: 0; kNoEpoch:
//    every phase is released);
//  - which replays are logged: a replayed message carries its send's date, epoch and phase; the
//    receiver's first acknowledgement of that date since that send gave the epoch it was received
//    in. Acks that came while the process was in a recovery (from its failure notice, or its
//    restart, to the final READY) wait in the protocol until the recovery is over: such a message
//    is not judged.
//  - the invariant: a logged replay leaves with a phase <= the READY phase its sender has.
// Run without SimGrid on the queue backend, with the uncoordinated protocol of the mutation build
// (protocols/mutants.hpp): correct, then with `replay_one_phase_early` (a logged replay goes when
// ReadyPhase is one below its phase), which every other test passes.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <tuple>

#include "protocols/uncoordinated/unco_messages.hpp"
#include "tests/campaign/campaign_support.hpp"
#include "tests/support/planted_faults.hpp"
#include "tests/support/run_on_queue.hpp"

using namespace ftsim;
namespace messages = protocols::uncoordinated::messages;

namespace {

// What the observers saw, over every process and incarnation of one run.
struct PhaseLedger {
  struct AckSeen {
    std::uint32_t epoch = 0;
    bool during_recovery = false;  // the protocol applied it later: its replay is not judged
  };
  // (sender, receiver, version key, send date) -> the first acknowledgement.
  std::map<std::tuple<node::NodeId, node::NodeId, std::uint64_t, std::uint32_t>, AckSeen> acks;
  std::size_t logged_replays = 0;  // replays judged
  std::size_t waited = 0;          // judged replays that left on a READY (they had waited for it)
  std::size_t later_phase = 0;     // judged replays of a phase > 1: they waited past the first READY
  std::size_t early = 0;           // judged replays whose phase was not released yet
  std::string first_early;
};

class PhaseObserver final : public node::Protocol {
public:
  PhaseObserver(std::unique_ptr<node::Protocol> inner, std::shared_ptr<PhaseLedger> ledger, bool coordinator)
      : inner_(std::move(inner)), ledger_(std::move(ledger)), coordinator_(coordinator) {}

  void on_start(node::ProtocolContext& ctx) override { inner_->on_start(ctx); }
  bool may_start(node::ProtocolContext& ctx, node::TaskId t) override { return inner_->may_start(ctx, t); }
  void on_task_completed(node::ProtocolContext& ctx, node::TaskId t, bool first) override {
    inner_->on_task_completed(ctx, t, first);
  }
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& m) override {
    const node::SendVerdict verdict = inner_->on_send(ctx, m);
    if (coordinator_) return verdict;
    if (m.traffic == node::Traffic::application) {
      // Sent anew (a re-execution after a rollback may reuse the date): the acks of the earlier
      // sends are not this one's.
      const std::uint64_t version = messages::version_key(m.handle, m.version);
      ledger_->acks.erase(ledger_->acks.lower_bound({ctx.node(), m.destination, version, 0}),
                          ledger_->acks.upper_bound({ctx.node(), m.destination, version, ~0u}));
    } else if (verdict == node::SendVerdict::send && m.traffic == node::Traffic::recovery) {
      judge(ctx, m);
    }
    return verdict;
  }
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& m) override {
    return inner_->on_receive(ctx, m);
  }
  void on_stored(node::ProtocolContext& ctx, const node::Message& m) override { inner_->on_stored(ctx, m); }
  void on_data_released(node::ProtocolContext& ctx, const node::Message& m) override { inner_->on_data_released(ctx, m); }
  void on_control(node::ProtocolContext& ctx, const node::Message& m) override {
    if (coordinator_) return inner_->on_control(ctx, m);
    switch (m.control_type) {
      case messages::kAck: {
        const messages::Ack ack = node::decode<messages::Ack>(m);
        ledger_->acks.try_emplace({ctx.node(), m.source, ack.version, ack.date}, PhaseLedger::AckSeen{ack.epoch, in_recovery_});
        break;
      }
      case messages::kRound: {
        const messages::Round round = node::decode<messages::Round>(m);
        if (round.round > round_) {
          round_ = round.round;
          ready_ = 0;
          in_recovery_ = true;
        }
        break;
      }
      case messages::kReady: {
        const messages::Ready ready = node::decode<messages::Ready>(m);
        if (ready.round != round_) break;
        ready_ = ready.phase;
        on_ready_ = true;
        inner_->on_control(ctx, m);
        on_ready_ = false;
        if (ready.phase == messages::kNoEpoch) in_recovery_ = false;
        return;
      }
      default: break;
    }
    inner_->on_control(ctx, m);
  }
  void on_timer(node::ProtocolContext& ctx, std::uint64_t token) override { inner_->on_timer(ctx, token); }
  void on_storage_done(node::ProtocolContext& ctx, std::uint64_t token, const node::Bytes* content) override {
    inner_->on_storage_done(ctx, token, content);
  }
  void on_activity_done(node::ProtocolContext& ctx, std::uint64_t token) override { inner_->on_activity_done(ctx, token); }
  void on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) override {
    in_recovery_ = true;
    inner_->on_failure_notice(ctx, notice);
  }
  void on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) override {
    in_recovery_ = true;
    inner_->on_restart(ctx, info);
  }
  bool finished(node::ProtocolContext& ctx) override { return inner_->finished(ctx); }
  std::string phase(node::ProtocolContext& ctx) override { return inner_->phase(ctx); }

private:
  void judge(node::ProtocolContext& ctx, const node::Message& m) {
    const std::uint32_t date = m.header_word(0), epoch = m.header_word(1), phase = m.header_word(2);
    const auto ack = ledger_->acks.find({ctx.node(), m.destination, messages::version_key(m.handle, m.version), date});
    if (ack == ledger_->acks.end() || ack->second.during_recovery || epoch >= ack->second.epoch) return;  // not logged
    ++ledger_->logged_replays;
    if (on_ready_) ++ledger_->waited;
    if (phase > 1) ++ledger_->later_phase;
    if (ready_ == messages::kNoEpoch || phase <= ready_) return;
    if (ledger_->early++ == 0) {
      ledger_->first_early = "node " + std::to_string(ctx.node()) + " replayed " + ctx.graph().handle_name(m.handle) + " v" +
                             std::to_string(m.version) + " to node " + std::to_string(m.destination) + " in phase " +
                             std::to_string(phase) + " with READY " + std::to_string(ready_) + " at " + std::to_string(ctx.now()) + " s";
    }
  }

  std::unique_ptr<node::Protocol> inner_;
  std::shared_ptr<PhaseLedger> ledger_;
  bool coordinator_;
  std::uint32_t round_ = 0;
  std::uint32_t ready_ = 0;  // the READY phase of round_ (0: none received)
  bool in_recovery_ = false;
  bool on_ready_ = false;    // handling a READY now
};

// The uncoordinated campaign's scenarios (send-deterministic logging): one to three failures, a
// third of them simultaneous, every checkpoint schedule.
config::Json scenario(const std::string& app, std::uint64_t seed, double makespan) {
  std::mt19937_64 random(seed * 104729 + std::hash<std::string>{}(app));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  config::Json document = {{"name", "unco-phases-" + app},
                           {"seed", seed},
                           {"application", campaign_support::application(app)},
                           {"platform", campaign_support::platform()}};
  static constexpr const char* kSchedules[] = {"random", "periodic", "clusters"};
  document["protocol"] = {{"type", "uncoordinated"},
                          {"logging", "send-deterministic"},
                          {"period", (0.05 + 0.25 * unit(random)) * makespan},
                          {"schedule", kSchedules[seed % 3]}};
  if (seed % 3 == 2) document["protocol"]["clusters"] = 2;
  config::Json events = config::Json::array();
  const double first = unit(random) * makespan;
  const std::uint64_t node = random() % 4;
  events.push_back({{"time", first}, {"node", node}});
  if (seed % 3 == 0) events.push_back({{"time", first}, {"node", (node + 1 + random() % 3) % 4}});
  for (int i = 0, later = int(random() % 2); i < later; ++i) {
    events.push_back({{"time", unit(random) * 1.2 * makespan}, {"node", random() % 4}});
  }
  document["failures"] = {{"model", "list"}, {"events", events}, {"downtime", unit(random) * 0.2 * makespan},
                          {"detection", unit(random) * 0.05 * makespan}};
  return document;
}

struct Outcome {
  std::size_t runs = 0, acted = 0, caught = 0, logged_replays = 0, waited = 0, later_phase = 0, early = 0;
  std::string first_early, uncaught;  // the first early replay seen; the runs where the fault went unseen
};

Outcome run_scenarios(std::size_t seeds) {
  Outcome outcome;
  for (const char* app : {"cholesky", "stencil", "cg"}) {
    config::Json reference = {{"application", campaign_support::application(app)},
                              {"platform", campaign_support::platform()},
                              {"protocol", {{"type", "none"}}}};
    const node::RunMetrics free = testing::run_on_queue(reference, "reference");
    REQUIRE(free.complete);
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
      const config::Json document = scenario(app, seed, free.makespan);
      const std::string origin = std::string(app) + "/seed " + std::to_string(seed);
      auto ledger = std::make_shared<PhaseLedger>();
      const testing::FactoryWrapper observe = [ledger](node::ProtocolFactory inner) -> node::ProtocolFactory {
        return [inner, ledger](node::NodeId node, bool coordinator) {
          return std::make_unique<PhaseObserver>(inner(node, coordinator), ledger, coordinator);
        };
      };
      testing::planted_faults().fired = 0;  // in this process: counted per run
      INFO(origin << ": " << document.dump());
      const node::RunMetrics m = testing::run_on_queue(document, origin, 5e-6, 1.25e9, {}, observe);
      INFO("failure reason: " << m.failure_reason);
      REQUIRE(m.complete);  // the oracle cannot see an early replay: the run completes either way
      CHECK(m.oracle_ok);
      ++outcome.runs;
      outcome.logged_replays += ledger->logged_replays;
      outcome.waited += ledger->waited;
      outcome.later_phase += ledger->later_phase;
      outcome.early += ledger->early;
      if (outcome.first_early.empty()) outcome.first_early = ledger->first_early;
      if (m.test_faults_fired > 0) {
        ++outcome.acted;
        if (ledger->early > 0) {
          ++outcome.caught;
        } else {
          outcome.uncaught += " " + origin;
        }
      }
    }
  }
  return outcome;
}

}  // namespace

TEST_CASE("campaign: uncoordinated - logged replays wait for the READY of their phase", "[campaign][uncoordinated][mutation]") {
  const std::size_t seeds = 12;
  SECTION("the correct protocol: no early replay, and replays did wait") {
    const Outcome o = run_scenarios(seeds);
    WARN(o.runs << " runs: " << o.logged_replays << " logged replays judged, " << o.waited << " of them left on a READY, "
                << o.later_phase << " of a phase > 1");
    CHECK(o.early == 0);
    INFO(o.first_early);
    // The check is not vacuous: logged replays happen, and they wait for their phase (phases start
    // at 1 and a round's READY at 0), some of them past the first READY.
    CHECK(o.logged_replays >= 20);
    CHECK(o.waited >= 20);
    CHECK(o.later_phase >= 10);
  }
  SECTION("a replay one phase early is caught") {
    const campaign_support::PlantedFault planted("replay_one_phase_early");
    const Outcome o = run_scenarios(seeds);
    WARN("replay_one_phase_early: acted in " << o.acted << " runs, caught in " << o.caught << " (" << o.first_early
                                               << "); not caught:" << o.uncaught);
    CHECK(o.acted >= 3);
    CHECK(o.caught == o.acted);
  }
}
