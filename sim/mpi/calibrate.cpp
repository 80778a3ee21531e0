#include "sim/mpi/calibrate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <thread>

#include <fmt/format.h>

#include "graphs/cost_model.hpp"
#include "protocols/registry.hpp"
#include "sim/config/config_error.hpp"
#include "graphs/apps/kernels/kernels.hpp"
#include "sim/mpi/mpi_run.hpp"
#include "sim/mpi/packet.hpp"
#include "sim/mpi/transport.hpp"

namespace ftsim::mpi {

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0.0 : n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Repetitions of one measure: at least `least`, until `budget` seconds of measures or `most`.
constexpr int kLeast = 5, kMost = 2000;
constexpr double kBudgetSeconds = 0.3;
constexpr int kRuns = 3;  // failure-free runs of the config that level the rates

// One kernel's median time on this rank: its first task, on buffers holding the initial values of
// the data it reads, restored before each repetition (POTRF must see the matrix, not its factor).
double time_kernel(const graphs::TaskGraph& graph, const graphs::kernels::KernelSet& set, graphs::TaskId t, double cost_seconds,
                   int& repetitions) {
  std::vector<graphs::kernels::Buffer> pristine, work;
  for (const graphs::Access& a : graph.accesses(t)) {
    graphs::kernels::Buffer b(graph.bytes(a.handle), 0);
    if (graphs::reads(a.mode)) set.initial(a.handle, b);
    pristine.push_back(std::move(b));
  }
  work = pristine;
  std::vector<std::span<std::uint8_t>> spans;
  for (auto& b : work) spans.emplace_back(b);
  std::vector<double> samples;
  double spent = 0;
  while (samples.size() < std::size_t(kLeast) || (spent < kBudgetSeconds && samples.size() < std::size_t(kMost))) {
    for (std::size_t i = 0; i < work.size(); ++i) std::memcpy(work[i].data(), pristine[i].data(), work[i].size());
    const auto start = Clock::now();
    set.execute(t, spans, cost_seconds);
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    samples.push_back(s);
    spent += s;
  }
  repetitions = static_cast<int>(samples.size());
  return median(samples);
}

// A data message of `bytes` through the path of a run's messages: encoded into a packet with its
// content inline, sent by the transport, polled for as a rank's main loop polls (backing off from
// 20 to 200 us while nothing arrives, rank_process.cpp), decoded.
void send_message(Transport& transport, int to, const node::ContentRef& content) {
  HostMessage outgoing;
  outgoing.message.is_data = true;
  outgoing.message.content = content;
  outgoing.message.bytes = content->size();
  transport.send(to, encode_packet(outgoing, 128 + content->size()));
}

node::Message receive_message(Transport& transport) {
  std::vector<std::uint64_t> released;
  int from = 0;
  node::Bytes packet;
  for (std::uint32_t idle = 0;; ++idle) {
    transport.progress(released);
    if (transport.receive(from, packet)) break;
    std::this_thread::sleep_for(std::chrono::microseconds(std::min<std::uint32_t>(20u << std::min(idle, 4u), 200)));
  }
  node::WireReader in(packet.data() + 1, packet.size() - 1);  // after the packet kind
  return read_packet<HostMessage>(in).message;
}

// Half the median round trip of a `bytes` data message between ranks 0 and 1 (the others wait),
// through a run's message path.
double ping_pong(MPI_Comm comm, Transport& transport, int rank, std::uint64_t bytes) {
  const auto content = std::make_shared<const node::Content>(bytes, std::uint8_t{1});
  std::vector<double> samples;
  double spent = 0;
  int go = 1;
  for (int i = 0; go; ++i) {
    MPI_Barrier(comm);  // each round starts together (a rank late from the previous one)
    const double start = MPI_Wtime();
    if (rank == 0) {
      send_message(transport, 1, content);
      receive_message(transport);
    } else if (rank == 1) {
      const node::Message m = receive_message(transport);
      send_message(transport, 0, m.content);
    }
    const double round_trip = MPI_Wtime() - start;
    if (i >= 2) {  // two warm-up rounds
      samples.push_back(round_trip / 2);
      spent += round_trip;
    }
    go = samples.size() < std::size_t(kLeast) || (spent < kBudgetSeconds && samples.size() < std::size_t(kMost));
    MPI_Bcast(&go, 1, MPI_INT, 0, comm);
  }
  return median(samples);
}

bool synthetic(config::ApplicationType type) {
  return type != config::ApplicationType::cholesky && type != config::ApplicationType::stencil &&
         type != config::ApplicationType::cg;
}

}  // namespace

double KernelTiming::mean_seconds() const {
  return std::accumulate(seconds.begin(), seconds.end(), 0.0) / double(std::max<std::size_t>(seconds.size(), 1));
}

double KernelTiming::gflops() const {
  const double mean = mean_seconds();
  return mean > 0 ? flops / mean / 1e9 : 0.0;
}

Calibration calibrate(const config::Config& config, const graphs::TaskGraph& graph) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size != ranks_needed(graph) || graph.node_count() < 2) {
    throw config::ConfigError(config.file, "/platform/nodes",
                              fmt::format("calibrate runs on the ranks of a run, one per node plus the driver's, and "
                                          "needs 2 nodes or more: {} nodes need mpirun -np {}, this job has {} ranks",
                                          graph.node_count(), ranks_needed(graph), size));
  }
  Calibration c;
  c.ranks = size;
  c.synthetic = synthetic(config.application.type);
  const bool node_rank = rank < driver_rank(graph);
  if (!c.synthetic) {
    std::unique_ptr<graphs::kernels::KernelSet> set;
    try {
      set = graphs::kernels::KernelSet::make(config, graph);
    } catch (const graphs::kernels::KernelError& e) {
      throw config::ConfigError(config.file, "/application", e.what());
    }
    // Each kernel's first task, in submission order.
    std::vector<graphs::TaskId> first(graph.kernel_count(), graphs::kNone);
    for (graphs::TaskId t = 0; t < graph.task_count(); ++t) {
      if (first[graph.kernel(t)] == graphs::kNone) first[graph.kernel(t)] = t;
    }
    for (graphs::KernelId k = 0; k < graph.kernel_count(); ++k) {
      if (first[k] == graphs::kNone) continue;
      KernelTiming timing;
      timing.id = k;
      timing.kernel = graph.kernel_name(k);
      timing.sample = first[k];
      timing.flops = graph.flops(first[k]);
      double mine = 0;
      MPI_Barrier(comm);  // every node rank times the same kernel at once: a loaded machine
      try {
        if (node_rank) mine = time_kernel(graph, *set, first[k], 0.0, timing.repetitions);
      } catch (const graphs::kernels::KernelError& e) {
        throw config::ConfigError(config.file, "/application",
                                  fmt::format("kernel {} cannot be timed on the initial data: {}", timing.kernel, e.what()));
      }
      timing.seconds.resize(size);
      MPI_Allgather(&mine, 1, MPI_DOUBLE, timing.seconds.data(), 1, MPI_DOUBLE, comm);
      timing.seconds.pop_back();  // the driver's rank timed nothing
      c.kernels.push_back(std::move(timing));
    }
    // Step 2: the level of the rates, from a failure-free run of the config on these ranks.
    config::Config free = config;
    free.protocol = config::ProtocolConfig{};
    free.failures = config::FailureConfig{};
    const graphs::CostModel cost(config, graph);
    const MpiRunSpec spec{free, graph, cost, *set, protocols::make_protocol_factory(free, graph), false, false, {}};
    // Three runs, their median: one run's core time moves by tens of percents on a shared machine.
    std::vector<double> busy, makespans;
    for (int r = 0; r < kRuns; ++r) {
      const MpiRunResult run = run_on_ranks(spec, comm);
      double measured = 0;
      for (const auto& node : run.metrics.nodes) measured += node.busy_seconds;
      double figures[2] = {measured, run.metrics.makespan};
      MPI_Bcast(figures, 2, MPI_DOUBLE, driver_rank(graph), comm);
      busy.push_back(figures[0]);
      makespans.push_back(figures[1]);
    }
    std::vector<double> rate(graph.kernel_count(), 0.0);  // flops per second, by kernel
    for (const KernelTiming& k : c.kernels) rate[k.id] = k.gflops() * 1e9;
    double predicted = 0;  // the run's kernel core time at the micro-benchmark's rates
    for (graphs::TaskId t = 0; t < graph.task_count(); ++t) {
      if (rate[graph.kernel(t)] > 0) predicted += graph.flops(t) / rate[graph.kernel(t)];
    }
    c.run_busy_seconds = median(busy);
    c.run_makespan = median(makespans);
    c.run_scale = c.run_busy_seconds > 0 ? predicted / c.run_busy_seconds : 1.0;
  }
  {
    MPI_Comm own;
    MPI_Comm_dup(comm, &own);
    {
      Transport transport(own);
      for (std::uint64_t bytes : {8ull, 64ull, 512ull, 4096ull, 32768ull, 262144ull, 2097152ull, 8388608ull}) {
        c.ping.push_back({bytes, ping_pong(comm, transport, rank, bytes)});
      }
      transport.finish();
    }
    MPI_Comm_free(&own);
  }
  c.latency = c.ping.front().one_way;
  const PingPoint& a = c.ping[c.ping.size() - 2];
  const PingPoint& b = c.ping.back();
  const double slope = (b.one_way - a.one_way) / double(b.bytes - a.bytes);
  c.bandwidth = slope > 0 ? 1.0 / slope : double(b.bytes) / b.one_way;
  return c;
}

nlohmann::json calibrated_config(const config::Config& config, const Calibration& c) {
  nlohmann::json doc = config.document;
  doc.erase("$schema");
  nlohmann::json& platform = doc["platform"];
  if (!c.synthetic) {
    nlohmann::json speeds = nlohmann::json::object();
    for (const KernelTiming& k : c.kernels) speeds[k.kernel] = std::round(k.gflops() * c.run_scale * 1e4) / 1e4;
    platform["core_gflops"] = speeds;
  }
  // A message crosses its sender's link and its receiver's: each link has half the one-way latency.
  platform.erase("xml");
  platform["network"] = {{"topology", "cluster"},
                         {"model", "CM02"},
                         {"bandwidth", std::round(c.bandwidth)},   // bytes per second
                         {"latency", c.latency / 2}};             // seconds
  doc["description"] = fmt::format("{} Platform measured by `ftsim calibrate --backend mpi` on {} ranks: one-way latency {:.3g} us, "
                                   "bandwidth {:.4g} MB/s{}.",
                                   doc.value("description", std::string()), c.ranks, c.latency * 1e6, c.bandwidth / 1e6,
                                   c.synthetic ? "; synthetic kernels: core speeds kept" : "");
  return doc;
}

nlohmann::json calibration_json(const Calibration& c) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelTiming& k : c.kernels) {
    kernels.push_back({{"kernel", k.kernel}, {"task", k.sample}, {"flops", k.flops}, {"seconds_per_rank", k.seconds},
                       {"repetitions_rank0", k.repetitions}, {"gflops", k.gflops()}});
  }
  nlohmann::json ping = nlohmann::json::array();
  for (const PingPoint& p : c.ping) ping.push_back({{"bytes", p.bytes}, {"one_way_seconds", p.one_way}});
  return {{"ranks", c.ranks},
          {"run_scale", c.run_scale},
          {"run_busy_seconds", c.run_busy_seconds},
          {"run_makespan_seconds", c.run_makespan},
          {"kernels", kernels},
          {"synthetic_kernels", c.synthetic},
          {"ping_pong", ping},
          {"latency_seconds", c.latency},
          {"bandwidth_bytes_per_second", c.bandwidth},
          {"method", "every node rank times each kernel's first task at once (median of its repetitions, the mean "
                     "over ranks), the rates scaled by predicted / measured core time of failure-free runs of the "
                     "config on the ranks (the median of 3); ranks 0 and 1 ping-pong (half the median round trip), "
                     "each message a run's data message, encoded, sent and polled for as ftsim-mpi does; latency: "
                     "8 bytes; bandwidth: the slope between 2 MiB and 8 MiB (docs/mpi.md#calibration)"}};
}

}  // namespace ftsim::mpi
