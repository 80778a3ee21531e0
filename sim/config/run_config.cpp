#include "run_config.hpp"

#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>

#include "failure_log.hpp"
#include "input_file.hpp"
#include "log_dates.hpp"
#include "units.hpp"

namespace ftsim::config {

const char* to_string(NetworkModel model) {
  switch (model) {
    case NetworkModel::lv08: return "LV08";
    case NetworkModel::cm02: return "CM02";
    case NetworkModel::smpi: return "SMPI";
    case NetworkModel::ib: return "IB";
  }
  return "?";
}

const char* to_string(Contention contention) { return contention == Contention::nic ? "nic" : "flows"; }

const char* to_string(SharingSolver solver) {
  switch (solver) {
    case SharingSolver::lazy: return "lazy";
    case SharingSolver::full: return "full";
    case SharingSolver::grouped: return "grouped";
  }
  return "lazy";
}

NetworkConfig read_network(JsonReader reader) {
  NetworkConfig n;
  reader.expect_object();
  if (auto model = reader.find("model")) {
    // SimGrid 3.32 has two more models, which abort on ftsim's platforms: say why, not just "unknown".
    if (model->json() == "Constant") {
      model->fail("SimGrid's \"Constant\" model is not supported: it refuses links, which every ftsim platform has, "
                  "and gives every transfer the same duration whatever its size; use \"CM02\" for the configured values");
    }
    if (model->json() == "ns-3") {
      model->fail("SimGrid's \"ns-3\" model is not supported: SimGrid aborts on ftsim's generated platforms");
    }
    const std::string m = model->as_choice({"LV08", "CM02", "SMPI", "IB"});
    n.model = m == "LV08" ? NetworkModel::lv08 : m == "CM02" ? NetworkModel::cm02 : m == "SMPI" ? NetworkModel::smpi : NetworkModel::ib;
  }
  if (auto topology = reader.find("topology")) {
    const std::string t = topology->as_choice({"star", "cluster", "fat-tree", "torus"});
    n.topology = t == "star" ? Topology::star : t == "cluster" ? Topology::cluster : t == "fat-tree" ? Topology::fat_tree : Topology::torus;
  }
  if (auto bandwidth = reader.find("bandwidth")) n.bandwidth = bandwidth->as_bandwidth();
  if (auto latency = reader.find("latency")) n.latency = latency->as_seconds();
  if (auto envelope = reader.find("envelope")) n.envelope = envelope->as_bytes();
  if (auto window = reader.find("send_window")) n.send_window = static_cast<std::uint32_t>(window->as_int(0, 1 << 20));
  if (auto backbone = reader.find("backbone_bandwidth")) {
    if (n.topology != Topology::cluster) backbone->fail("a backbone belongs to the \"cluster\" topology");
    n.backbone_bandwidth = backbone->as_bandwidth();
  }
  if (auto backbone = reader.find("backbone_latency")) {
    if (n.topology != Topology::cluster) backbone->fail("a backbone belongs to the \"cluster\" topology");
    n.backbone_latency = backbone->as_seconds();
  }
  if (auto fat_tree = reader.find("fat_tree")) {
    if (n.topology != Topology::fat_tree) fat_tree->fail("\"fat_tree\" describes the \"fat-tree\" topology");
    n.fat_tree = fat_tree->as_string();
    // levels;down;up;count with as many comma-separated numbers as levels in each part.
    std::vector<std::string> parts;
    std::stringstream stream(n.fat_tree);
    std::string part;
    while (std::getline(stream, part, ';')) parts.push_back(part);
    // Digits and separators only: std::stoul alone would take " +2x" for 2, and getline a
    // trailing ";" or "," for nothing.
    static const std::regex shape("[0-9]+(;[0-9]+(,[0-9]+)*){3}");
    bool ok = parts.size() == 4 && std::regex_match(n.fat_tree, shape);
    unsigned long levels = 0;
    if (ok) {
      try {
        levels = std::stoul(parts[0]);
        for (std::size_t i = 1; i < 4 && ok; ++i) {
          std::size_t count = 0;
          std::stringstream items(parts[i]);
          std::string item;
          while (std::getline(items, item, ',')) {
            if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || std::stoul(item) == 0) ok = false;
            ++count;
          }
          ok = ok && count == levels;
        }
      } catch (const std::exception&) {
        ok = false;
      }
    }
    if (!ok || levels == 0) fat_tree->fail_expected("a SimGrid fat-tree description \"levels;down,...;up,...;count,...\" such as \"2;4,4;1,2;1,2\"");
  } else if (n.topology == Topology::fat_tree) {
    reader.fail("the \"fat-tree\" topology needs \"fat_tree\", e.g. \"2;4,4;1,2;1,2\"");
  }
  if (auto torus = reader.find("torus")) {
    if (n.topology != Topology::torus) torus->fail("\"torus\" gives the dimensions of the \"torus\" topology");
    if (torus->size() == 0) torus->fail_expected("a non-empty list of dimensions");
    for (std::size_t i = 0; i < torus->size(); ++i) n.torus.push_back(static_cast<std::uint32_t>((*torus)[i].as_int(1, 1 << 20)));
  } else if (n.topology == Topology::torus) {
    reader.fail("the \"torus\" topology needs \"torus\": its dimensions, e.g. [4, 4, 2]");
  }
  if (auto contention = reader.find("contention")) {
    n.contention = contention->as_choice({"flows", "nic"}) == "nic" ? Contention::nic : Contention::flows;
    // "nic" knows each host's link and nothing between: it refuses networks whose shared links
    // matter (/platform/xml is refused by read_platform).
    if (n.contention == Contention::nic) {
      if (n.topology == Topology::fat_tree || n.topology == Topology::torus) {
        contention->fail("\"nic\" models each host's own link only: a fat-tree or torus routes messages over shared "
                         "links, which only \"flows\" simulates; use the \"star\" or \"cluster\" topology");
      }
      if (n.backbone_bandwidth > 0) {
        contention->fail("\"nic\" models each host's own link only: a backbone is a link every message shares, which "
                         "only \"flows\" simulates; drop \"backbone_bandwidth\" (a crossbar)");
      }
      if (n.model == NetworkModel::smpi || n.model == NetworkModel::ib) {
        contention->fail(std::string("\"nic\" applies the constant factors of \"LV08\" or \"CM02\"; \"") + to_string(n.model) +
                         "\" has factors by message size" +
                         (n.model == NetworkModel::ib ? " and contention penalties of its own" : "") + ": use \"flows\"");
      }
    }
  }
  if (auto solver = reader.find("solver")) {
    const std::string choice = solver->as_choice({"lazy", "full", "grouped"});
    n.solver = choice == "full" ? SharingSolver::full : choice == "grouped" ? SharingSolver::grouped : SharingSolver::lazy;
    if (n.contention == Contention::nic) {
      solver->fail("\"nic\" shares no link, so SimGrid has no sharing to solve: drop \"solver\", or use "
                   "\"contention\": \"flows\"");
    }
    // SimGrid 3.32's IB model recomputes its contention penalties as flows start and end; under
    // the full update its makespans move by percents (1.7% on configs/examples/stencil-small.json).
    if (n.solver == SharingSolver::grouped && n.model == NetworkModel::ib) {
      solver->fail("SimGrid's \"IB\" model has contention penalties of its own, which the \"grouped\" solver does not "
                   "model: use \"lazy\" with \"IB\"");
    }
    if (n.solver == SharingSolver::full && n.model == NetworkModel::ib) {
      solver->fail("SimGrid's \"IB\" model updates its contention penalties for the lazy solver only (under "
                   "\"full\" the same run moves by percents): use \"lazy\" with \"IB\"");
    }
  } else if (n.model == NetworkModel::ib) {
    n.solver = SharingSolver::lazy;  // IB's penalties are SimGrid's alone ("grouped" refuses them)
  }
  reader.finish();
  return n;
}

namespace {
std::uint64_t saturating_product(std::uint64_t a, std::uint64_t b) {
  constexpr std::uint64_t kCap = std::uint64_t(1) << 62;
  return a == 0 || b <= kCap / a ? std::min(a * b, kCap) : kCap;
}

std::vector<std::uint64_t> fat_tree_numbers(const std::string& part) {
  std::vector<std::uint64_t> numbers;
  std::stringstream items(part);
  std::string item;
  while (std::getline(items, item, ',')) {
    // Digits only (read_network checked); a number too long for 64 bits saturates.
    numbers.push_back(item.size() > 18 ? std::uint64_t(1) << 62 : std::stoull(item));
  }
  return numbers;
}
}  // namespace

TopologySize topology_size(const NetworkConfig& network, std::uint64_t hosts) {
  TopologySize size;
  if (network.topology == Topology::torus) {
    size.places = 1;
    for (std::uint32_t d : network.torus) size.places = saturating_product(size.places, d);
    size.links = saturating_product(size.places, 2 * network.torus.size());
  } else if (network.topology == Topology::fat_tree) {
    // "levels;down;up;count": level 0 holds the product of the down numbers (the leaves); level l
    // holds the product of the down numbers above l times the up numbers up to l; each node of
    // level l - 1 has up[l] x count[l] links up.
    std::vector<std::string> parts;
    std::stringstream stream(network.fat_tree);
    std::string part;
    while (std::getline(stream, part, ';')) parts.push_back(part);
    if (parts.size() != 4) return size;
    const auto down = fat_tree_numbers(parts[1]), up = fat_tree_numbers(parts[2]), count = fat_tree_numbers(parts[3]);
    const std::size_t levels = std::min({down.size(), up.size(), count.size()});
    for (std::size_t level = 0; level <= levels; ++level) {
      std::uint64_t nodes = 1;
      for (std::size_t i = level; i < levels; ++i) nodes = saturating_product(nodes, down[i]);
      for (std::size_t i = 0; i < level; ++i) nodes = saturating_product(nodes, up[i]);
      if (level == 0) {
        size.places = nodes;
      } else {
        size.switches = std::min(size.switches + nodes, std::uint64_t(1) << 62);
      }
      if (level < levels) {
        size.links = std::min(size.links + saturating_product(nodes, saturating_product(up[level], count[level])), std::uint64_t(1) << 62);
      }
    }
  } else {
    size.places = hosts;
    size.links = 2 * hosts + 1;  // an up and a down link per host, a backbone
  }
  return size;
}

LocalStorageConfig read_local_storage(JsonReader reader) {
  LocalStorageConfig s;
  reader.expect_object();
  s.present = true;
  s.bandwidth = reader.at("bandwidth").as_bandwidth();
  if (auto latency = reader.find("latency")) s.latency = latency->as_seconds();
  reader.finish();
  return s;
}

StorageConfig read_storage(JsonReader reader) {
  StorageConfig s;
  reader.expect_object();
  s.hosts = static_cast<std::uint32_t>(reader.at("hosts").as_int(0, 1 << 16));
  if (auto bandwidth = reader.find("bandwidth")) s.bandwidth = bandwidth->as_bandwidth();
  if (auto latency = reader.find("latency")) s.latency = latency->as_seconds();
  reader.finish();
  return s;
}

namespace {

std::vector<FailureEvent> read_trace_file(JsonReader file_reader, const std::string& path, std::uint32_t nodes) {
  if (auto problem = input_file_problem(path, kMaxTraceFileBytes)) {
    file_reader.fail("cannot open failure trace \"" + path + "\": " + *problem);
  }
  std::string contents = read_input_file(path, kMaxTraceFileBytes);
  // A UTF-8 byte order mark, as some editors write, is not part of the first line.
  if (contents.rfind("\xEF\xBB\xBF", 0) == 0) contents.erase(0, 3);
  std::vector<FailureEvent> events;
  std::istringstream input(contents);
  std::string line;
  std::size_t number = 0;
  while (std::getline(input, line)) {
    ++number;
    auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    std::string time_text;
    long long node = -1;
    std::string extra;
    fields >> time_text >> node;
    // A time that does not fit the simulated horizon (e.g. "1e308d", +inf seconds) is an error.
    auto time = parse_duration_seconds(time_text);
    if (!time || !(*time >= 0 && *time <= kMaxSeconds) || fields.fail() || node < 0 || node >= nodes || (fields >> extra)) {
      throw ConfigError(path + ":" + std::to_string(number), "",
                        "expected \"TIME NODE\" (a duration in [0, " + format_number(kMaxSeconds) + "] s and a node in [0, " +
                            std::to_string(nodes - 1) + "]), got \"" + printable_excerpt(line) + "\"");
    }
    events.push_back({*time, static_cast<std::uint32_t>(node)});
  }
  return events;
}

// /failures with "model": "log": a failure log of a real machine mapped onto the simulated
// nodes (sim/config/failure_log.hpp).
void read_failure_log(JsonReader& reader, std::uint32_t nodes, std::uint64_t seed, const std::string& config_file, FailureConfig& f) {
  f.model = FailureModel::log;
  const std::string format = reader.at("format").as_choice({"fta", "lanl"});
  auto file = reader.at("file");
  std::filesystem::path path(file.as_string());
  if (path.is_relative() && !config_file.empty()) path = std::filesystem::path(config_file).parent_path() / path;
  f.trace_file = path.string();
  if (auto problem = input_file_problem(f.trace_file, kMaxTraceFileBytes)) {
    file.fail("cannot open failure log \"" + f.trace_file + "\": " + *problem);
  }
  LogWindow window;
  if (auto system = reader.find("system")) window.system = system->as_int(0, INT64_MAX);
  auto start = reader.at("start");
  auto start_epoch = start.json().is_number() ? std::optional<double>(start.as_number()) : parse_iso_date(start.as_string());
  if (!start_epoch || *start_epoch < 0) start.fail_expected("a date \"YYYY-MM-DD[ HH:MM[:SS]]\" (UTC) or epoch seconds >= 0");
  window.start = *start_epoch;
  if (auto scale = reader.find("time_scale")) window.time_scale = scale->as_positive_number();
  if (auto mapping = reader.find("nodes")) {
    const std::string m = mapping->as_choice({"modulo", "first", "random"});
    window.nodes = m == "modulo" ? NodeMapping::modulo : m == "first" ? NodeMapping::first : NodeMapping::random;
  }
  if (auto repair = reader.find("repair_as_downtime")) window.repair_as_downtime = repair->as_bool();
  if (window.repair_as_downtime && reader.find("downtime")) {
    reader.at("downtime").fail("\"downtime\" and \"repair_as_downtime\": true both set the downtime: keep one");
  }
  const auto log = format == "fta" ? read_fta_log(f.trace_file) : read_lanl_log(f.trace_file);
  LogCounts counts;
  f.events = map_log_failures(log, window, nodes, seed, f.trace_file, counts);
  f.log_note = std::to_string(counts.kept) + " of the " + std::to_string(counts.read) + " failures of the log kept (" +
               std::to_string(counts.other_system) + " of other systems, " + std::to_string(counts.no_node) +
               " without a node, " + std::to_string(counts.before_start) +
               " before the start, " + std::to_string(counts.beyond_horizon) + " beyond 1e15 s, " +
               std::to_string(counts.unmapped) + " on unmapped nodes dropped)";
}

}  // namespace

const char* failure_class_name(FailureClass kind) {
  switch (kind) {
    case FailureClass::node: return "node";
    case FailureClass::group: return "group";
    case FailureClass::job: return "job";
    case FailureClass::process: return "process";
  }
  return "?";
}

namespace {

FailureClass read_failure_class(JsonReader reader, std::uint32_t group_size) {
  const std::string name = reader.as_choice({"node", "group", "job", "process"});
  if (name == "group" && group_size == 0) {
    reader.fail("a group failure takes down the nodes of a group: set /platform/group_size");
  }
  return name == "node" ? FailureClass::node : name == "group" ? FailureClass::group
                        : name == "job" ? FailureClass::job : FailureClass::process;
}

}  // namespace

FailureConfig read_failures(JsonReader reader, std::uint32_t nodes, std::uint32_t group_size, std::uint64_t seed,
                            const std::string& config_file) {
  FailureConfig f;
  f.group_size = group_size;
  reader.expect_object();
  const std::string model = reader.at("model").as_choice({"none", "list", "exponential", "weibull", "trace", "log"});
  if (model == "none") {
    f.model = FailureModel::none;
  } else if (model == "list") {
    f.model = FailureModel::list;
    auto events = reader.at("events");
    for (std::size_t i = 0; i < events.size(); ++i) {
      auto event = events[i];
      event.expect_object();
      FailureEvent e;
      if (event.one_of({"time", "after_tasks"}) == "time") {
        e.time = event.at("time").as_seconds();
      } else {
        e.after_tasks = static_cast<std::uint64_t>(event.at("after_tasks").as_int(1, std::int64_t(1) << 53));
      }
      e.node = static_cast<std::uint32_t>(event.at("node").as_int(0, nodes - 1));
      if (auto kind = event.find("class")) e.kind = read_failure_class(*kind, group_size);
      event.finish();
      f.events.push_back(e);
    }
  } else if (model == "exponential" || model == "weibull") {
    f.model = model == "exponential" ? FailureModel::exponential : FailureModel::weibull;
    f.mtbf = reader.at("mtbf").as_positive_seconds();
    if (f.model == FailureModel::weibull) {
      // Measured shapes of HPC failures are 0.5 to 1. At 0.1 the median time to failure is
      // already 7e-9 x mtbf (nodes fail as they start); below 0.006 Gamma(1 + 1/k) overflows.
      auto shape = reader.at("shape");
      f.shape = shape.as_number();
      if (!(f.shape >= kMinWeibullShape && f.shape <= kMaxWeibullShape)) {
        shape.fail_expected("a Weibull shape in [" + format_number(kMinWeibullShape) + ", " + format_number(kMaxWeibullShape) + "]");
      }
    }
  } else if (model == "log") {
    read_failure_log(reader, nodes, seed, config_file, f);
  } else {
    f.model = FailureModel::trace;
    auto file = reader.at("file");
    std::filesystem::path path(file.as_string());
    if (path.is_relative() && !config_file.empty()) path = std::filesystem::path(config_file).parent_path() / path;
    f.trace_file = path.string();
    f.events = read_trace_file(file, f.trace_file, nodes);
  }
  if (auto downtime = reader.find("downtime")) f.downtime = downtime->as_seconds();
  if (auto detection = reader.find("detection")) f.detection = detection->as_seconds();
  if (auto max = reader.find("max_failures")) f.max_failures = static_cast<std::uint32_t>(max->as_int(0, UINT32_MAX));
  if (auto prediction = reader.find("prediction")) f.prediction = read_prediction(*prediction);
  if (auto age = reader.find("age")) {
    if (f.model != FailureModel::exponential && f.model != FailureModel::weibull) {
      age->fail("is the nodes' age when the job starts: only with /failures/model exponential or weibull");
    }
    f.stationary = age->as_choice({"new", "stationary"}) == "stationary";
  }
  if (auto first = reader.find("first_before")) {
    if (f.model != FailureModel::exponential && f.model != FailureModel::weibull) {
      first->fail("conditions failures drawn at random: only with /failures/model exponential or weibull");
    }
    if (f.prediction) {
      first->fail("cannot be used with /failures/prediction (a prediction acts before its failure: a failure "
                  "after this date could still change the run)");
    }
    f.first_before = first->as_positive_seconds();
    if (f.stationary && f.model == FailureModel::weibull) {
      first->fail("conditions nodes that are new at time 0: not with /failures/age \"stationary\" and Weibull failures");
    }
  }
  if (auto classes = reader.find("classes")) {
    if (f.model != FailureModel::exponential && f.model != FailureModel::weibull) {
      classes->fail("splits failures drawn at random between classes: only with /failures/model exponential or "
                    "weibull (a list gives each event its \"class\")");
    }
    classes->expect_object();
    f.class_shares = {0, 0, 0, 0};
    double total = 0;
    for (const FailureClass kind : {FailureClass::node, FailureClass::group, FailureClass::job, FailureClass::process}) {
      auto share = classes->find(failure_class_name(kind));
      if (!share) continue;
      f.class_shares[std::size_t(kind)] = share->as_number(0, 1);
      if (kind == FailureClass::group && group_size == 0 && f.class_shares[std::size_t(kind)] > 0) {
        share->fail("a group failure takes down the nodes of a group: set /platform/group_size");
      }
      total += f.class_shares[std::size_t(kind)];
    }
    classes->finish();
    if (std::abs(total - 1) > 1e-9) {
      classes->fail_expected("shares of the failures that sum to 1, got a sum of " + format_number(total));
    }
  }
  if (auto burst = reader.find("burst")) {
    if (f.model != FailureModel::exponential) {
      burst->fail("raises the rate of memoryless failures for a while: only with /failures/model exponential");
    }
    if (group_size == 0) burst->fail("strikes the other nodes of the failed node's group: set /platform/group_size");
    burst->expect_object();
    FailureBurst b;
    b.factor = burst->at("factor").as_number(1, 1e9);
    b.window = burst->at("window").as_positive_seconds();
    burst->finish();
    f.burst = b;
  }
  reader.finish();
  return f;
}

ProtocolConfig read_protocol(JsonReader reader) {
  // The block's keys belong to the protocol named by "type" (see protocols/registry.hpp).
  reader.expect_object();
  ProtocolConfig p;
  p.type = reader.at("type").as_string();
  p.block = reader.json();
  return p;
}

RunConfig read_run(JsonReader reader) {
  RunConfig r;
  reader.expect_object();
  if (auto reference = reader.find("reference")) r.reference = reference->as_bool();
  if (auto limit = reader.find("time_limit")) r.time_limit = limit->as_positive_seconds();
  if (auto limit = reader.find("wall_limit")) r.wall_limit = limit->as_seconds();
  reader.finish();
  return r;
}

}  // namespace ftsim::config
