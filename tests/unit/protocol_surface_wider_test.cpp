// The protocol surface that CCK and Guermouche's protocol need, and buddy uses (issue 20): the
// defer receive verdict with redelivery or discard, the selective release of held sends, the
// per-task priority override, the suppress send verdict, header words of any length and named
// metrics. Each check fails if the hook does nothing; no SimGrid.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "sim/node/protocol_context.hpp"
#include "tests/support/run_on_queue.hpp"

using namespace ftsim;

namespace {

config::Json two_nodes() {
  return {{"application", {{"type", "cholesky"}, {"tiles", 4}, {"tile_size", 64}}},
          {"platform", {{"nodes", 2}, {"cores_per_node", 1}, {"core_gflops", 2}}},
          {"protocol", {{"type", "none"}}}};
}

// What the probes saw, kept by the test (a protocol instance dies with its process).
struct Seen {
  std::uint64_t deferred = 0, redelivered = 0, held = 0;
  std::vector<node::TaskId> order;
};

// Node 1 defers every data message until a timer at 1 ms, then redelivers (or discards) them.
struct Deferring final : node::Protocol {
  Seen* seen;
  bool discard = false, released = false, redelivering = false;
  Deferring(Seen* s, bool d) : seen(s), discard(d) {}
  void on_start(node::ProtocolContext& ctx) override {
    if (ctx.node() == 1) ctx.set_timer(1e-3, 1);
  }
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message&) override {
    if (ctx.node() != 1) return node::ReceiveVerdict::accept;
    if (!released) {
      ++seen->deferred;
      return node::ReceiveVerdict::defer;
    }
    if (redelivering) ++seen->redelivered;
    return node::ReceiveVerdict::accept;
  }
  void on_timer(node::ProtocolContext& ctx, std::uint64_t) override {
    released = true;
    if (discard) {
      ctx.discard_deferred();
    } else {
      redelivering = true;
      ctx.redeliver_deferred();
      redelivering = false;
    }
  }
};

// Node 0 holds every data message it sends; 1 ms later it releases those to node 1 only.
struct Holding final : node::Protocol {
  Seen* seen;
  explicit Holding(Seen* s) : seen(s) {}
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message&) override {
    if (ctx.node() != 0) return node::SendVerdict::send;
    ++seen->held;
    ctx.set_timer(1e-3, 1);
    return node::SendVerdict::hold;
  }
  void on_timer(node::ProtocolContext& ctx, std::uint64_t) override { ctx.release_held_sends_to(1); }
};

// One node, one core, three independent tasks of equal priority: with `boost`, the last one is
// given the highest priority at the start; the order of completions shows whether it acted.
struct Reordering final : node::Protocol {
  Seen* seen;
  bool boost = false;
  Reordering(Seen* s, bool b) : seen(s), boost(b) {}
  void on_start(node::ProtocolContext& ctx) override {
    if (boost && !ctx.is_coordinator()) ctx.runtime().set_priority(2, 1 << 20);
  }
  void on_task_completed(node::ProtocolContext&, node::TaskId task, bool) override { seen->order.push_back(task); }
};

config::Json three_independent_tasks(const std::filesystem::path& file) {
  std::ofstream(file) << R"({"format": "ftsim-graph", "version": 1, "nodes": 1,
    "kernels": [{"name": "f", "flops": 1e6}],
    "data": [{"name": "A", "bytes": 8, "owner": 0}, {"name": "B", "bytes": 8, "owner": 0},
             {"name": "C", "bytes": 8, "owner": 0}],
    "submission": [{"kernel": "f", "node": 0, "access": [["W", "A"]]},
                   {"kernel": "f", "node": 0, "access": [["W", "B"]]},
                   {"kernel": "f", "node": 0, "access": [["W", "C"]]}]})";
  return {{"application", {{"type", "json"}, {"file", file.string()}}},
          {"platform", {{"nodes", 1}, {"cores_per_node", 1}, {"core_gflops", 2}}},
          {"protocol", {{"type", "none"}}}};
}

// Runs the document with a fresh P per process; returns the metrics and what each node's probe saw.
template <class P, class... A>
std::pair<node::RunMetrics, std::vector<Seen>> run(const config::Json& document, A... args) {
  std::vector<Seen> seen(document["platform"]["nodes"].get<std::size_t>() + 1);
  const node::RunMetrics m = testing::run_on_queue(document, "wider surface", 1e-6, 1e9, [&](node::NodeId node, bool) {
    return std::make_unique<P>(&seen[node], args...);
  });
  return {m, seen};
}

}  // namespace

TEST_CASE("protocol surface: deferred data is redelivered in order, or discarded", "[core][surface]") {
  auto [m, seen] = run<Deferring>(two_nodes(), false);
  INFO(m.failure_reason);
  CHECK(m.complete);
  CHECK(m.oracle_ok);
  REQUIRE(seen[1].deferred > 0);
  CHECK(seen[1].redelivered == seen[1].deferred);
  CHECK(m.makespan > 1e-3);  // node 1's tasks waited for the redelivery

  auto [dropped, dropping] = run<Deferring>(two_nodes(), true);
  CHECK_FALSE(dropped.complete);  // the data node 1 needed is gone: a stall
  CHECK(dropped.nodes[1].orphans_dropped == dropping[1].deferred);
}

TEST_CASE("protocol surface: held sends are released to one destination only", "[core][surface]") {
  auto [m, seen] = run<Holding>(two_nodes());
  INFO(m.failure_reason);
  // Node 0's sends to node 1 leave 1 ms late; it sends to nobody else (two nodes), so the run ends.
  CHECK(m.complete);
  CHECK(seen[0].held > 0);
  CHECK(m.makespan > 1e-3);
  // With three nodes, what node 0 holds for node 2 never leaves: the run cannot end.
  config::Json three = two_nodes();
  three["platform"]["nodes"] = 3;
  auto [stuck, holding] = run<Holding>(three);
  CHECK_FALSE(stuck.complete);
  CHECK(holding[0].held > 0);
}

TEST_CASE("protocol surface: a priority override reorders ready tasks", "[core][surface]") {
  const auto file = std::filesystem::temp_directory_path() / ("ftsim_priority_" + std::to_string(::getpid()) + ".json");
  const config::Json document = three_independent_tasks(file);
  auto [plain, plain_probes] = run<Reordering>(document, false);
  auto [boosted, boosted_probes] = run<Reordering>(document, true);
  std::filesystem::remove(file);
  REQUIRE(plain.complete);
  REQUIRE(boosted.complete);
  CHECK(plain_probes[0].order == std::vector<node::TaskId>{0, 1, 2});  // submission order
  CHECK(boosted_probes[0].order == std::vector<node::TaskId>{2, 0, 1});
}

namespace {

// Node 0 suppresses every data message it sends: node 1 then never gets its inputs (a stall),
// and the suppressed sends are counted.
struct Suppressing final : node::Protocol {
  Seen* seen;
  explicit Suppressing(Seen* s) : seen(s) {}
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message&) override {
    if (ctx.node() != 0) return node::SendVerdict::send;
    ++seen->held;
    return node::SendVerdict::suppress;
  }
};

// Every data message piggybacks `words` header words (the sender's node id in each); the receiver
// checks them all, and counts in named metric 0 the words it saw and in 1 (a peak) the most.
struct Piggybacking final : node::Protocol {
  Seen* seen;
  std::uint32_t words;
  Piggybacking(Seen* s, std::uint32_t w) : seen(s), words(w) {}
  node::SendVerdict on_send(node::ProtocolContext& ctx, node::Message& m) override {
    for (std::uint32_t i = 0; i < words; ++i) m.set_header(i, ctx.node() * 1000 + i);
    return node::SendVerdict::send;
  }
  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& m) override {
    for (std::uint32_t i = 0; i < words; ++i) {
      if (m.header_word(i) == m.source * 1000 + i) ++seen->redelivered;
    }
    ctx.counters().add(0, m.header_words);
    ctx.counters().raise_to(1, m.header_words);
    return node::ReceiveVerdict::accept;
  }
};

}  // namespace

TEST_CASE("protocol surface: a suppressed send never leaves and is counted", "[core][surface]") {
  auto [m, seen] = run<Suppressing>(two_nodes());
  CHECK_FALSE(m.complete);  // node 1 never gets what node 0 suppressed
  REQUIRE(seen[0].held > 0);
  CHECK(m.nodes[0].sends_suppressed == seen[0].held);
  CHECK(m.nodes[0].messages_sent[0] == 0);
}

TEST_CASE("protocol surface: header words of any length arrive and count in the size", "[core][surface]") {
  auto [plain, plain_seen] = run<Piggybacking>(two_nodes(), 0u);
  auto [long_headers, long_seen] = run<Piggybacking>(two_nodes(), 11u);
  REQUIRE(plain.complete);
  REQUIRE(long_headers.complete);
  const std::uint64_t messages = long_headers.nodes[0].messages_sent[0] + long_headers.nodes[1].messages_sent[0];
  REQUIRE(messages > 0);
  CHECK(long_seen[0].redelivered + long_seen[1].redelivered == 11 * messages);  // every word as sent
  const std::uint64_t plain_bytes = plain.nodes[0].bytes_sent[0] + plain.nodes[1].bytes_sent[0];
  const std::uint64_t long_bytes = long_headers.nodes[0].bytes_sent[0] + long_headers.nodes[1].bytes_sent[0];
  CHECK(long_bytes == plain_bytes + 4 * 11 * messages);
  // The named counters reach the run's metrics when definitions are given (here: none, so the
  // per-node values are what the processes counted).
  CHECK(long_headers.nodes[0].counters.named[0] + long_headers.nodes[1].counters.named[0] == 11 * messages);
  CHECK(long_headers.nodes[1].counters.named[1] == 11);
}

TEST_CASE("protocol surface: named metrics are folded by sum or max over the processes", "[core][surface]") {
  std::vector<node::NodeMetrics> processes(3);
  processes[0].counters.add(0, 5);
  processes[1].counters.add(0, 7);
  processes[0].counters.raise_to(1, 40);
  processes[2].counters.raise_to(1, 90);  // the coordinator counts too
  const std::vector<node::MetricDefinition> definitions = {
      {"control_messages", "messages", node::MetricFold::sum, "sent"},
      {"peak_log_bytes", "bytes", node::MetricFold::max, "held at once"}};
  node::RunMetrics metrics;
  node::fold_process_metrics(metrics, processes, 2, definitions);
  REQUIRE(metrics.protocol_metrics.size() == 2);
  CHECK(metrics.protocol_metrics[0].name == "control_messages");
  CHECK(metrics.protocol_metrics[0].value == 12);
  CHECK(metrics.protocol_metrics[1].value == 90);
  CHECK(metrics.nodes.size() == 2);
}
