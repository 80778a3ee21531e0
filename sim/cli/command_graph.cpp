// ftsim graph CONFIG [--stats] [--json FILE] [--dot FILE]: build the application's task graph,
// print its statistics, export it.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "graphs/application.hpp"
#include "graphs/graph_json.hpp"
#include "graphs/graph_stats.hpp"
#include "graphs/huge_pages.hpp"
#include "sim/cli/commands.hpp"
#include "sim/run/table.hpp"
#include "sim/config/config.hpp"
#include "sim/config/units.hpp"

namespace ftsim::cli {

namespace {

struct GraphOptions {
  std::string config;
  bool stats = false;
  std::string json_file, dot_file;
  std::vector<std::string> sets, cfgs;  // config overrides
};

std::ofstream open_output(const std::string& path) {
  std::ofstream out(path);
  if (!out) throw config::ConfigError(path, "", "cannot write this file");
  return out;
}

void print_stats(const graphs::TaskGraph& graph, const graphs::GraphStats& s, std::ostream& out) {
  using config::format_bytes;
  out << fmt::format("tasks {}  edges {}  data handles {} ({})  candidate cuts {}\n", s.tasks, s.edges, s.handles,
                     format_bytes(double(s.data_bytes)), graph.cut_count());
  run::Table kernels({"kernel", "tasks"});
  for (const auto& [name, count] : s.tasks_per_kernel) kernels.add_row({name, std::to_string(count)});
  kernels.print(out);
  out << fmt::format("\ntransfers {} ({}), reads served by the cache {}\n", s.transfers,
                     format_bytes(double(s.transfer_bytes)), s.cache_hits);
  run::Table nodes({"node", "tasks", "sent", "messages sent", "received"});
  const std::size_t shown = std::min<std::size_t>(graph.node_count(), 64);
  for (graphs::NodeId n = 0; n < shown; ++n) {
    nodes.add_row({std::to_string(n), std::to_string(s.tasks_per_node[n]), format_bytes(double(s.sent_bytes_per_node[n])),
                   std::to_string(s.sent_count_per_node[n]), format_bytes(double(s.received_bytes_per_node[n]))});
  }
  nodes.print(out);
  if (shown < graph.node_count()) out << "(" << graph.node_count() - shown << " more nodes; see --json)\n";
  out << fmt::format("\ncritical path: {:.4g} flops", s.critical_path_flops);
  if (s.critical_path_seconds) {
    out << fmt::format(", {} on one core per task (sequential total {})", config::format_seconds(*s.critical_path_seconds),
                       config::format_seconds(*s.total_seconds));
  } else {
    out << " (give /platform/core_gflops for seconds)";
  }
  out << "\n";
  if (!s.tasks_per_section.empty()) {
    out << "tasks per section (every candidate cut a checkpoint): ";
    const std::size_t count = s.tasks_per_section.size();
    for (std::size_t i = 0; i < count; ++i) {
      if (count > 12 && i == 6) {
        out << "... ";
        i = count - 6;
      }
      out << s.tasks_per_section[i] << (i + 1 < count ? " " : "\n");
    }
  }
}

}  // namespace

Command add_graph_command(CLI::App& app) {
  auto* command = app.add_subcommand("graph", "Build the task graph of a config: statistics, JSON and DOT export");
  auto options = std::make_shared<GraphOptions>();
  command->add_option("CONFIG", options->config, "JSON config file")->required();
  command->add_option("--set", options->sets, config::kSetOptionHelp)->allow_extra_args(false);
  command->add_option("--cfg", options->cfgs, config::kCfgOptionHelp)->allow_extra_args(false);
  command->add_flag("--stats", options->stats, "Print statistics (default when no export is asked)");
  command->add_option("--json", options->json_file, "Write the graph in the ftsim-graph JSON format");
  command->add_option("--dot", options->dot_file, "Write the graph in Graphviz DOT (small graphs only)");
  return [options] {
    const config::Config cfg = config::load_config(options->config, config::parse_overrides(options->sets, options->cfgs));
    const auto start = std::chrono::steady_clock::now();
    graphs::set_huge_pages_default(false);  // built and read once: see graphs/huge_pages.hpp
    const graphs::TaskGraph graph = graphs::build_application(cfg);
    const double build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const graphs::CostModel cost(cfg, graph);
    // Each file written is said, with what it holds: an export is never silent.
    if (!options->dot_file.empty()) {
      std::ofstream out = open_output(options->dot_file);
      graphs::write_graph_dot(graph, out);
      std::cout << fmt::format("wrote {}: the graph in Graphviz DOT ({} tasks, {} edges; draw it with `dot -Tsvg {} -o graph.svg`)\n",
                               options->dot_file, graph.task_count(), graph.edge_count(), options->dot_file);
    }
    if (!options->json_file.empty()) {
      std::ofstream out = open_output(options->json_file);
      graphs::write_graph_json(graph, out);
      std::cout << fmt::format("wrote {}: the graph in the ftsim-graph JSON format ({} tasks, {} edges; it loads back as a "
                               "\"json\" application)\n",
                               options->json_file, graph.task_count(), graph.edge_count());
    }
    if (options->stats || (options->json_file.empty() && options->dot_file.empty())) {
      std::cout << cfg.name << ": " << to_string(cfg.application.type) << " on " << graph.node_count()
                << " nodes (built in " << config::format_seconds(build_seconds) << ")\n";
      print_stats(graph, graphs::compute_stats(graph, cost), std::cout);
    }
    return kExitOk;
  };
}

}  // namespace ftsim::cli
