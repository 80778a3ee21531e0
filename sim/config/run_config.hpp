#pragma once
// Config of a timed run (ftsim run): network and storage of the platform, failures, protocol
// and run options. Loaded by load_config() with the rest of the config.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "json_reader.hpp"
#include "prediction_config.hpp"

namespace ftsim::config {

enum class Topology { star, cluster, fat_tree, torus };
// SimGrid's network models (its network/model setting). LV08, SimGrid's default, multiplies
// latencies by 13.01 and bandwidths by 0.97; CM02 simulates the configured values.
enum class NetworkModel { lv08, cm02, smpi, ib };
// How messages contend (/platform/network/contention). flows: SimGrid's fluid model, every
// transfer a flow sharing the links of its route with the others (max-min solved at each start
// and end); nic: LogGP-style, each host's network interface sends one message at a time and
// receives one at a time, nothing else is shared (sim/simgrid/nic_queues.hpp).
enum class Contention { flows, nic };
// How SimGrid updates the max-min sharing of "flows" (its network/optim setting). Both solve the
// same sharing and differ only by rounding. lazy (SimGrid's default) touches only the flows that a
// step changes and keeps completion dates in a heap; full updates every flow in flight at every
// step, and wins when nearly every step starts or ends coupled flows (docs/configs.md#sharing-solver).
// grouped: ftsim's own solver of the same model (sim/simgrid/flow_sharing.hpp), flows of one route
// solved as one: its cost grows with the routes in use, not the flows in flight.
enum class SharingSolver { lazy, full, grouped };

struct NetworkConfig {
  NetworkModel model = NetworkModel::lv08;  // also applies to a /platform/xml file
  Contention contention = Contention::flows;
  SharingSolver solver = SharingSolver::grouped;  // "flows" only; "lazy" under "IB" unless given
  Topology topology = Topology::cluster;
  double bandwidth = 1.25e9;      // bytes/s of each node's link (10 Gb/s)
  double latency = 1e-6;          // seconds
  double backbone_bandwidth = 0;  // cluster: shared backbone; 0 = unlimited (crossbar)
  double backbone_latency = 0;
  std::string fat_tree;           // SimGrid fat-tree description "2;4,4;1,2;1,2"
  std::vector<std::uint32_t> torus;  // torus dimensions, product = nodes + spares + storage hosts
  double loopback_bandwidth = 0;  // same-node messages never go through the network
  std::uint64_t envelope = 32;    // bytes added to every message (StarPU-MPI's envelope)
  // Messages a process has in flight to one destination; the others wait in its send queue,
  // highest priority first (sim/node/send_queue.hpp). 0: unlimited, every message leaves at once.
  std::uint32_t send_window = 0;
};

const char* to_string(NetworkModel model);  // SimGrid's name: "LV08", "CM02", "SMPI", "IB"
const char* to_string(Contention contention);  // "flows", "nic"
const char* to_string(SharingSolver solver);   // "lazy", "full", "grouped"

// The size of a generated network: host places (fat-tree leaves, torus positions; a place
// without a host of ours gets an idle filler host), switches and links, each a SimGrid object.
// Saturates at 2^62 instead of overflowing.
struct TopologySize {
  std::uint64_t places = 0, switches = 0, links = 0;
};
TopologySize topology_size(const NetworkConfig& network, std::uint64_t hosts);

// Fat-tree and torus places, leaves and switches: at most 4 Mi each (every one a SimGrid object
// of a few KB; ftsim needs one per host).
inline constexpr std::uint64_t kMaxTopologyPlaces = std::uint64_t(1) << 22;

struct StorageConfig {
  std::uint32_t hosts = 0;    // stable-storage servers (0: none)
  double bandwidth = 1e9;     // bytes/s per server
  double latency = 1e-5;
};

// /platform/local_storage: each node's own storage (an SSD, a RAM disk): what survives a process
// failure of the node but not the node's failure. Absent: the nodes have none.
struct LocalStorageConfig {
  bool present = false;
  double bandwidth = 0;  // bytes/s a node reads or writes
  double latency = 0;
};

enum class FailureModel { none, list, exponential, weibull, trace, log };

inline constexpr double kMinWeibullShape = 0.1;
inline constexpr double kMaxWeibullShape = 100;

// What a failure destroys (/failures/classes): one node (its processes, its memory, its local
// storage), every node of its group (/platform/group_size: a rack, a switch, a power domain), the
// whole job, or one process only (its memory: the node and its local storage survive, and the
// process restarts in place without a spare).
enum class FailureClass : std::uint8_t { node, group, job, process };
inline constexpr std::size_t kFailureClasses = 4;
const char* failure_class_name(FailureClass kind);

// /failures/burst: a failure raises the failure rate of the other nodes of its group by `factor`
// for `window` seconds (failures that strike together, as in LANL and Titan logs).
struct FailureBurst {
  double factor = 1;
  double window = 0;
};

struct FailureEvent {
  double time = 0;
  std::uint32_t node = 0;
  // Instead of a time: the node fails once it has completed this many task executions (0: use
  // the time). Reproducible where times are not (the MPI backend runs in wall-clock time).
  std::uint64_t after_tasks = 0;
  // Seconds until a spare takes the rank, from a failure log's repair time; < 0: /failures/downtime.
  double downtime = -1;
  FailureClass kind = FailureClass::node;
};

struct FailureConfig {
  FailureModel model = FailureModel::none;
  std::vector<FailureEvent> events;  // list (and trace, once read)
  double mtbf = 0;                    // per-node mean time between failures (exponential, weibull)
  double shape = 1;                   // weibull shape k
  std::string trace_file;              // trace and log
  std::string log_note;                // log: how many failures were kept and dropped, and why
  double downtime = 0;                // until a spare takes the failed rank
  double detection = 0;               // until survivors are notified
  std::uint32_t max_failures = 1000000;  // stop injecting after this many
  // Renewal models only: the failures drawn are conditioned on a first failure (of any machine)
  // before this date, seconds; > 0 when set. The rare-event estimator's stratum (docs/advise.md):
  // the run is weighted by that event's probability (FailureSchedule::condition_probability).
  double first_before = 0;
  // Renewal models: every node new at time 0 (false), or the job starting at a random time of the
  // nodes' lives (true, /failures/age "stationary"): each node's first failure from the renewal
  // process's equilibrium law (the same as new for exponential failures).
  bool stationary = false;
  std::optional<PredictionConfig> prediction;  // a failure predictor and proactive migration
  // Renewal models: the share of failures of each class (indexed by FailureClass; sums to 1).
  std::array<double, kFailureClasses> class_shares{1, 0, 0, 0};
  std::optional<FailureBurst> burst;  // exponential model only
  std::uint32_t group_size = 0;       // /platform/group_size, copied for the failure schedule
};

// /protocol: its id and its block as written. Each protocol owns its block: it reads, validates
// and documents its own keys (protocols/registry.hpp: load_config checks the block).
struct ProtocolConfig {
  std::string type = "none";
  Json block = Json{{"type", "none"}};
};

struct RunConfig {
  bool reference = false;            // also run failure-free with protocol none, report overheads
  std::optional<double> time_limit;  // simulated seconds; default: derived from the graph
  double wall_limit = 3600;          // wall-clock seconds of a simulation; 0: none
};

}  // namespace ftsim::config

#include "json_reader.hpp"

namespace ftsim::config {

// Readers of the run sections (used by load_config_json).
NetworkConfig read_network(JsonReader reader);
StorageConfig read_storage(JsonReader reader);
LocalStorageConfig read_local_storage(JsonReader reader);
// `group_size`: /platform/group_size (0: none), which the "group" class and bursts need.
FailureConfig read_failures(JsonReader reader, std::uint32_t nodes, std::uint32_t group_size, std::uint64_t seed,
                            const std::string& config_file);
struct CheckpointConfig;
ProtocolConfig read_protocol(JsonReader reader);
RunConfig read_run(JsonReader reader);

}  // namespace ftsim::config
