#pragma once
// A protocol module: everything one folder protocols/<id>/ brings to ftsim, in one constant
// table that its module.cpp defines as `extern const ProtocolModule <id>_module`. The build lists
// the folders (protocols/CMakeLists.txt): adding a protocol is adding a folder with a module.cpp,
// its sources and its schema.json (the JSON Schema of its /protocol block, which
// scripts/protocol_schema.py merges into configs/schema/ftsim.schema.json). Nothing else in the
// runtime, the world, the backends, the CLI or the campaigns names a protocol.
#include <random>
#include <span>
#include <string>
#include <vector>

#include "graphs/task_graph.hpp"
#include "sim/config/config.hpp"
#include "sim/config/json_reader.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_metrics.hpp"
#include "sim/node/run_metrics.hpp"

namespace ftsim::protocols {

// One seeded scenario of the failure campaigns (tests/campaign, bench/): what the protocol adds
// to the campaign's base config (its /protocol block, and any other section it needs, merged at
// the top level), and whether the run may legitimately end "unrecoverable" (then the reason is
// checked by `unrecoverable_reason_ok`).
struct CampaignDraw {
  config::Json patch;
  bool may_be_unrecoverable = false;
};

struct ProtocolModule {
  const char* id;       // the value of /protocol/type
  const char* summary;  // one line, for `ftsim validate` and the docs
  // Reads and checks the /protocol block (and the sections it depends on, e.g. /checkpoints);
  // throws config::ConfigError naming the file and the JSON pointer; unknown keys are refused.
  void (*check)(const config::Config& config, config::JsonReader& block);
  // The protocol instance of each process (fresh per call). `config` has no /failures: a
  // protocol learns of failures only from notices.
  node::ProtocolFactory (*factory)(const config::Config& config, const graphs::TaskGraph& graph);
  // Its named metrics, by index (ProtocolCounters::add).
  std::span<const node::MetricDefinition> metrics;
  // --- the failure campaigns ---
  // The scenario of one seed; `makespan` is the failure-free makespan of the base config.
  CampaignDraw (*campaign)(std::mt19937_64& random, double makespan);
  // On an "unrecoverable" ending the campaign allowed: whether the stated reason is one the
  // protocol documents (null: any reason containing "unrecoverable").
  bool (*unrecoverable_reason_ok)(const std::string& reason);
  // Invariants of a completed run with failures, beyond the digest oracle (e.g. buddy: survivors
  // re-execute nothing outside the cascade of Lion 2022 §3.5); returns what is broken (null: none).
  std::vector<std::string> (*invariants)(const node::RunMetrics& metrics);
  // Whether the protocol draws anything from /seed with these options (e.g. random checkpoint
  // times); null: never. A sweep over seeds of a config that draws nothing at random is warned.
  bool (*draws_at_random)(const config::Config& config);
  // Why /checkpoint_data does not apply to it (it saves no checkpoint data: the section is then
  // accepted and ignored, and `ftsim validate`, the summary and results.json say so); null: the
  // protocol reduces what it saves with protocols/checkpoint_content.hpp.
  const char* no_checkpoint_data;
  // Whether a failure rolls every node back to the last committed checkpoint, whatever it struck
  // (global): the run then starts each checkpoint period afresh, which `ftsim estimate --long-job`
  // uses under exponential failures (sim/estimate/long_job.hpp, regenerative_estimate).
  bool rolls_back_to_commit = false;
};

// The `check` of a protocol without options: its block has nothing but "type".
inline void no_options(const config::Config&, config::JsonReader& block) { block.finish(); }

}  // namespace ftsim::protocols
