#include "graphs/graph_json.hpp"

#include <map>
#include <ostream>

#include "graphs/stf_builder.hpp"

namespace ftsim::graphs {

using config::JsonReader;

TaskGraph load_graph_json(const std::string& path, NodeId nodes) {
  return graph_from_json(config::read_json_file(path, config::kMaxGraphFileBytes), path, nodes);
}

TaskGraph graph_from_json(const config::Json& document, const std::string& origin, NodeId nodes) {
  JsonReader root(document, origin);
  root.expect_object();
  if (auto format = root.find("format")) {
    if (format->as_string() != "ftsim-graph") format->fail_expected("\"ftsim-graph\"");
  }
  if (auto version = root.find("version")) version->as_int(1, 1);
  if (auto declared = root.find("nodes")) {
    auto count = declared->as_int(1);
    if (count > nodes) {
      declared->fail("the graph is made for " + std::to_string(count) + " nodes but the platform has " +
                     std::to_string(nodes));
    }
  }
  StfBuilder builder(nodes);

  // Kernels: [{"name": "f", "flops": 1e9}, ...]
  std::map<std::string, KernelId> kernels;
  auto kernel_list = root.at("kernels");
  for (std::size_t k = 0; k < kernel_list.size(); ++k) {
    auto entry = kernel_list[k];
    entry.expect_object();
    auto name_reader = entry.at("name");
    std::string name = name_reader.as_string();
    if (name.empty()) name_reader.fail_expected("a non-empty kernel name");
    if (kernels.count(name)) name_reader.fail("kernel \"" + name + "\" is defined twice");
    double flops = entry.find("flops") ? entry.at("flops").as_number(0) : 0.0;
    entry.finish();
    kernels[name] = builder.kernel(name, flops);
  }

  // Data: [{"bytes": "1MiB", "owner": 0, "name": "A"}, ...]
  std::map<std::string, HandleId> data_names;
  auto data_list = root.at("data");
  for (std::size_t d = 0; d < data_list.size(); ++d) {
    auto entry = data_list[d];
    entry.expect_object();
    std::uint64_t bytes = entry.at("bytes").as_bytes();
    auto owner = static_cast<NodeId>(entry.at("owner").as_int(0, nodes - 1));
    std::string text;
    if (auto name = entry.find("name")) {
      text = name->as_string();
      if (text.empty()) name->fail_expected("a non-empty data name");
      if (data_names.count(text)) name->fail("data name \"" + text + "\" is used twice");
    }
    entry.finish();
    const HandleId handle = text.empty() ? builder.data(bytes, owner) : builder.data(bytes, owner, text, {});
    if (!text.empty()) data_names[text] = handle;
  }

  // Submission: tasks in STF order, and {"checkpoint": true} cuts.
  auto submission = root.at("submission");
  std::vector<AccessSpec> accesses;
  std::vector<std::string> kernel_names;
  for (const auto& [name, id] : kernels) kernel_names.push_back(name);
  std::vector<std::string> data_name_list;
  for (const auto& [name, id] : data_names) data_name_list.push_back(name);
  for (std::size_t i = 0; i < submission.size(); ++i) {
    auto item = submission[i];
    item.expect_object();
    if (item.has("checkpoint")) {
      if (!item.at("checkpoint").as_bool()) item.at("checkpoint").fail_expected("true");
      item.finish();
      builder.checkpoint();
      continue;
    }
    auto kernel_reader = item.at("kernel");
    std::string kernel_name = kernel_reader.as_string();
    auto kernel = kernels.find(kernel_name);
    if (kernel == kernels.end()) {
      std::string message = "unknown kernel \"" + kernel_name + "\"";
      if (auto hint = config::closest_match(kernel_name, kernel_names)) message += " (did you mean \"" + *hint + "\"?)";
      kernel_reader.fail(message);
    }
    auto node = static_cast<NodeId>(item.at("node").as_int(0, nodes - 1));
    std::int32_t priority = 0;
    if (auto p = item.find("priority")) priority = static_cast<std::int32_t>(p->as_int(INT32_MIN, INT32_MAX));
    std::optional<double> flops;
    if (auto f = item.find("flops")) flops = f->as_number(0);
    accesses.clear();
    auto access_list = item.at("access");
    for (std::size_t a = 0; a < access_list.size(); ++a) {
      auto pair = access_list[a];
      if (!pair.is_array() || pair.size() != 2) pair.fail_expected("[mode, data] such as [\"RW\", \"A\"] or [\"R\", 3]");
      std::string mode = pair[0].as_choice({"R", "W", "RW"});
      HandleId handle = kNone;
      auto target = pair[1];
      if (target.is_string()) {
        std::string name = target.as_string();
        auto found = data_names.find(name);
        if (found == data_names.end()) {
          std::string message = "unknown data \"" + name + "\"";
          if (auto hint = config::closest_match(name, data_name_list)) message += " (did you mean \"" + *hint + "\"?)";
          target.fail(message);
        }
        handle = found->second;
      } else {
        handle = static_cast<HandleId>(target.as_int(0, static_cast<std::int64_t>(builder.handle_count()) - 1));
      }
      accesses.push_back({handle, mode == "R" ? AccessMode::R : mode == "W" ? AccessMode::W : AccessMode::RW});
    }
    item.finish();
    builder.task(kernel->second, accesses, node, priority, {}, flops);
  }
  root.finish();
  return builder.finish();
}

void write_graph_json(const TaskGraph& graph, std::ostream& out) {
  // Streamed by hand: a million-task graph must not become one in-memory JSON tree.
  auto quote = [](const std::string& text) { return config::Json(text).dump(); };
  out << "{\n  \"format\": \"ftsim-graph\",\n  \"version\": 1,\n  \"nodes\": " << graph.node_count()
      << ",\n  \"kernels\": [";
  for (KernelId k = 0; k < graph.kernel_count(); ++k) {
    out << (k ? ",\n" : "\n") << "    {\"name\": " << quote(graph.kernel_name(k))
        << ", \"flops\": " << config::Json(graph.kernel_flops(k)).dump() << "}";
  }
  out << "\n  ],\n  \"data\": [";
  for (HandleId h = 0; h < graph.handle_count(); ++h) {
    out << (h ? ",\n" : "\n") << "    {\"name\": " << quote(graph.handle_name(h)) << ", \"bytes\": " << graph.bytes(h)
        << ", \"owner\": " << graph.owner(h) << "}";
  }
  out << "\n  ],\n  \"submission\": [";
  CutId next_cut = 1;
  bool first = true;
  auto separator = [&] {
    out << (first ? "\n" : ",\n");
    first = false;
  };
  for (TaskId t = 0; t <= graph.task_count(); ++t) {
    while (next_cut <= graph.cut_count() && graph.cut_position(next_cut) == t) {
      separator();
      out << "    {\"checkpoint\": true}";
      ++next_cut;
    }
    if (t == graph.task_count()) break;
    separator();
    out << "    {\"kernel\": " << quote(graph.kernel_name(graph.kernel(t))) << ", \"node\": " << graph.node(t);
    if (graph.priority(t) != 0) out << ", \"priority\": " << graph.priority(t);
    if (graph.flops(t) != graph.kernel_flops(graph.kernel(t))) out << ", \"flops\": " << config::Json(graph.flops(t)).dump();
    out << ", \"access\": [";
    bool first_access = true;
    for (const Access& a : graph.accesses(t)) {
      out << (first_access ? "" : ", ") << "[\"" << to_string(a.mode) << "\", " << a.handle << "]";
      first_access = false;
    }
    out << "]}";
  }
  out << "\n  ]\n}\n";
}

namespace {
// A DOT string body: names come from graph files and may hold quotes, backslashes or line breaks.
std::string dot_escape(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') {
      escaped += '\\';
      escaped += c;
    } else if (c == '\n' || c == '\r') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return escaped;
}
}  // namespace

void write_graph_dot(const TaskGraph& graph, std::ostream& out, std::size_t max_tasks) {
  if (graph.task_count() > max_tasks) {
    throw GraphError("the graph has " + std::to_string(graph.task_count()) +
                     " tasks; DOT output is limited to " + std::to_string(max_tasks) +
                     " (a larger drawing is unreadable); use --stats or --json instead");
  }
  // A color per node, cycling through a qualitative palette.
  static const char* const kColors[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                                        "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};
  out << "digraph ftsim {\n  rankdir=TB;\n  node [shape=box, style=filled, fontname=\"Helvetica\"];\n";
  CutId next_cut = 1;
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    while (next_cut <= graph.cut_count() && graph.cut_position(next_cut) == t) {
      out << "  // checkpoint cut " << next_cut << "\n";
      ++next_cut;
    }
    out << "  t" << t << " [label=\"" << dot_escape(graph.task_name(t)) << "\\nnode " << graph.node(t)
        << "\", fillcolor=\"" << kColors[graph.node(t) % std::size(kColors)] << "\"];\n";
  }
  for (TaskId t = 0; t < graph.task_count(); ++t) {
    for (TaskId s : graph.successors(t)) {
      const bool remote = graph.node(s) != graph.node(t);
      out << "  t" << t << " -> t" << s << (remote ? " [style=dashed]" : "") << ";\n";
    }
  }
  out << "}\n";
}

}  // namespace ftsim::graphs
