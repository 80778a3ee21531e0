#pragma once
// A user's own task graph as JSON ("ftsim-graph" format, docs/configs.md#graph-files), and the export
// of any task graph to that format (so `ftsim graph --json` output loads back unchanged).
#include <iosfwd>
#include <string>

#include "graphs/task_graph.hpp"
#include "sim/config/json_reader.hpp"

namespace ftsim::graphs {

// Loads a graph file for a platform of `nodes` nodes. Errors are ConfigError naming the graph
// file and the JSON pointer (e.g. "g.json: /submission/4/access/1: unknown data \"X\"").
TaskGraph load_graph_json(const std::string& path, NodeId nodes);
TaskGraph graph_from_json(const config::Json& document, const std::string& origin, NodeId nodes);

void write_graph_json(const TaskGraph& graph, std::ostream& out);

// Graphviz DOT of a small graph; throws GraphError above `max_tasks` tasks.
inline constexpr std::size_t kMaxDotTasks = 5000;
void write_graph_dot(const TaskGraph& graph, std::ostream& out, std::size_t max_tasks = kMaxDotTasks);

}  // namespace ftsim::graphs
