#pragma once
// Typed configuration of one ftsim experiment, loaded from JSON (see docs/configs.md and
// configs/schema/ftsim.schema.json, which must stay in sync with load_config()).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config_overrides.hpp"
#include "json_reader.hpp"
#include "perfmodel_file.hpp"
#include "run_config.hpp"

namespace ftsim::config {

enum class Precision { single_precision, double_precision };
inline std::uint32_t bytes_per_element(Precision p) { return p == Precision::single_precision ? 4 : 8; }

// --- Applications -----------------------------------------------------------------------

enum class CholeskyOrder { column, triangle };  // Lion 2020 Algorithm 2 / Algorithm 1

struct CholeskyConfig {
  std::uint32_t tiles = 0;      // NT: the matrix is NT x NT tiles (lower triangle stored)
  std::uint32_t tile_size = 0;  // b: a tile is b x b elements
  Precision precision = Precision::double_precision;
  CholeskyOrder order = CholeskyOrder::column;
  bool priorities = true;       // critical-path-first priorities (StarPU's Cholesky example)
};

struct StencilConfig {
  std::uint32_t tiles_x = 0, tiles_y = 0;          // tile grid
  std::uint32_t tile_size_x = 0, tile_size_y = 0;  // elements per tile along x and y
  std::uint32_t iterations = 0;
  Precision precision = Precision::double_precision;
};

struct CgConfig {
  std::uint32_t grid = 0;        // the Poisson problem is on a grid x grid mesh
  std::uint32_t blocks = 0;      // block rows of the matrix (and of every vector)
  std::uint32_t iterations = 0;
  Precision precision = Precision::double_precision;
  // /application/matrix: 0 for the 5-point Laplacian ("poisson"); R >= 1 for the (2R+1)^2-point
  // box matrix ({"type": "box", "radius": R}): (2R+1)^2 on the diagonal, -1 for every mesh
  // neighbour within R rows and R columns (denser rows, as NPB CG's; Cores 2015 Table 2).
  std::uint32_t box_radius = 0;
};

// The NAS kernels' patterns (nas_*) are those of Guermouche 2011 §V-E (graphs/apps/spmd.cpp says
// where each comes from).
enum class SpmdPattern { ring, halo2d, alltoall, tree, nas_mg, nas_lu, nas_ft, nas_cg, nas_bt };

struct SpmdConfig {
  SpmdPattern pattern = SpmdPattern::ring;
  std::uint32_t iterations = 0;
  std::uint64_t message_bytes = 0;  // bytes of each message of the pattern
  std::uint64_t state_bytes = 0;    // bytes of each rank's state
  double flops = 0;                 // compute per rank and iteration
};

struct JsonGraphConfig {
  std::string file;  // resolved relative to the config file
};

// A workflow file (wfformat, dot; docs/inputs.md#task-graphs): where its tasks run, their cost, the cuts.
enum class WorkflowPlacement { round_robin, distribution, file };
struct WorkflowFileConfig {
  std::string path;                  // resolved relative to the config file
  WorkflowPlacement placement = WorkflowPlacement::round_robin;
  double reference_gflops = 1;       // wfformat: flops = runtime x this x 1e9
  std::uint32_t cut_levels = 1;      // a candidate cut every K topological levels
};

enum class ApplicationType { cholesky, stencil, cg, spmd, json, wfformat, dot };
// A graph read from a file (json, wfformat, dot): no built-in kernels, no outer iterations.
inline bool is_graph_file(ApplicationType type) {
  return type == ApplicationType::json || type == ApplicationType::wfformat || type == ApplicationType::dot;
}

struct ApplicationConfig {
  ApplicationType type = ApplicationType::cholesky;
  CholeskyConfig cholesky;
  StencilConfig stencil;
  CgConfig cg;
  SpmdConfig spmd;
  JsonGraphConfig json;
  WorkflowFileConfig workflow;  // wfformat and dot
};

// --- Data distribution ------------------------------------------------------------------

enum class DistributionType { block_cyclic, block, explicit_map };

struct DistributionConfig {
  DistributionType type = DistributionType::block_cyclic;
  // block-cyclic: tile (i, j) -> ((i / block_rows) % P) * Q + (j / block_cols) % Q
  std::uint32_t P = 0, Q = 0;
  std::uint32_t block_rows = 1, block_cols = 1;
  // explicit: one node per data block, in the application's block order
  std::vector<std::uint32_t> owners;
  bool given = false;  // false: the application's documented default was used
};

// --- Platform ---------------------------------------------------------------------------

// Far beyond any machine (the largest have about 160000 nodes of at most a few hundred cores)
// yet bounded: every node is a SimGrid host and every core has its runtime state.
inline constexpr std::uint32_t kMaxNodes = 1 << 20;
inline constexpr std::uint32_t kMaxCoresPerNode = 1 << 16;

// /platform/kernel_models/<kernel>: the measured duration of a kernel, from a StarPU history
// model (perfmodel_file.hpp). The entry used is the one of `size` bytes if given, else the one
// whose flops are the kernel's (graphs/cost_model.cpp).
struct KernelModel {
  std::string file;
  std::optional<std::uint64_t> size;
  std::vector<PerfmodelEntry> entries;
};

struct PlatformConfig {
  std::uint32_t nodes = 0;
  std::uint32_t cores_per_node = 1;
  // Core speed per kernel name in GFlop/s; "default" applies to kernels not listed.
  std::map<std::string, double> core_gflops;
  std::optional<double> default_core_gflops;
  // Kernels whose duration comes from a StarPU performance model instead of a speed.
  std::map<std::string, KernelModel> kernel_models;
  NetworkConfig network;
  StorageConfig storage;
  LocalStorageConfig local_storage;  // /platform/local_storage
  std::string xml;             // a SimGrid platform file instead of the generated platform
  std::uint32_t spares = 0;    // spare nodes; with unlimited_spares a failed rank always returns
  bool unlimited_spares = true;
  // /platform/on_no_spare: what a failure does once no spare is left. "abort" ends the run
  // (exit 1); "shrink" re-hosts the failed rank on a surviving machine (sim/world/shrink.hpp).
  bool shrink_on_no_spare = false;
  // /platform/ranks_per_machine: ranks (virtual processes) each machine runs from the start,
  // machine m ranks m*k .. m*k+k-1 (over-decomposition, docs/shrink.md). `nodes` stays the ranks;
  // cores_per_node is a machine's cores, shared by its ranks; spares are machines.
  std::uint32_t ranks_per_machine = 1;
  std::uint32_t machines() const { return nodes / ranks_per_machine; }
  // /platform/group_size: nodes per failure group (a rack, a switch, a power domain): group g is
  // nodes g*size .. g*size+size-1 (the last may be smaller). 0: no groups. What /failures'
  // "group" class takes down, and where its bursts strike.
  std::uint32_t group_size = 0;
};

// --- Checkpoint placement and buddies ---------------------------------------------------

enum class CutPlacement { every, count };
enum class BuddyKind { next, next_in_row, next_in_column, explicit_list };

struct BuddyConfig {
  BuddyKind kind = BuddyKind::next;
  // "next" is (n + next_stride) mod N: the same rank of the next machine (/platform/ranks_per_machine).
  std::uint32_t next_stride = 1;
  std::vector<std::vector<std::uint32_t>> explicit_buddies;  // per node, its buddies

  // The buddies of node n of `nodes` on a grid of `q` columns, appended to `out`: the one rule
  // (graphs/buddy_mapping.hpp documents it), used by the mapping and by the config's checks.
  void append_buddies(std::uint32_t n, std::uint32_t nodes, std::uint32_t q, std::vector<std::uint32_t>& out) const {
    switch (kind) {
      case BuddyKind::next: out.push_back((n + next_stride) % nodes); break;
      case BuddyKind::next_in_row: out.push_back(n - n % q + (n + 1) % q); break;
      case BuddyKind::next_in_column: out.push_back((n + q) % nodes); break;
      case BuddyKind::explicit_list: out.insert(out.end(), explicit_buddies.at(n).begin(), explicit_buddies.at(n).end()); break;
    }
  }
};

struct CheckpointConfig {
  CutPlacement placement = CutPlacement::count;
  std::uint32_t every = 0;  // a checkpoint every K outer iterations
  std::uint32_t count = 0;  // C checkpoints spread over the submission
  BuddyConfig buddy;
  std::string pointer;      // JSON pointer of this entry, for later error messages
};

// --- Published figures to print beside ftsim's (reproduction configs under configs/papers/) ---

struct ReferenceVolumes {
  std::uint32_t checkpoints = 0;  // matches the row with this many checkpoints
  std::optional<double> blind, differential, cached;  // bytes per node
};

struct ReferenceConfig {
  std::string source;  // e.g. "Lion & Thibault 2020, Table I"
  std::optional<double> application_bytes_per_node;
  std::vector<ReferenceVolumes> volumes;
  std::optional<double> makespan;  // seconds, failure-free
};

// --- Checkpoint content (/checkpoint_data): smaller checkpoints (Cores 2015, Ch. 2) ------

// What an application's data looks like to a block-based checkpoint (blocks of
// /checkpoint_data/block_size bytes), for the simulation: the share of its blocks that are all
// zeros, the share of its blocks one write changes, and how much zstd shrinks the blocks that are
// stored. The MPI backend measures all three on the real buffers instead.
struct DataProfile {
  double zero_fraction = 0;       // blocks that are all zeros, 0 to 1
  double changed_fraction = 1;    // blocks a write changes, 0 to 1
  double compression_ratio = 1;   // stored bytes / compressed bytes, >= 1
};

struct CheckpointDataConfig {
  bool enabled = false;             // the section is present
  bool zero_blocks = false;         // an all-zero block is stored as a marker
  bool incremental = false;         // only the blocks changed since the previous checkpoint
  std::uint64_t block_size = 8192;  // bytes
  std::uint32_t full_every = 1;     // a full checkpoint every this many (incremental)
  bool zstd = false;
  int level = 3;                    // zstd level
  // /checkpoint_data/profile: overrides of the application's measured defaults, for every family
  // of data (its top-level keys) or per family (/profile/families/<name>, a handle family such as
  // "A" or "x" of cg); a key not given keeps the default.
  struct ProfileOverride {
    std::optional<double> zero_fraction, changed_fraction, compression_ratio;
  };
  ProfileOverride profile_all;
  std::map<std::string, ProfileOverride> profile_families;
  std::string profile_pointer;      // for errors found once the graph is built (an unknown family)
  // /checkpoint_data/throughput: bytes per second of one core (0: the measured default).
  double hash_throughput = 0, compress_throughput = 0, decompress_throughput = 0;
};

// --- The whole experiment ---------------------------------------------------------------

struct Config {
  std::string file;       // path it was loaded from ("" if built in memory)
  std::string name;       // "name" or the file's stem
  std::string description;
  std::uint64_t seed = 1;
  ApplicationConfig application;
  DistributionConfig distribution;
  PlatformConfig platform;
  // "checkpoints" may be one placement or a list of them (ftsim volumes reports each).
  std::vector<CheckpointConfig> checkpoints;
  std::optional<ReferenceConfig> reference;
  FailureConfig failures;
  ProtocolConfig protocol;
  CheckpointDataConfig checkpoint_data;
  RunConfig run;
  Json document;  // the config as written, echoed in results.json
};

// Loads and validates a config file; throws ConfigError (file + JSON pointer + expectation).
Config load_config(const std::string& path);
// Same, with command-line overrides set in the file's document (config_overrides.hpp): an error in
// an overridden key names the override, also one that `check` (a layer above's, e.g. the protocol
// block's) throws for the loaded config.
Config load_config(const std::string& path, const std::vector<ConfigOverride>& overrides,
                   void (*check)(const Config&) = nullptr);
// Same, from an in-memory document; `origin` names it in error messages.
Config load_config_json(const Json& document, const std::string& origin);

// The error for a /checkpoints/count that the outer iterations cannot hold.
std::string count_limit_message(std::uint64_t iterations, std::uint64_t count);

const char* to_string(ApplicationType type);
const char* to_string(CholeskyOrder order);
const char* to_string(SpmdPattern pattern);
const char* to_string(DistributionType type);
const char* to_string(BuddyKind kind);
const char* to_string(Precision precision);

}  // namespace ftsim::config
