#include "sim/simgrid/platform.hpp"

#include <numeric>
#include <regex>
#include <sstream>
#include <string>

#include "sim/config/units.hpp"

namespace ftsim::simgrid_backend {

namespace sg4 = simgrid::s4u;
using config::ConfigError;
using config::Topology;

namespace {

struct HostSpec {
  std::string name;
  int cores;
};

std::vector<HostSpec> host_specs(const config::Config& config) {
  std::vector<HostSpec> specs;
  const auto& p = config.platform;
  // One host per machine (node-M runs ranks M*k .. M*k+k-1 with /platform/ranks_per_machine k).
  for (std::uint32_t n = 0; n < p.machines(); ++n) specs.push_back({"node-" + std::to_string(n), int(p.cores_per_node)});
  const std::uint32_t spares = p.unlimited_spares ? 0 : p.spares;
  for (std::uint32_t s = 0; s < spares; ++s) specs.push_back({"spare-" + std::to_string(s), int(p.cores_per_node)});
  for (std::uint32_t s = 0; s < p.storage.hosts; ++s) specs.push_back({"storage-" + std::to_string(s), 1});
  specs.push_back({"manager", 1});
  return specs;
}

std::vector<unsigned int> parse_levels(const std::string& text) {
  std::vector<unsigned int> values;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) values.push_back(static_cast<unsigned int>(std::stoul(item)));
  return values;
}

void build_star(const config::Config& config, const std::vector<HostSpec>& specs) {
  const auto& net = config.platform.network;
  auto* zone = simgrid_compat::create_star_zone("ftsim");
  const sg4::Link* backbone = nullptr;
  if (net.topology == Topology::cluster && net.backbone_bandwidth > 0) {
    backbone = zone->create_link("backbone", net.backbone_bandwidth)->set_latency(net.backbone_latency)->seal();
  }
  for (const auto& spec : specs) {
    const sg4::Host* host = zone->create_host(spec.name, kHostSpeed)->set_core_count(spec.cores)->seal();
    // A storage server's link is its own bandwidth; nodes share nothing but the backbone.
    const bool storage = spec.name.rfind("storage-", 0) == 0;
    const double bandwidth = storage ? config.platform.storage.bandwidth : net.bandwidth;
    const double latency = storage ? config.platform.storage.latency : net.latency;
    const sg4::Link* up = zone->create_link(spec.name + "_up", bandwidth)->set_latency(latency)->seal();
    const sg4::Link* down = zone->create_link(spec.name + "_down", bandwidth)->set_latency(latency)->seal();
    std::vector<sg4::LinkInRoute> out{sg4::LinkInRoute{up}}, in;
    if (backbone) {
      out.emplace_back(backbone);
      in.emplace_back(backbone);
    }
    in.emplace_back(down);
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, out, false);
    zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, in, false);
  }
  zone->seal();
}

// Fat-tree and torus: SimGrid's cluster zones; leaves beyond our hosts get idle filler hosts.
void build_cluster_zone(const config::Config& config, const std::vector<HostSpec>& specs) {
  const auto& net = config.platform.network;
  auto netpoint = [&specs](sg4::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    const bool real = id < specs.size();
    const std::string name = real ? specs[id].name : "filler-" + std::to_string(id);
    const sg4::Host* host = zone->create_host(name, kHostSpeed)->set_core_count(real ? specs[id].cores : 1)->seal();
    return std::make_pair(host->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
  const sg4::ClusterCallbacks callbacks(netpoint);
  sg4::NetZone* zone = nullptr;
  if (net.topology == Topology::torus) {
    std::vector<unsigned long> dimensions(net.torus.begin(), net.torus.end());
    const unsigned long leaves = std::accumulate(dimensions.begin(), dimensions.end(), 1UL, std::multiplies<>());
    if (leaves < specs.size()) {
      throw ConfigError(config.file, "/platform/network/torus",
                        "the torus has " + std::to_string(leaves) + " places for " + std::to_string(specs.size()) +
                            " hosts (nodes + spares + storage servers + 1 manager)");
    }
    zone = sg4::create_torus_zone("ftsim", nullptr, dimensions, callbacks, net.bandwidth, net.latency,
                                  sg4::Link::SharingPolicy::SPLITDUPLEX);
  } else {
    // "levels;down;up;count" as in SimGrid's XML, e.g. "2;4,4;1,2;1,2".
    std::vector<std::string> parts;
    std::stringstream stream(net.fat_tree);
    std::string part;
    while (std::getline(stream, part, ';')) parts.push_back(part);
    const auto down = parse_levels(parts.at(1));
    const unsigned long leaves = std::accumulate(down.begin(), down.end(), 1UL, std::multiplies<>());
    if (leaves < specs.size()) {
      throw ConfigError(config.file, "/platform/network/fat_tree",
                        "the fat-tree has " + std::to_string(leaves) + " leaves for " + std::to_string(specs.size()) +
                            " hosts (nodes + spares + storage servers + 1 manager)");
    }
    const sg4::FatTreeParams params(static_cast<unsigned int>(std::stoul(parts.at(0))), down, parse_levels(parts.at(2)),
                                    parse_levels(parts.at(3)));
    zone = sg4::create_fatTree_zone("ftsim", nullptr, params, callbacks, net.bandwidth, net.latency,
                                    sg4::Link::SharingPolicy::SPLITDUPLEX);
  }
  zone->seal();
}

// A platform file's errors name the config key and the file. SimGrid throws on syntax errors and
// unknown units; what makes it abort later is checked once the platform is loaded.
[[noreturn]] void platform_file_error(const config::Config& config, const std::string& message) {
  // SimGrid's messages may span lines and repeat the file: one line, "line N: ...", 300 characters.
  std::string text = std::regex_replace(message, std::regex("^Parse error at .*:([0-9]+): "), "line $1: ");
  text = std::regex_replace(text, std::regex("\\s+"), " ");
  if (text.size() > 300) text = text.substr(0, 297) + "...";
  throw ConfigError(config.file, "/platform/xml", "platform file \"" + config.platform.xml + "\": " + text);
}

// Links outside ftsim's bandwidth range make SimGrid's solver abort on the first transfer.
void check_links(const sg4::Engine& engine, const config::Config& config) {
  for (const sg4::Link* link : engine.get_all_links()) {
    const double bandwidth = link->get_bandwidth(), latency = link->get_latency();
    if (!(bandwidth >= config::kMinBandwidth && bandwidth <= config::kMaxBandwidth)) {
      platform_file_error(config, "link \"" + link->get_name() + "\": expected a bandwidth from 1 KB/s to 1 EB/s, got " +
                                      config::format_number(bandwidth) + " bytes per second");
    }
    if (!(latency >= 0 && latency <= config::kMaxSeconds)) {
      platform_file_error(config, "link \"" + link->get_name() + "\": expected a latency in [0, " +
                                      config::format_number(config::kMaxSeconds) + "] s, got " + config::format_number(latency));
    }
  }
}

// Every host of the run may send to every other (data, checkpoints, control messages): SimGrid
// aborts on the first message between two hosts without a route. Checks what its network model
// checks, a route with a link or a latency: between every two hosts of a platform of up to
// kAllPairsHosts hosts, else (a route lookup may cost a Dijkstra) between every host and node-0,
// the storage servers and the manager.
constexpr std::size_t kAllPairsHosts = 128;

void check_routes(const Platform& platform, const config::Config& config) {
  std::vector<sg4::Host*> hosts(platform.nodes);
  hosts.insert(hosts.end(), platform.spares.begin(), platform.spares.end());
  hosts.insert(hosts.end(), platform.storage.begin(), platform.storage.end());
  hosts.push_back(platform.manager);
  std::vector<sg4::Host*> hubs = hosts;
  if (hosts.size() > kAllPairsHosts) {
    hubs.assign(platform.storage.begin(), platform.storage.end());
    hubs.push_back(platform.nodes.front());
    hubs.push_back(platform.manager);
  }
  std::vector<sg4::Link*> links;
  auto check = [&](const sg4::Host* from, const sg4::Host* to) {
    if (from == to) return;
    links.clear();
    double latency = 0;
    try {
      from->route_to(to, links, &latency);
    } catch (const std::exception& error) {  // Floyd: "No route from ..."
      platform_file_error(config, error.what());
    }
    if (links.empty() && latency <= 0) {
      platform_file_error(config, "no route from \"" + from->get_name() + "\" to \"" + to->get_name() +
                                      "\" (every host of the run must reach every other)");
    }
  };
  for (const sg4::Host* hub : hubs) {
    for (const sg4::Host* host : hosts) {
      check(hub, host);
      check(host, hub);
    }
  }
}

}  // namespace

Platform build_platform(sg4::Engine& engine, const config::Config& config) {
  // Before the first zone, where SimGrid creates its models. Always set, even to the default: a
  // value set here also wins over a <config> network/model or network/optim of a platform file.
  sg4::Engine::set_config(std::string("network/model:") + config::to_string(config.platform.network.model));
  sg4::Engine::set_config(std::string("network/optim:") +
                          (config.platform.network.solver == config::SharingSolver::full ? "Full" : "Lazy"));
  const auto specs = host_specs(config);
  if (!config.platform.xml.empty()) {
    try {
      engine.load_platform(config.platform.xml);
    } catch (const std::exception& error) {
      platform_file_error(config, error.what());
    }
    check_links(engine, config);
  } else if (config.platform.network.topology == Topology::star || config.platform.network.topology == Topology::cluster) {
    build_star(config, specs);
  } else {
    build_cluster_zone(config, specs);
  }
  Platform platform;
  auto host = [&](const std::string& name) {
    sg4::Host* h = engine.host_by_name_or_null(name);
    if (!h) {
      throw ConfigError(config.platform.xml.empty() ? config.file : config.platform.xml, "/platform/xml",
                        "the platform has no host named \"" + name + "\" (expected node-0..node-N-1, spare-*, storage-*, manager)");
    }
    return h;
  };
  const auto& p = config.platform;
  for (std::uint32_t n = 0; n < p.machines(); ++n) platform.nodes.push_back(host("node-" + std::to_string(n)));
  const std::uint32_t spares = p.unlimited_spares ? 0 : p.spares;
  for (std::uint32_t s = 0; s < spares; ++s) platform.spares.push_back(host("spare-" + std::to_string(s)));
  for (std::uint32_t s = 0; s < p.storage.hosts; ++s) platform.storage.push_back(host("storage-" + std::to_string(s)));
  platform.manager = host("manager");
  if (!config.platform.xml.empty()) {
    engine.seal_platform();  // a zone's routing table exists once sealed: route_to() needs it
    check_routes(platform, config);
  }
  return platform;
}

}  // namespace ftsim::simgrid_backend
