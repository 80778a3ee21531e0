#include "graphs/workflow_wfformat.hpp"

#include <unordered_map>

namespace ftsim::graphs {

namespace {

using config::Json;
using config::JsonReader;

// Names -> indices, in order of first declaration; a second declaration is an error.
class Names {
public:
  std::uint32_t add(const JsonReader& at, const std::string& name, const char* what) {
    auto [it, fresh] = index_.emplace(name, static_cast<std::uint32_t>(index_.size()));
    if (!fresh) at.fail(std::string(what) + " \"" + name + "\" is declared twice");
    return it->second;
  }
  // The index of a declared name, or an error "unknown <what>" at the reference.
  std::uint32_t find(const JsonReader& at, const std::string& name, const char* what) const {
    auto it = index_.find(name);
    if (it == index_.end()) at.fail(std::string("unknown ") + what + " \"" + name + "\" (not declared in the file)");
    return it->second;
  }
  bool contains(const std::string& name) const { return index_.count(name) != 0; }
  // The index of a name, or kNone (no reader is made on the fast path).
  std::uint32_t lookup(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? kNone : it->second;
  }
  std::uint32_t size() const { return static_cast<std::uint32_t>(index_.size()); }

private:
  std::unordered_map<std::string, std::uint32_t> index_;
};

// A non-empty string identifier.
std::string identifier(const JsonReader& at) {
  std::string text = at.as_string();
  if (text.empty()) at.fail_expected("a non-empty identifier");
  return text;
}

// A list of identifiers, each resolved in `names`. Read from the raw JSON: a 100,000-task file has
// a million references, and a reader (with its pointer) is made only for an error.
void references(JsonReader list, const Names& names, const char* what, std::vector<std::uint32_t>& out) {
  if (!list.is_array()) list.fail_expected("a list of " + std::string(what) + " identifiers");
  const Json& items = list.json();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Json& item = items[i];
    const std::uint32_t index = item.is_string() ? names.lookup(item.get_ref<const std::string&>()) : kNone;
    if (index == kNone) {
      auto at = list[i];
      names.find(at, identifier(at), what);  // throws: not a string, or unknown
    }
    out.push_back(index);
  }
}

double runtime_flops(const JsonReader& at, double reference_gflops) {
  return at.as_number(0, 1e15) * reference_gflops * 1e9;
}

// Schema 1.5 and later: workflow.specification (structure) and workflow.execution (measures).
void read_specification(JsonReader workflow, double reference_gflops, WorkflowDag& dag) {
  auto spec = workflow.at("specification");
  spec.expect_object();
  Names files, tasks, machines;
  if (auto list = spec.find("files")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto file = (*list)[i];
      file.expect_object();
      auto id = file.at("id");
      files.add(id, identifier(id), "file");
      dag.files.push_back({file.at("sizeInBytes").as_bytes()});
    }
  }
  auto task_list = spec.at("tasks");
  if (task_list.size() == 0) task_list.fail_expected("at least one task");
  for (std::size_t i = 0; i < task_list.size(); ++i) {
    auto task = task_list[i];
    task.expect_object();
    auto id = task.at("id");
    tasks.add(id, identifier(id), "task");
    dag.tasks.push_back({});
    dag.tasks.back().kernel = kernel_of_task_name(identifier(task.at("name")));
  }
  // References, once every task is known.
  std::vector<std::uint32_t> children;
  for (std::size_t i = 0; i < task_list.size(); ++i) {
    auto task = task_list[i];
    WorkflowTask& t = dag.tasks[i];
    references(task.at("parents"), tasks, "task", t.parents);
    children.clear();
    references(task.at("children"), tasks, "task", children);
    for (std::uint32_t c : children) dag.tasks[c].parents.push_back(static_cast<std::uint32_t>(i));
    if (auto in = task.find("inputFiles")) references(*in, files, "file", t.inputs);
    if (auto out = task.find("outputFiles")) references(*out, files, "file", t.outputs);
  }
  auto execution = workflow.find("execution");
  if (!execution) return;  // a structure only: every task costs 0 flops
  execution->expect_object();
  if (auto list = execution->find("machines")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto machine = (*list)[i];
      machine.expect_object();
      machines.add(machine.at("nodeName"), identifier(machine.at("nodeName")), "machine");
    }
  }
  auto runs = execution->at("tasks");
  std::vector<bool> seen(dag.tasks.size(), false);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto run = runs[i];
    run.expect_object();
    auto id = run.at("id");
    const std::uint32_t t = tasks.find(id, identifier(id), "task");
    if (seen[t]) id.fail("task \"" + identifier(id) + "\" has two execution entries");
    seen[t] = true;
    dag.tasks[t].flops = runtime_flops(run.at("runtimeInSeconds"), reference_gflops);
    if (auto priority = run.find("priority")) dag.tasks[t].priority = static_cast<std::int32_t>(priority->as_int(INT32_MIN, INT32_MAX));
    if (auto list = run.find("machines")) {
      if (!list->is_array()) list->fail_expected("a list of machine node names");
      if (list->size() > 0) {
        auto first = (*list)[0];
        dag.tasks[t].machine = machines.find(first, identifier(first), "machine");
      }
    }
  }
}

// Schema 1.4: workflow.tasks with runtimes, parents by name and files inline ({name, link, sizeInBytes}).
void read_tasks_1_4(JsonReader workflow, double reference_gflops, WorkflowDag& dag) {
  Names files, tasks, machines;
  if (auto list = workflow.find("machines")) {
    for (std::size_t i = 0; i < list->size(); ++i) {
      auto machine = (*list)[i];
      machine.expect_object();
      machines.add(machine.at("nodeName"), identifier(machine.at("nodeName")), "machine");
    }
  }
  auto task_list = workflow.at("tasks");
  if (task_list.size() == 0) task_list.fail_expected("at least one task");
  for (std::size_t i = 0; i < task_list.size(); ++i) {
    auto task = task_list[i];
    task.expect_object();
    const std::string name = identifier(task.at("name"));
    tasks.add(task.at("name"), name, "task");
    dag.tasks.push_back({});
    WorkflowTask& t = dag.tasks.back();
    t.kernel = task.has("category") ? identifier(task.at("category")) : kernel_of_task_name(name);
    if (auto runtime = task.find("runtimeInSeconds")) t.flops = runtime_flops(*runtime, reference_gflops);
    if (auto priority = task.find("priority")) t.priority = static_cast<std::int32_t>(priority->as_int(INT32_MIN, INT32_MAX));
    if (auto machine = task.find("machine")) t.machine = machines.find(*machine, identifier(*machine), "machine");
    if (auto list = task.find("files")) {
      for (std::size_t f = 0; f < list->size(); ++f) {
        auto file = (*list)[f];
        file.expect_object();
        const std::string file_name = identifier(file.at("name"));
        const std::uint64_t bytes = file.at("sizeInBytes").as_bytes();
        std::uint32_t index;
        if (files.contains(file_name)) {
          index = files.find(file.at("name"), file_name, "file");
          if (dag.files[index].bytes != bytes) {
            file.at("sizeInBytes").fail("file \"" + file_name + "\" has " + std::to_string(dag.files[index].bytes) +
                                        " bytes elsewhere in the file");
          }
        } else {
          index = files.add(file.at("name"), file_name, "file");
          dag.files.push_back({bytes});
        }
        (file.at("link").as_choice({"input", "output"}) == "input" ? t.inputs : t.outputs).push_back(index);
      }
    }
  }
  std::vector<std::uint32_t> children;
  for (std::size_t i = 0; i < task_list.size(); ++i) {
    auto task = task_list[i];
    if (auto parents = task.find("parents")) references(*parents, tasks, "task", dag.tasks[i].parents);
    if (auto list = task.find("children")) {
      children.clear();
      references(*list, tasks, "task", children);
      for (std::uint32_t c : children) dag.tasks[c].parents.push_back(static_cast<std::uint32_t>(i));
    }
  }
}

}  // namespace

WorkflowDag read_wfformat(const std::string& path, double reference_gflops) {
  return wfformat_from_json(config::read_json_file(path, config::kMaxGraphFileBytes), path, reference_gflops);
}

WorkflowDag wfformat_from_json(const Json& document, const std::string& origin, double reference_gflops) {
  WorkflowDag dag;
  dag.origin = origin;
  JsonReader root(document, origin);
  root.expect_object();
  // WfFormat allows properties of its own beyond the schema: unknown keys are ignored (no finish()).
  const std::string version = root.at("schemaVersion").as_choice({"1.4", "1.5", "1.6"});
  auto workflow = root.at("workflow");
  workflow.expect_object();
  if (version == "1.4") {
    read_tasks_1_4(workflow, reference_gflops, dag);
    dag.where = [](std::uint32_t t) { return "/workflow/tasks/" + std::to_string(t); };
    dag.machine_key = "\"machine\"";
  } else {
    read_specification(workflow, reference_gflops, dag);
    dag.where = [](std::uint32_t t) { return "/workflow/specification/tasks/" + std::to_string(t); };
    dag.machine_key = "execution \"machines\"";
  }
  return dag;
}

}  // namespace ftsim::graphs
