// _ftsim: the C++ side of the Python package ftsim (python/ftsim/). Configs cross as JSON text
// (from a file, or a dict serialized by Python); results come back as JSON text, which the package
// turns into objects. Runs release the GIL: a simulation runs in a forked child (SimGrid allows
// one engine per process), so threads may run several at once.
#include <optional>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "analysis/analysis_json.hpp"
#include "analysis/failure_analysis.hpp"
#include "analysis/multilevel_period.hpp"
#include "analysis/optimal_period.hpp"
#include "analysis/trace_error.hpp"
#include "analysis/trace_input.hpp"
#include "analysis/trace_json_writer.hpp"
#include "graphs/application.hpp"
#include "graphs/cost_model.hpp"
#include "graphs/graph_stats.hpp"
#include "protocols/registry.hpp"
#include "sim/run/run_job.hpp"
#include "sim/run/volumes_document.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/stop_request.hpp"
#include "sim/config/units.hpp"

namespace py = pybind11;
using namespace ftsim;

namespace {

// A config from a file (`origin` is its path: relative paths inside resolve from its folder) or
// from JSON text (`origin` names it in messages, e.g. "<dict>").
config::Config load(const std::string& text, const std::string& origin, bool is_file) {
  if (is_file) return protocols::load_config(origin);
  config::Json document;
  try {
    document = config::Json::parse(text);
  } catch (const config::Json::parse_error& e) {
    throw config::ConfigError(origin, "", std::string("not valid JSON: ") + e.what());
  }
  return protocols::load_config_json(document, origin);
}

std::string run_config(const std::string& text, const std::string& origin, bool is_file, const std::string& trace_file,
                       const std::string& log_file, const std::string& log_categories, bool progress) {
  const config::Config cfg = load(text, origin, is_file);
  run::RunJobOptions options;
  options.trace_file = trace_file;
  options.log_file = log_file;
  if (!log_categories.empty()) options.log_categories = log_categories;
  options.progress = progress;
  run::RunJob job;
  {
    py::gil_scoped_release release;
    job = run::run_job(cfg, options);
  }
  return job.results.dump();
}

std::string volumes(const std::string& text, const std::string& origin, bool is_file) {
  const config::Config cfg = load(text, origin, is_file);
  py::gil_scoped_release release;
  const graphs::TaskGraph graph = graphs::build_application(cfg);
  return run::volumes_document(cfg, graph, run::placement_volumes(cfg, graph)).dump();
}

// The graph as arrays: per task its name, kernel, node, priority and flops; the edges as two
// arrays (from, to); and `ftsim graph --stats`' figures.
py::dict graph(const std::string& text, const std::string& origin, bool is_file) {
  const config::Config cfg = load(text, origin, is_file);
  graphs::TaskGraph g;
  {
    py::gil_scoped_release release;
    g = graphs::build_application(cfg);
  }
  const graphs::CostModel cost(cfg, g);
  const graphs::GraphStats s = graphs::compute_stats(g, cost);
  const std::size_t n = g.task_count();
  py::array_t<std::uint32_t> node(n), kernel(n);
  py::array_t<std::int32_t> priority(n);
  py::array_t<double> flops(n);
  py::list names;
  for (graphs::TaskId t = 0; t < n; ++t) {
    node.mutable_at(t) = g.node(t);
    kernel.mutable_at(t) = g.kernel(t);
    priority.mutable_at(t) = g.priority(t);
    flops.mutable_at(t) = g.flops(t);
    names.append(g.task_name(t));
  }
  py::array_t<std::uint32_t> from(g.edge_count()), to(g.edge_count());
  std::size_t e = 0;
  for (graphs::TaskId t = 0; t < n; ++t) {
    for (graphs::TaskId succ : g.successors(t)) {
      from.mutable_at(e) = t;
      to.mutable_at(e) = succ;
      ++e;
    }
  }
  py::list kernels;
  for (graphs::KernelId k = 0; k < g.kernel_count(); ++k) kernels.append(g.kernel_name(k));
  py::dict stats;
  stats["tasks"] = s.tasks;
  stats["edges"] = s.edges;
  stats["handles"] = s.handles;
  stats["data_bytes"] = s.data_bytes;
  stats["tasks_per_kernel"] = s.tasks_per_kernel;
  stats["transfers"] = s.transfers;
  stats["transfer_bytes"] = s.transfer_bytes;
  stats["cache_hits"] = s.cache_hits;
  stats["tasks_per_node"] = s.tasks_per_node;
  stats["sent_bytes_per_node"] = s.sent_bytes_per_node;
  stats["critical_path_flops"] = s.critical_path_flops;
  stats["critical_path_seconds"] = s.critical_path_seconds ? py::cast(*s.critical_path_seconds) : py::none();
  stats["total_flops"] = s.total_flops;
  stats["total_seconds"] = s.total_seconds ? py::cast(*s.total_seconds) : py::none();
  stats["tasks_per_section"] = s.tasks_per_section;
  py::dict result;
  result["name"] = cfg.name;
  result["nodes"] = g.node_count();
  result["task_names"] = names;
  result["task_node"] = node;
  result["task_kernel"] = kernel;
  result["task_priority"] = priority;
  result["task_flops"] = flops;
  result["kernels"] = kernels;
  result["edge_from"] = from;
  result["edge_to"] = to;
  result["stats"] = stats;
  return result;
}

// A trace from a file (auto-detected: ftsim-trace JSON or SMPI) or from ftsim-trace JSON text.
analysis::Trace load_trace(const std::string& source, const std::string& origin, bool is_file,
                           const std::string& format, const std::string& checkpoints, const std::string& logging) {
  analysis::TraceInputOptions options;
  options.format = format;
  options.checkpoints = checkpoints;
  options.logging = logging;
  return is_file ? analysis::load_trace(source, options) : analysis::load_trace_text(source, origin, options);
}

// `ftsim analyze`'s JSON document: one failure (`failed`), or every single failure (`each`).
std::string analyze(const std::string& source, const std::string& origin, bool is_file, const std::vector<std::uint32_t>& failed,
                    bool each, const std::string& determinism, const std::string& format, const std::string& checkpoints,
                    const std::string& logging, bool z_cycles) {
  py::gil_scoped_release release;
  const analysis::Trace trace = load_trace(source, origin, is_file, format, checkpoints, logging);
  const analysis::Determinism rule = analysis::parse_determinism(determinism);
  if (each) {
    const analysis::EachFailureSummary summary = analysis::analyze_each_failure(trace, rule);
    return analysis::each_failure_json(trace, summary, analysis::find_useless_checkpoints(trace, z_cycles));
  }
  return analysis::failure_analysis_json(trace, analysis::analyze_failure(trace, failed, rule, z_cycles));
}

// The trace as ftsim-trace JSON text (SMPI converted, checkpoints placed).
std::string trace_json(const std::string& source, const std::string& origin, bool is_file, const std::string& format,
                       const std::string& checkpoints, const std::string& logging) {
  py::gil_scoped_release release;
  std::ostringstream out;
  analysis::write_trace_json(load_trace(source, origin, is_file, format, checkpoints, logging), out);
  return out.str();
}

}  // namespace

PYBIND11_MODULE(_ftsim, m) {
  m.doc() = "C++ core of the ftsim package: use `import ftsim`.";
  // ConfigError(file, pointer, message): the package's ftsim.ConfigError is built from these.
  static py::exception<config::ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  // TraceError(file, where, message): ftsim.TraceError is built from these.
  static py::exception<analysis::TraceError> trace_error(m, "TraceError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const config::ConfigError& e) {
      py::tuple args = py::make_tuple(e.file(), e.pointer(), e.message());
      PyErr_SetObject(config_error.ptr(), args.ptr());
    } catch (const analysis::TraceError& e) {
      py::tuple args = py::make_tuple(e.file(), e.where().describe(), e.message());
      PyErr_SetObject(trace_error.ptr(), args.ptr());
    } catch (const Interrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    }
  });
  m.def("run", &run_config, py::arg("text"), py::arg("origin"), py::arg("is_file"), py::arg("trace_file") = "",
        py::arg("log_file") = "", py::arg("log_categories") = "", py::arg("progress") = false,
        "Simulates a config; returns results.json's document as JSON text.");
  m.def("volumes", &volumes, py::arg("text"), py::arg("origin"), py::arg("is_file"),
        "Analytic checkpoint volumes of every /checkpoints placement, as JSON text.");
  m.def("graph", &graph, py::arg("text"), py::arg("origin"), py::arg("is_file"),
        "The task graph as arrays, with its statistics.");
  m.def("validate", [](const std::string& text, const std::string& origin, bool is_file) { load(text, origin, is_file); },
        py::arg("text"), py::arg("origin"), py::arg("is_file"), "Loads a config; raises ConfigError if it is bad.");
  m.def("analyze", &analyze, py::arg("source"), py::arg("origin"), py::arg("is_file"), py::arg("failed"), py::arg("each"),
        py::arg("determinism"), py::arg("format") = "auto", py::arg("checkpoints") = "", py::arg("logging") = "",
        py::arg("z_cycles") = true, "Recovery line analysis of a trace; returns `ftsim analyze --json`'s document as text.");
  m.def("trace_json", &trace_json, py::arg("source"), py::arg("origin"), py::arg("is_file"), py::arg("format") = "auto",
        py::arg("checkpoints") = "", py::arg("logging") = "", "A trace as ftsim-trace JSON text.");
  m.def("format_seconds", &config::format_seconds, py::arg("seconds"),
        "A duration as the CLI's summaries print it (\"939 ms\", \"22.5 s\"): one unit rule for both.");
  m.def("young_period", &analysis::young_period, py::arg("checkpoint"), py::arg("mtbf"));
  m.def("daly_period", &analysis::daly_period, py::arg("checkpoint"), py::arg("mtbf"));
  m.def("optimal_period", &analysis::optimal_period, py::arg("checkpoint"), py::arg("mtbf"));
  m.def(
      "multilevel_pattern",
      [](const std::vector<std::tuple<double, double, double>>& levels, std::optional<std::vector<std::uint32_t>> used) {
        std::vector<analysis::CheckpointLevel> in;
        for (const auto& [checkpoint, rate, recovery] : levels) in.push_back({checkpoint, rate, recovery});
        const analysis::MultilevelPattern p =
            used ? analysis::best_multilevel_pattern(in, *used) : analysis::optimal_multilevel_pattern(in);
        py::dict out;
        out["levels"] = p.levels;
        out["counts"] = p.counts;
        out["work"] = p.work;
        out["overhead"] = p.overhead;
        out["bound"] = analysis::multilevel_bound(in);
        return out;
      },
      py::arg("levels"), py::arg("used") = py::none(),
      "The first-order multi-level optimum of (checkpoint, failure_rate, recovery) levels (of the levels `used`).");
  m.def("daly_wall_time", &analysis::daly_wall_time, py::arg("period"), py::arg("checkpoint"), py::arg("mtbf"),
        py::arg("restart"), py::arg("work"));
}
