#include "protocols/uncoordinated/unco_options.hpp"

#include <algorithm>
#include <string>

namespace ftsim::protocols::uncoordinated {

const char* to_string(Logging logging) {
  switch (logging) {
    case Logging::send_deterministic: return "send-deterministic";
    case Logging::none: return "none";
    case Logging::all: return "all";
  }
  return "?";
}

const char* to_string(Schedule schedule) {
  switch (schedule) {
    case Schedule::random: return "random";
    case Schedule::periodic: return "periodic";
    case Schedule::clusters: return "clusters";
  }
  return "?";
}

namespace {

// What the block says, before anything is derived from the graph.
struct Block {
  Logging logging = Logging::send_deterministic;
  Schedule schedule = Schedule::periodic;
  double period = 0;
  std::vector<double> offsets;                    // empty: spread
  std::vector<std::vector<std::uint32_t>> lists;  // clusters as node lists
  std::uint32_t cluster_count = 0;                // clusters as a number (METIS, or blocks)
  bool blocks = false;                            // /protocol/clustering: "blocks"
};

Block read_block(const config::Config& config, config::JsonReader block) {
  Block b;
  const std::uint32_t nodes = config.platform.nodes;
  block.expect_object();
  block.at("type").as_string();
  if (auto logging = block.find("logging")) {
    const std::string word = logging->as_choice({"send-deterministic", "none", "all"});
    b.logging = word == "none" ? Logging::none : word == "all" ? Logging::all : Logging::send_deterministic;
  }
  if (auto schedule = block.find("schedule")) {
    const std::string word = schedule->as_choice({"random", "periodic", "clusters"});
    b.schedule = word == "random" ? Schedule::random : word == "clusters" ? Schedule::clusters : Schedule::periodic;
  }
  if (!block.has("period")) block.fail("the uncoordinated protocol needs a \"period\": the time between two checkpoints of a node");
  b.period = block.at("period").as_positive_seconds();
  if (auto offsets = block.find("offsets")) {
    if (b.schedule == Schedule::random) offsets->fail("\"offsets\" are for the periodic and clusters schedules");
    if (offsets->is_string()) {
      offsets->as_choice({"spread"});
    } else {
      if (!offsets->is_array() || offsets->size() != nodes) {
        offsets->fail("expected \"spread\" or one duration per node (" + std::to_string(nodes) + ")");
      }
      for (std::size_t n = 0; n < nodes; ++n) b.offsets.push_back((*offsets)[n].as_seconds());
    }
  }
  if (auto clusters = block.find("clusters")) {
    if (b.schedule != Schedule::clusters) clusters->fail("\"clusters\" needs \"schedule\": \"clusters\"");
    if (clusters->is_number()) {
      b.cluster_count = static_cast<std::uint32_t>(clusters->as_int(1, nodes));
    } else {
      if (!clusters->is_array() || clusters->size() == 0) clusters->fail("expected a number of clusters or a list of node lists");
      std::vector<char> seen(nodes, 0);
      for (std::size_t c = 0; c < clusters->size(); ++c) {
        const config::JsonReader list = (*clusters)[c];
        if (!list.is_array() || list.size() == 0) list.fail("expected a non-empty list of nodes");
        b.lists.emplace_back();
        for (std::size_t i = 0; i < list.size(); ++i) {
          const auto node = static_cast<std::uint32_t>(list[i].as_int(0, std::int64_t(nodes) - 1));
          if (seen[node]) list[i].fail("node " + std::to_string(node) + " is in two clusters");
          seen[node] = 1;
          b.lists.back().push_back(node);
        }
      }
      for (std::uint32_t n = 0; n < nodes; ++n) {
        if (!seen[n]) clusters->fail("node " + std::to_string(n) + " is in no cluster");
      }
    }
  } else if (b.schedule == Schedule::clusters) {
    block.fail("the clusters schedule needs \"clusters\": a list of node lists, or a number of clusters (METIS)");
  }
  if (auto clustering = block.find("clustering")) {
    b.blocks = clustering->as_choice({"metis", "blocks"}) == "blocks";
    if (b.cluster_count == 0) clustering->fail("\"clustering\" says how to make a number of clusters: give \"clusters\" as a number");
  }
  if (config.platform.storage.hosts == 0) {
    block.fail("the uncoordinated protocol saves its checkpoints on stable storage: set /platform/storage/hosts to 1 or more");
  }
  block.finish();
  return b;
}

}  // namespace

void check_options(const config::Config& config, config::JsonReader block) { read_block(config, block); }

std::shared_ptr<const Options> make_options(const config::Config& config, const graphs::TaskGraph& graph) {
  const Block b = read_block(config, config::JsonReader(config.protocol.block, config.file, "/protocol"));
  auto options = std::make_shared<Options>();
  const std::uint32_t nodes = graph.node_count();
  options->logging = b.logging;
  options->schedule = b.schedule;
  options->period = b.period;
  options->seed = config.seed;
  options->content = content::make_settings(config, graph);
  options->cluster.assign(nodes, 0);
  if (b.schedule == Schedule::clusters) {
    if (!b.lists.empty()) {
      for (std::uint32_t c = 0; c < b.lists.size(); ++c) {
        for (std::uint32_t n : b.lists[c]) options->cluster[n] = c;
      }
      options->cluster_count = static_cast<std::uint32_t>(b.lists.size());
    } else if (b.blocks) {
      // Consecutive nodes, equal shares: the "squares" of the communication density matrix that
      // Guermouche 2011 §V-E.3 drew its clusters as (Fig. 8).
      for (std::uint32_t n = 0; n < nodes; ++n) {
        options->cluster[n] = static_cast<std::uint32_t>(std::uint64_t(n) * b.cluster_count / nodes);
      }
      options->cluster_count = b.cluster_count;
    } else {
      options->cluster = metis_clusters(communication_matrix(graph), b.cluster_count);
      options->cluster_count = b.cluster_count;
    }
  }
  // Cluster epochs separated by 2 (§V-E.3): a cluster that checkpoints once more than another
  // one never reaches its epoch, so messages keep going from the past to the future one way.
  options->first_epoch.assign(nodes, 1);
  for (std::uint32_t n = 0; n < nodes; ++n) options->first_epoch[n] = 1 + 2 * options->cluster[n];
  options->offsets = b.offsets;
  if (options->offsets.empty()) {
    // Spread over a period: per node, or, with clusters, per cluster (a cluster's processes share
    // its epoch, §V-E.3: they checkpoint at the same times, each on its own, without coordination).
    options->offsets.resize(nodes);
    for (std::uint32_t n = 0; n < nodes; ++n) {
      options->offsets[n] = b.schedule == Schedule::clusters
                                ? b.period * (double(options->cluster[n]) + 1.0) / double(options->cluster_count)
                                : b.period * (double(n) + 1.0) / double(nodes);
    }
  }
  options->sources.resize(nodes);
  for (const graphs::Transfer& x : graph.transfers()) {
    if (x.destination < nodes) options->sources[x.destination].emplace_back((std::uint64_t(x.handle) << 32) | x.version, x.source);
  }
  for (auto& list : options->sources) std::sort(list.begin(), list.end());
  return options;
}

}  // namespace ftsim::protocols::uncoordinated
