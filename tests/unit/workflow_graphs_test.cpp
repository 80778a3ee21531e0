// Workflow files (graphs/workflow_*.hpp): WfFormat and DOT readers and build_workflow(). Expected
// values are worked out by hand from the samples in tests/data/graphs and docs/inputs.md.
#include <catch2/catch.hpp>

#include <string>

#include "graphs/workflow_dag.hpp"
#include "graphs/workflow_dot.hpp"
#include "graphs/workflow_wfformat.hpp"
#include "sim/config/config_error.hpp"

using namespace ftsim::graphs;
using ftsim::config::ConfigError;

namespace {

const std::string kData = std::string(FTSIM_SOURCE_DIR) + "/tests/data/graphs/";

TaskGraph build(const WorkflowDag& dag, NodeId nodes, std::uint32_t cut_levels = 1) {
  return build_workflow(dag, {ftsim::config::WorkflowPlacement::round_robin, nullptr, cut_levels, nodes});
}

}  // namespace

TEST_CASE("kernel names drop the instance number of a task name") {
  CHECK(kernel_of_task_name("split_ID0000001") == "split");
  CHECK(kernel_of_task_name("split_fasta_00042") == "split_fasta");
  CHECK(kernel_of_task_name("task7") == "task");
  CHECK(kernel_of_task_name("1234") == "task");
  CHECK(kernel_of_task_name("gather") == "gather");
}

TEST_CASE("WfFormat 1.5: files become handles, runtimes flops, levels cuts") {
  const WorkflowDag dag = read_wfformat(kData + "wfformat-1.5-pipeline.json", 2.0);
  REQUIRE(dag.tasks.size() == 9);
  CHECK(dag.tasks[0].kernel == "split");
  CHECK(dag.tasks[0].flops == Approx(3.0 * 2e9));
  CHECK(dag.tasks[8].priority == 5);
  CHECK(dag.tasks[2].machine == 1u);  // beta, the second machine
  const TaskGraph g = build(dag, 3);
  CHECK(g.task_count() == 9);
  // Levels: split | 3 filters | 3 scores | merge | report: 5 levels, a cut before levels 1..4.
  CHECK(g.cut_count() == 4);
  CHECK(g.cut_position(1) == 1);
  CHECK(g.cut_position(4) == 8);
  // 13 files (all used) and one "done" handle: report waits for merge without a file.
  CHECK(g.handle_count() == 14);
  CHECK(g.kernel_name(g.kernel(0)) == "split");
}

TEST_CASE("WfFormat 1.4: inline files and parents by name") {
  const WorkflowDag dag = read_wfformat(kData + "wfformat-1.4-montage.json", 1.0);
  REQUIRE(dag.tasks.size() == 5);
  CHECK(dag.files.size() == 7);
  CHECK(dag.tasks[4].flops == Approx(6e9));
  const TaskGraph g = build(dag, 2, 2);
  // Levels: 2 projects | diff | background | add: cuts before levels 2 (every 2 levels).
  CHECK(g.cut_count() == 1);
  CHECK(g.cut_position(1) == 3);
}

TEST_CASE("DOT: node size is flops, edge size bytes, an edge without size a dependency") {
  const WorkflowDag dag = read_dot(kData + "simgrid-dag.dot");
  REQUIRE(dag.tasks.size() == 7);
  CHECK(dag.files.size() == 6);
  CHECK(dag.tasks[2].flops == Approx(5e9));
  CHECK(dag.tasks[3].machine == 1u);
  const TaskGraph g = build(dag, 2);
  // root | prepare | 3 works | gather | end
  CHECK(g.cut_count() == 4);
  CHECK(g.edge_count() >= 8);
}

TEST_CASE("bad workflow files name the place") {
  SECTION("a DOT cycle names a node's line") {
    try {
      build(dot_from_text("digraph g {\n a -> b;\n b -> a;\n}\n", "x.dot"), 1);
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.file() == "x.dot");
      CHECK(e.pointer() == "line 2");
    }
  }
  SECTION("a DOT syntax error") {
    CHECK_THROWS_AS(dot_from_text("digraph g {\n a -> ;\n}\n", "x.dot"), ConfigError);
  }
  SECTION("a WfFormat dangling parent") {
    const auto doc = ftsim::config::Json::parse(
        R"({"schemaVersion": "1.5", "workflow": {"specification": {"tasks": [{"name": "a", "id": "a", "parents": ["b"], "children": []}]}}})");
    try {
      wfformat_from_json(doc, "w.json", 1.0);
      FAIL("no error");
    } catch (const ConfigError& e) {
      CHECK(e.pointer() == "/workflow/specification/tasks/0/parents/0");
    }
  }
}
