// The baseline of bench/engine_speed.py: the work of `ftsim run` on a task graph, done by SimGrid's
// own activity DAG (the way of SimGrid's examples/cpp/dag-*): an Exec per task on its node's host, a
// host-to-host Comm (Comm::sendto_init) per data transfer, and SimGrid's dependencies between them
// (add_successor; an activity starts when its dependencies are solved). Nothing of ftsim is linked:
// it reads the graph that `ftsim graph CONFIG --json FILE` writes and infers the transfers itself,
// so that equal makespans cross-check the engine (tests/python/test_s4u_dag.py).
//
// ftsim's semantics, as SimGrid dependencies:
//  - a task waits for the tasks of its own node it depends on (read after write, write after read
//    or write: the STF rules) and for each version it reads that its node does not produce;
//  - a version is sent when produced (an initial value at time 0, from its owner) to each other
//    node that reads it, once per node (StarPU-MPI's cache; a new write makes a new version);
//  - a message is the data's bytes plus the envelope (StarPU-MPI's 32 bytes);
//  - a task that writes a handle waits until the sends of that handle from its node have arrived
//    (StarPU keeps a read access on data under transfer).
// What a DAG cannot say: ftsim runs at most `cores` tasks per node and queues the others by
// priority, SimGrid shares a host's cores among all its started Execs. The output gives the most
// Execs a host ran at once: while it stays within `cores`, the two schedules are the same.
//
// Usage: s4u_dag GRAPH.json --cores N --bandwidth BYTES_PER_S --latency S --gflops G
//          [--gflops KERNEL=G]... [--backbone-bandwidth BYTES_PER_S] [--backbone-latency S]
//          [--model LV08|CM02|SMPI|IB] [--solver lazy|full] [--envelope BYTES]
// It prints one JSON object: makespan, activities, wall seconds of the simulation and of the setup,
// the most Execs run at once on one host, and how many messages overtook an earlier one of their
// channel (ftsim delivers a channel's messages in order, a DAG does not).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;
using Json = nlohmann::json;

namespace {

constexpr std::uint32_t kNone = UINT32_MAX;

// Bad input: the message names the file (and the JSON pointer, or the option); exit code 2.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string graph;
  int cores = 0;
  double bandwidth = 0, latency = -1, backbone_bandwidth = 0, backbone_latency = 0;
  std::string model = "LV08", solver = "lazy";
  double default_gflops = 0;
  std::map<std::string, double> kernel_gflops;
  std::uint64_t envelope = 32;
};

double parse_number(const std::string& option, const std::string& text, double min) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(value >= min) || value > 1e300) {
    throw InputError("option " + option + ": expected a number >= " + std::to_string(min) + ", got \"" + text + "\"");
  }
  return value;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      if (!o.graph.empty()) throw InputError("one graph file expected, got \"" + o.graph + "\" and \"" + arg + "\"");
      o.graph = arg;
      continue;
    }
    if (i + 1 >= argc) throw InputError("option " + arg + ": missing value");
    const std::string value = argv[++i];
    if (arg == "--cores") {
      o.cores = static_cast<int>(parse_number(arg, value, 1));
    } else if (arg == "--bandwidth") {
      o.bandwidth = parse_number(arg, value, 1);
    } else if (arg == "--latency") {
      o.latency = parse_number(arg, value, 0);
    } else if (arg == "--backbone-bandwidth") {
      o.backbone_bandwidth = parse_number(arg, value, 1);
    } else if (arg == "--backbone-latency") {
      o.backbone_latency = parse_number(arg, value, 0);
    } else if (arg == "--envelope") {
      o.envelope = static_cast<std::uint64_t>(parse_number(arg, value, 0));
    } else if (arg == "--model") {
      if (value != "LV08" && value != "CM02" && value != "SMPI" && value != "IB") {
        throw InputError("option --model: expected LV08, CM02, SMPI or IB, got \"" + value + "\"");
      }
      o.model = value;
    } else if (arg == "--solver") {
      if (value != "lazy" && value != "full") throw InputError("option --solver: expected lazy or full, got \"" + value + "\"");
      o.solver = value;
    } else if (arg == "--gflops") {
      const auto equal = value.find('=');
      if (equal == std::string::npos) {
        o.default_gflops = parse_number(arg, value, 1e-9);
      } else {
        o.kernel_gflops[value.substr(0, equal)] = parse_number(arg, value.substr(equal + 1), 1e-9);
      }
    } else {
      throw InputError("unknown option " + arg);
    }
  }
  if (o.graph.empty()) throw InputError("no graph file (the output of `ftsim graph CONFIG --json FILE`)");
  if (o.cores == 0) throw InputError("option --cores is required");
  if (o.bandwidth == 0) throw InputError("option --bandwidth is required");
  if (o.latency < 0) throw InputError("option --latency is required");
  return o;
}

// ----------------------------------------------------------------------------- the graph

struct Transfer {
  std::uint32_t source, destination;
  std::uint64_t bytes;
  std::uint32_t producer;  // the task whose end sends it, kNone for an initial value
  std::vector<std::uint32_t> consumers;  // the tasks of the destination that read this version
  std::uint32_t held_writer = kNone;  // the next task of the source that writes the handle
};

struct Dag {
  std::uint32_t nodes = 0;
  std::vector<std::uint32_t> task_node;
  std::vector<double> task_flops, task_speed;  // flops and flops per second of one core
  std::vector<std::vector<std::uint32_t>> task_predecessors;  // tasks of the same node, in submission order
  std::vector<std::vector<std::uint32_t>> task_sends;  // transfers sent when the task ends
  std::vector<Transfer> transfers;
  std::vector<std::uint32_t> initial_sends;  // transfers of initial values, by owner then STF order
};

// What the STF rules need of one data handle while the submission is read.
struct HandleState {
  std::uint64_t bytes = 0;
  std::uint32_t node = 0;  // where its current version is (produced, or the owner's initial value)
  std::uint32_t last_writer = kNone;
  std::vector<std::uint32_t> readers;  // of the current version
  std::vector<std::pair<std::uint32_t, std::uint32_t>> copies;  // (node, transfer) of the current version
  std::vector<std::uint32_t> unclaimed_sends;  // sends of any version whose next writer on their source is unknown
};

class GraphReader {
public:
  GraphReader(std::string file, const Options& options) : file_(std::move(file)), options_(options) {}

  Dag read() {
    std::ifstream in(file_);
    if (!in) throw InputError(file_ + ": cannot read this file");
    Json document;
    try {
      document = Json::parse(in);
    } catch (const Json::exception& error) {
      throw InputError(file_ + ": not JSON: " + error.what());
    }
    if (!document.is_object()) fail("", "expected an object (the ftsim-graph format)");
    dag_.nodes = static_cast<std::uint32_t>(integer(document, "/nodes", 1, 1 << 24));
    read_kernels(document);
    read_data(document);
    read_submission(document);
    // The initial values' transfers as ftsim starts them: by owner node, then in STF order.
    std::stable_sort(initial_by_owner_.begin(), initial_by_owner_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [owner, x] : initial_by_owner_) dag_.initial_sends.push_back(x);
    return std::move(dag_);
  }

private:
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const {
    throw InputError(file_ + ": " + (pointer.empty() ? "" : pointer + ": ") + message);
  }

  const Json& at(const Json& document, const std::string& pointer) const {
    const Json::json_pointer path(pointer);
    if (!document.contains(path)) fail(pointer, "missing");
    return document.at(path);
  }

  std::int64_t integer(const Json& document, const std::string& pointer, std::int64_t min, std::int64_t max) const {
    const Json& value = at(document, pointer);
    if (!value.is_number_integer() || value.get<std::int64_t>() < min || value.get<std::int64_t>() > max) {
      fail(pointer, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", got " + value.dump());
    }
    return value.get<std::int64_t>();
  }

  const Json& array(const Json& document, const std::string& pointer) const {
    const Json& value = at(document, pointer);
    if (!value.is_array()) fail(pointer, "expected an array, got " + value.dump());
    return value;
  }

  double number(const Json& value, const std::string& pointer) const {
    if (!value.is_number() || !(value.get<double>() >= 0)) fail(pointer, "expected a number >= 0, got " + value.dump());
    return value.get<double>();
  }

  void read_kernels(const Json& document) {
    const Json& kernels = array(document, "/kernels");
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const std::string pointer = "/kernels/" + std::to_string(k);
      const Json& name = at(document, pointer + "/name");
      if (!name.is_string()) fail(pointer + "/name", "expected a string, got " + name.dump());
      const auto own = options_.kernel_gflops.find(name.get<std::string>());
      const double gflops = own != options_.kernel_gflops.end() ? own->second : options_.default_gflops;
      if (gflops == 0) fail(pointer + "/name", "no speed for kernel " + name.dump() + ": give --gflops G or --gflops KERNEL=G");
      kernel_index_[name.get<std::string>()] = static_cast<std::uint32_t>(kernel_flops_.size());
      const Json* flops = kernels[k].contains("flops") ? &kernels[k]["flops"] : nullptr;
      kernel_flops_.push_back(flops ? number(*flops, pointer + "/flops") : 0.0);
      kernel_speed_.push_back(gflops * 1e9);  // as ftsim's cost model: flops / (GFlop/s x 1e9)
    }
  }

  void read_data(const Json& document) {
    const Json& data = array(document, "/data");
    handles_.resize(data.size());
    for (std::size_t h = 0; h < data.size(); ++h) {
      const std::string pointer = "/data/" + std::to_string(h);
      const Json& bytes = at(document, pointer + "/bytes");
      if (!bytes.is_number_unsigned()) fail(pointer + "/bytes", "expected a byte count, got " + bytes.dump());
      handles_[h].bytes = bytes.get<std::uint64_t>();
      handles_[h].node = static_cast<std::uint32_t>(integer(document, pointer + "/owner", 0, dag_.nodes - 1));
    }
  }

  void read_submission(const Json& document) {
    const Json& submission = array(document, "/submission");
    for (std::size_t i = 0; i < submission.size(); ++i) {
      const std::string pointer = "/submission/" + std::to_string(i);
      const Json& item = submission[i];
      if (!item.is_object()) fail(pointer, "expected an object");
      if (item.contains("checkpoint")) continue;  // a candidate cut: nothing to run
      const Json& kernel_name = at(document, pointer + "/kernel");
      const auto kernel = kernel_name.is_string() ? kernel_index_.find(kernel_name.get<std::string>()) : kernel_index_.end();
      if (kernel == kernel_index_.end()) fail(pointer + "/kernel", "unknown kernel " + kernel_name.dump());
      const auto node = static_cast<std::uint32_t>(integer(document, pointer + "/node", 0, dag_.nodes - 1));
      const double flops = item.contains("flops") ? number(item["flops"], pointer + "/flops") : kernel_flops_[kernel->second];
      accesses_.clear();
      const Json& access_list = array(document, pointer + "/access");
      for (std::size_t a = 0; a < access_list.size(); ++a) {
        const std::string access_pointer = pointer + "/access/" + std::to_string(a);
        const Json& pair = access_list[a];
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string()) fail(access_pointer, "expected [mode, data index]");
        const std::string mode = pair[0].get<std::string>();
        if (mode != "R" && mode != "W" && mode != "RW") fail(access_pointer + "/0", "expected \"R\", \"W\" or \"RW\"");
        if (!pair[1].is_number_unsigned() || pair[1].get<std::uint64_t>() >= handles_.size()) {
          fail(access_pointer + "/1", "expected a data index below " + std::to_string(handles_.size()) + ", got " + pair[1].dump());
        }
        add_access(pair[1].get<std::uint32_t>(), mode != "W", mode != "R");
      }
      add_task(node, flops, kernel_speed_[kernel->second]);
    }
  }

  // Two accesses of a task to one handle are one access of both modes (as in ftsim's STF builder).
  void add_access(std::uint32_t handle, bool reads, bool writes) {
    for (Access& a : accesses_) {
      if (a.handle != handle) continue;
      a.reads = a.reads || reads;
      a.writes = a.writes || writes;
      return;
    }
    accesses_.push_back({handle, reads, writes});
  }

  void add_task(std::uint32_t node, double flops, double speed) {
    const auto task = static_cast<std::uint32_t>(dag_.task_node.size());
    dag_.task_node.push_back(node);
    dag_.task_flops.push_back(flops);
    dag_.task_speed.push_back(speed);
    dag_.task_sends.emplace_back();
    predecessors_.clear();
    auto local = [&](std::uint32_t other) { return other != kNone && other != task && dag_.task_node[other] == node; };
    for (const Access& a : accesses_) {
      HandleState& h = handles_[a.handle];
      if (a.reads) {
        if (local(h.last_writer)) predecessors_.push_back(h.last_writer);
        if (h.node != node) receive(h, task, node);
      }
      if (!a.writes) {
        h.readers.push_back(task);
        continue;
      }
      if (local(h.last_writer)) predecessors_.push_back(h.last_writer);
      for (std::uint32_t reader : h.readers) {
        if (local(reader)) predecessors_.push_back(reader);
      }
      // This task may not overwrite what its node is still sending of the handle.
      auto claimed = std::remove_if(h.unclaimed_sends.begin(), h.unclaimed_sends.end(), [&](std::uint32_t x) {
        if (dag_.transfers[x].source != node) return false;
        dag_.transfers[x].held_writer = task;
        return true;
      });
      h.unclaimed_sends.erase(claimed, h.unclaimed_sends.end());
      h.readers.clear();
      h.copies.clear();  // a new version: the copies of the old one serve no reader
      h.last_writer = task;
      h.node = node;
    }
    std::sort(predecessors_.begin(), predecessors_.end());
    predecessors_.erase(std::unique(predecessors_.begin(), predecessors_.end()), predecessors_.end());
    dag_.task_predecessors.push_back(predecessors_);
  }

  // The task reads the current version of a handle held elsewhere: the transfer that brings it to
  // the task's node, new unless an earlier reader there caused it.
  void receive(HandleState& h, std::uint32_t task, std::uint32_t node) {
    for (const auto& [holder, transfer] : h.copies) {
      if (holder != node) continue;
      dag_.transfers[transfer].consumers.push_back(task);
      return;
    }
    const auto x = static_cast<std::uint32_t>(dag_.transfers.size());
    dag_.transfers.push_back({h.node, node, h.bytes + options_.envelope, h.last_writer, {task}});
    h.copies.emplace_back(node, x);
    h.unclaimed_sends.push_back(x);
    if (h.last_writer == kNone) {
      initial_by_owner_.emplace_back(h.node, x);
    } else {
      dag_.task_sends[h.last_writer].push_back(x);
    }
  }

  struct Access {
    std::uint32_t handle;
    bool reads, writes;
  };
  std::string file_;
  const Options& options_;
  Dag dag_;
  std::map<std::string, std::uint32_t> kernel_index_;
  std::vector<double> kernel_flops_, kernel_speed_;
  std::vector<HandleState> handles_;
  std::vector<Access> accesses_;
  std::vector<std::uint32_t> predecessors_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> initial_by_owner_;
};

// ----------------------------------------------------------------------------- the platform

// As ftsim's star and cluster topologies (sim/simgrid/platform.cpp): host node-i with its cores,
// an up and a down link of its own, and the backbone every transfer crosses if there is one.
std::vector<sg4::Host*> build_platform(const Options& o, std::uint32_t nodes, double host_speed) {
  auto* zone = sg4::create_star_zone("ftsim");
  const sg4::Link* backbone = nullptr;
  if (o.backbone_bandwidth > 0) backbone = zone->create_link("backbone", o.backbone_bandwidth)->set_latency(o.backbone_latency)->seal();
  std::vector<sg4::Host*> hosts;
  for (std::uint32_t n = 0; n < nodes; ++n) {
    const std::string name = "node-" + std::to_string(n);
    sg4::Host* host = zone->create_host(name, host_speed)->set_core_count(o.cores)->seal();
    const sg4::Link* up = zone->create_link(name + "_up", o.bandwidth)->set_latency(o.latency)->seal();
    const sg4::Link* down = zone->create_link(name + "_down", o.bandwidth)->set_latency(o.latency)->seal();
    std::vector<sg4::LinkInRoute> out{sg4::LinkInRoute{up}}, in;
    if (backbone) {
      out.emplace_back(backbone);
      in.emplace_back(backbone);
    }
    in.emplace_back(down);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, out, false);
    zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, in, false);
    hosts.push_back(host);
  }
  zone->seal();
  return hosts;
}

// ----------------------------------------------------------------------------- the run

// The activities, all created before the run as SimGrid's DAG examples (and its DOT and DAX loaders)
// do. SimGrid 3.32 completes and releases only the activities of maestro (EngineImpl::
// handle_ended_actions), lists each with maestro from its creation, and takes it out of that list
// as it ends in time linear in the list (ExecImpl::post, CommImpl::finish: a std::list::remove;
// SimGrid 3.34 made it a set). With the whole graph listed, a run takes time quadratic in the
// graph's size: docs/benchmarks.md gives the share of that scan.
class DagRun {
public:
  DagRun(Dag dag, std::vector<sg4::Host*> hosts, double host_speed)
      : dag_(std::move(dag)), hosts_(std::move(hosts)), host_speed_(host_speed) {
    running_.assign(dag_.nodes, 0);
    most_running_.assign(dag_.nodes, 0);
    comm_start_.assign(dag_.transfers.size(), 0);
    comm_end_.assign(dag_.transfers.size(), 0);
  }

  void create() {
    const std::size_t tasks = dag_.task_node.size(), transfers = dag_.transfers.size();
    execs_.resize(tasks);
    for (std::uint32_t t = 0; t < tasks; ++t) {
      const double speed = dag_.task_speed[t];
      const double amount = speed == host_speed_ ? dag_.task_flops[t] : dag_.task_flops[t] / speed * host_speed_;
      execs_[t] = sg4::Exec::init();
      execs_[t]->set_flops_amount(amount)->set_host(hosts_[dag_.task_node[t]]);
      execs_[t]->set_data(tag(t, false));
    }
    comms_.resize(transfers);
    for (std::uint32_t x = 0; x < transfers; ++x) {
      const Transfer& transfer = dag_.transfers[x];
      comms_[x] = sg4::Comm::sendto_init(hosts_[transfer.source], hosts_[transfer.destination]);
      comms_[x]->set_payload_size(std::max<std::uint64_t>(transfer.bytes, 1));
      comms_[x]->set_data(tag(x, true));
      for (std::uint32_t consumer : transfer.consumers) comms_[x]->add_successor(execs_[consumer]);
      if (transfer.held_writer != kNone) comms_[x]->add_successor(execs_[transfer.held_writer]);
    }
    for (std::uint32_t t = 0; t < tasks; ++t) {
      for (std::uint32_t p : dag_.task_predecessors[t]) execs_[p]->add_successor(execs_[t]);
    }
    // SimGrid releases an activity's successors last added first: a task's sends go out in ftsim's
    // order (the transfer plan's), then the tasks it enables start (timed apart by the CPU model).
    for (std::uint32_t t = 0; t < tasks; ++t) {
      const auto& sends = dag_.task_sends[t];
      for (auto x = sends.rbegin(); x != sends.rend(); ++x) execs_[t]->add_successor(comms_[*x]);
    }
  }

  void start() {
    instance_ = this;
    sg4::Exec::on_start_cb([](const sg4::Exec& exec) { instance_->on_exec_start(exec); });
    sg4::Activity::on_completion_cb([](const sg4::Activity& activity) { instance_->on_completion(activity); });
    // The initial values leave at time 0 in ftsim's order; the other activities start when their
    // dependencies are solved.
    for (std::uint32_t x : dag_.initial_sends) comms_[x]->vetoable_start();
    for (std::uint32_t x = 0; x < comms_.size(); ++x) {
      if (dag_.transfers[x].producer != kNone) comms_[x]->vetoable_start();
    }
    for (const sg4::ExecPtr& exec : execs_) exec->vetoable_start();
  }

  std::uint64_t completed() const { return completed_; }
  std::uint32_t most_execs_at_once() const { return *std::max_element(most_running_.begin(), most_running_.end()); }

  // Messages that ended before one sent earlier on their channel (ftsim would deliver them after it).
  std::uint64_t fifo_overtakes() const {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::uint32_t>> channels;
    for (std::uint32_t x = 0; x < dag_.transfers.size(); ++x) {
      channels[{dag_.transfers[x].source, dag_.transfers[x].destination}].push_back(x);
    }
    std::uint64_t overtakes = 0;
    for (auto& [channel, sent] : channels) {
      std::stable_sort(sent.begin(), sent.end(), [this](std::uint32_t a, std::uint32_t b) { return comm_start_[a] < comm_start_[b]; });
      double latest_end = 0;
      for (std::uint32_t x : sent) {
        overtakes += comm_end_[x] < latest_end;
        latest_end = std::max(latest_end, comm_end_[x]);
      }
    }
    return overtakes;
  }

private:
  // An activity's data: its index + 1, the low bit telling a Comm.
  static void* tag(std::uint32_t index, bool comm) { return reinterpret_cast<void*>((std::uintptr_t{index} << 1 | comm) + 1); }
  static std::uintptr_t untag(const sg4::Activity& activity) { return reinterpret_cast<std::uintptr_t>(activity.get_data<void>()) - 1; }

  void on_exec_start(const sg4::Exec& exec) {
    const std::uint32_t node = dag_.task_node[untag(exec) >> 1];
    most_running_[node] = std::max(most_running_[node], ++running_[node]);
  }

  void on_completion(const sg4::Activity& activity) {
    const std::uintptr_t value = untag(activity);
    ++completed_;
    if (value & 1) {
      comm_start_[value >> 1] = activity.get_start_time();  // (SimGrid 3.32 defines no Comm::on_start)
      comm_end_[value >> 1] = sg4::Engine::get_clock();
    } else {
      --running_[dag_.task_node[value >> 1]];
    }
  }

  Dag dag_;
  std::vector<sg4::Host*> hosts_;
  double host_speed_;
  std::vector<sg4::ExecPtr> execs_;
  std::vector<sg4::CommPtr> comms_;
  std::vector<std::uint32_t> running_, most_running_;  // Execs per host
  std::vector<double> comm_start_, comm_end_;
  std::uint64_t completed_ = 0;
  static DagRun* instance_;
};

DagRun* DagRun::instance_ = nullptr;

int run(const Options& options) {
  const auto setup_start = std::chrono::steady_clock::now();
  GraphReader reader(options.graph, options);
  Dag dag = reader.read();
  const std::size_t tasks = dag.task_node.size(), transfers = dag.transfers.size();
  const std::uint32_t nodes = dag.nodes;

  // One speed for every kernel: the hosts run at it and an Exec is its task's flops, so SimGrid
  // times it as ftsim does (flops / speed). Otherwise the hosts run at 1 GFlop/s and an Exec is its
  // task's seconds x 1e9 flops (within an ulp of ftsim's time).
  const bool one_speed = std::all_of(dag.task_speed.begin(), dag.task_speed.end(),
                                     [&](double s) { return s == dag.task_speed.front(); });
  const double host_speed = one_speed && tasks > 0 ? dag.task_speed.front() : 1e9;

  int argc = 2;
  char name[] = "s4u_dag";
  char quiet[] = "--log=root.thresh:critical";
  char* engine_argv[] = {name, quiet, nullptr};
  sg4::Engine engine(&argc, engine_argv);
  sg4::Engine::set_config("network/model:" + options.model);
  sg4::Engine::set_config(std::string("network/optim:") + (options.solver == "full" ? "Full" : "Lazy"));
  DagRun dag_run(std::move(dag), build_platform(options, nodes, host_speed), host_speed);
  dag_run.create();
  dag_run.start();
  const double setup_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();

  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (dag_run.completed() != tasks + transfers) {
    std::fprintf(stderr, "s4u_dag: %llu of %zu activities completed\n",
                 static_cast<unsigned long long>(dag_run.completed()), tasks + transfers);
    return 1;
  }
  const std::uint32_t most_running = dag_run.most_execs_at_once();
  const Json out = {{"tasks", tasks},
                    {"transfers", transfers},
                    {"activities", dag_run.completed()},
                    {"makespan", sg4::Engine::get_clock()},
                    {"wall_seconds", wall},
                    {"setup_seconds", setup_seconds},
                    {"activities_per_second", wall > 0 ? double(dag_run.completed()) / wall : 0.0},
                    {"cores", options.cores},
                    {"most_execs_at_once", most_running},
                    {"cores_shared", most_running > std::uint32_t(options.cores)},
                    {"fifo_overtakes", dag_run.fifo_overtakes()}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_options(argc, argv));
  } catch (const InputError& error) {
    std::fprintf(stderr, "s4u_dag: error: %s\n", error.what());
    return 2;
  }
}
