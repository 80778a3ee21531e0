// The "ftsim-graph" JSON format: export then import gives the same graph, a hand-written file
// gives the graph the builder gives, and bad files are ConfigError at the right JSON pointer.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "graphs/apps/applications.hpp"
#include "graphs/distribution.hpp"
#include "graphs/graph_json.hpp"
#include "graphs/stf_builder.hpp"

using namespace ftsim;
using namespace ftsim::graphs;

namespace {

TaskGraph small_cholesky() {
  config::CholeskyConfig c;
  c.tiles = 4;
  c.tile_size = 3;
  c.order = config::CholeskyOrder::column;
  config::DistributionConfig d;
  d.P = 2;
  d.Q = 2;
  StfBuilder builder(4);
  submit_cholesky(c, Distribution(d, 4), builder);
  return builder.finish();
}

// Lion & Thibault 2020 Fig. 2, with one per-task flops override and a negative priority.
TaskGraph lion2020_fig2() {
  StfBuilder b(2);
  const HandleId A = b.data(100, 0), B = b.data(20, 1), C = b.data(3, 1);
  const KernelId f = b.kernel("f", 1.5e9);
  b.task(f, {W(A)}, 0, 0);
  b.task(f, {W(B)}, 1, 0);
  b.checkpoint();
  b.task(f, {RW(B), R(A), W(C)}, 1, 3, {}, 0.25);
  b.task(f, {RW(B), R(A)}, 1, -1);
  b.task(f, {RW(A), R(B)}, 0, 0);
  b.checkpoint();
  b.task(f, {RW(B), R(A), R(C)}, 1, 0);
  b.task(f, {RW(A), R(B)}, 0, 0);
  return b.finish();
}

// Cuts at the very start, twice at the same place and at the very end; two kernels.
TaskGraph cut_corner_cases() {
  StfBuilder b(3);
  const HandleId x = b.data(8, 2), y = b.data(16, 0);
  const KernelId f = b.kernel("f", 2), g = b.kernel("g", 0);
  b.checkpoint();
  b.task(g, {R(x), W(y)}, 1, 0);
  b.checkpoint();
  b.checkpoint();
  b.task(f, {RW(x), R(y)}, 0, 7);
  b.checkpoint();
  return b.finish();
}

std::string export_json(const TaskGraph& g) {
  std::ostringstream out;
  write_graph_json(g, out);
  return out.str();
}

TaskGraph round_trip(const TaskGraph& g) {
  return graph_from_json(config::parse_json_text(export_json(g), "export.json"), "export.json", g.node_count());
}

void check_same_graph(const TaskGraph& a, const TaskGraph& b) {
  REQUIRE(a.task_count() == b.task_count());
  REQUIRE(a.handle_count() == b.handle_count());
  REQUIRE(a.kernel_count() == b.kernel_count());
  CHECK(a.node_count() == b.node_count());
  CHECK(a.edge_count() == b.edge_count());
  for (KernelId k = 0; k < a.kernel_count(); ++k) {
    CHECK(a.kernel_name(k) == b.kernel_name(k));
    CHECK(a.kernel_flops(k) == b.kernel_flops(k));
  }
  for (HandleId h = 0; h < a.handle_count(); ++h) {
    CHECK(a.bytes(h) == b.bytes(h));
    CHECK(a.owner(h) == b.owner(h));
    CHECK(a.final_version(h) == b.final_version(h));
  }
  for (TaskId t = 0; t < a.task_count(); ++t) {
    CAPTURE(t);
    CHECK(a.kernel(t) == b.kernel(t));
    CHECK(a.node(t) == b.node(t));
    CHECK(a.priority(t) == b.priority(t));
    CHECK(a.flops(t) == b.flops(t));
    std::vector<std::tuple<HandleId, Version, AccessMode>> access_a, access_b;
    for (const Access& x : a.accesses(t)) access_a.emplace_back(x.handle, x.version, x.mode);
    for (const Access& x : b.accesses(t)) access_b.emplace_back(x.handle, x.version, x.mode);
    CHECK(access_a == access_b);
    auto sa = a.successors(t), sb = b.successors(t);
    CHECK(std::vector<TaskId>(sa.begin(), sa.end()) == std::vector<TaskId>(sb.begin(), sb.end()));
  }
  REQUIRE(a.transfers().size() == b.transfers().size());
  for (std::size_t i = 0; i < a.transfers().size(); ++i) {
    const Transfer &x = a.transfers()[i], &y = b.transfers()[i];
    CHECK(std::tie(x.handle, x.version, x.source, x.destination, x.consumer) ==
          std::tie(y.handle, y.version, y.source, y.destination, y.consumer));
  }
  CHECK(a.transfers().cache_hits() == b.transfers().cache_hits());
  REQUIRE(a.cut_count() == b.cut_count());
  for (CutId c = 1; c <= a.cut_count(); ++c) {
    CHECK(a.cut_position(c) == b.cut_position(c));
    std::vector<std::pair<HandleId, Version>> ea, eb;
    for (const auto& e : a.modified_before_cut(c)) ea.emplace_back(e.handle, e.version);
    for (const auto& e : b.modified_before_cut(c)) eb.emplace_back(e.handle, e.version);
    CHECK(ea == eb);
  }
}

// Expects graph_from_json to fail with ConfigError at `pointer`.
void check_error(const std::string& text, NodeId nodes, const std::string& pointer, const std::string& words) {
  try {
    graph_from_json(config::parse_json_text(text, "bad.json"), "bad.json", nodes);
    FAIL("expected a ConfigError at " << pointer);
  } catch (const config::ConfigError& error) {
    CHECK(error.file() == "bad.json");
    CHECK(error.pointer() == pointer);
    CHECK_THAT(error.message(), Catch::Contains(words));
  }
}

const char* const kFig2 = R"({
  "format": "ftsim-graph", "version": 1, "nodes": 2,
  "kernels": [{"name": "f", "flops": 1.5e9}],
  "data": [{"name": "A", "bytes": 100, "owner": 0}, {"name": "B", "bytes": "20B", "owner": 1},
           {"name": "C", "bytes": 3, "owner": 1}],
  "submission": [
    {"kernel": "f", "node": 0, "access": [["W", "A"]]},
    {"kernel": "f", "node": 1, "access": [["W", "B"]]},
    {"checkpoint": true},
    {"kernel": "f", "node": 1, "priority": 3, "flops": 0.25, "access": [["RW", "B"], ["R", "A"], ["W", "C"]]},
    {"kernel": "f", "node": 1, "priority": -1, "access": [["RW", "B"], ["R", 0]]},
    {"kernel": "f", "node": 0, "access": [["RW", "A"], ["R", "B"]]},
    {"checkpoint": true},
    {"kernel": "f", "node": 1, "access": [["RW", "B"], ["R", "A"], ["R", "C"]]},
    {"kernel": "f", "node": 0, "access": [["RW", "A"], ["R", "B"]]}
  ]
})";

}  // namespace

TEST_CASE("graph JSON: export then import gives the same Cholesky graph", "[graphs][json]") {
  const TaskGraph original = small_cholesky();
  REQUIRE(original.transfers().size() > 0u);
  check_same_graph(original, round_trip(original));
}

TEST_CASE("graph JSON: export then import gives the same Lion 2020 Fig. 2 program", "[graphs][json]") {
  const TaskGraph original = lion2020_fig2();
  const TaskGraph copy = round_trip(original);
  check_same_graph(original, copy);
  CHECK(copy.flops(2) == 0.25);
  CHECK(copy.flops(3) == 1.5e9);
  CHECK(copy.priority(3) == -1);
  CHECK(copy.transfers().size() == 4u);
}

TEST_CASE("graph JSON: cuts at the start, repeated and at the end survive a round trip", "[graphs][json]") {
  const TaskGraph original = cut_corner_cases();
  REQUIRE(original.cut_count() == 4u);
  const TaskGraph copy = round_trip(original);
  check_same_graph(original, copy);
  CHECK(copy.cut_position(1) == 0u);
  CHECK(copy.cut_position(2) == 1u);
  CHECK(copy.cut_position(3) == 1u);
  CHECK(copy.cut_position(4) == 2u);
  // And the export is stable: exporting the copy gives the same text.
  CHECK(export_json(copy) == export_json(original));
}

TEST_CASE("graph JSON: a hand-written file with data names equals the builder's graph", "[graphs][json]") {
  const TaskGraph from_file = graph_from_json(config::parse_json_text(kFig2, "fig2.json"), "fig2.json", 2);
  check_same_graph(lion2020_fig2(), from_file);
  // A platform with more nodes than the graph declares is fine.
  CHECK(graph_from_json(config::parse_json_text(kFig2, "fig2.json"), "fig2.json", 3).node_count() == 3u);
}

TEST_CASE("graph JSON: errors name the JSON pointer of the bad value", "[graphs][json][errors]") {
  auto with_submission = [](const std::string& submission) {
    return std::string(R"({"kernels": [{"name": "f"}],
      "data": [{"name": "A", "bytes": 8, "owner": 0}, {"name": "B", "bytes": 8, "owner": 1}],
      "submission": [)") + submission + "]}";
  };
  // Unknown data name, after a checkpoint entry (which counts in the index).
  check_error(with_submission(R"({"kernel": "f", "node": 0, "access": [["W", "A"]]}, {"checkpoint": true},
                                 {"kernel": "f", "node": 1, "access": [["R", "A"], ["RW", "Z"]]})"),
              2, "/submission/2/access/1/1", "unknown data \"Z\"");
  // Node out of range.
  check_error(with_submission(R"({"kernel": "f", "node": 2, "access": [["W", "A"]]})"), 2, "/submission/0/node",
              "[0, 1]");
  // Bad access mode.
  check_error(with_submission(R"({"kernel": "f", "node": 0, "access": [["W", "A"]]},
                                 {"kernel": "f", "node": 0, "access": [["RX", "B"]]})"),
              2, "/submission/1/access/0/0", "unknown value \"RX\"");
  // Handle index out of range.
  check_error(with_submission(R"({"kernel": "f", "node": 0, "access": [["R", 2]]})"), 2,
              "/submission/0/access/0/1", "[0, 1]");
  // Unknown kernel.
  check_error(with_submission(R"({"kernel": "g", "node": 0, "access": []})"), 2, "/submission/0/kernel",
              "unknown kernel \"g\"");
  // Data owner out of range.
  check_error(R"({"kernels": [], "data": [{"bytes": 8, "owner": 0}, {"bytes": 8, "owner": 5}], "submission": []})", 2,
              "/data/1/owner", "[0, 1]");
  // A graph made for more nodes than the platform has.
  check_error(R"({"nodes": 4, "kernels": [], "data": [], "submission": []})", 2, "/nodes", "4 nodes");
  // An access that is not a [mode, data] pair.
  check_error(with_submission(R"({"kernel": "f", "node": 0, "access": [["W"]]})"), 2, "/submission/0/access/0",
              "[mode, data]");
}
