#include "sim/simgrid/flow_network.hpp"

#include <algorithm>
#include <sstream>

#include <xbt/config.hpp>

namespace ftsim::simgrid_backend {

namespace sg4 = simgrid::s4u;

namespace {

// SMPI's "threshold:factor;threshold:factor;..." (SimGrid's smpi::utils::parse_factor), by threshold.
std::vector<std::pair<double, double>> parse_steps(const std::string& text) {
  std::vector<std::pair<double, double>> steps;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ';')) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) continue;
    steps.emplace_back(std::stod(item.substr(0, colon)), std::stod(item.substr(colon + 1)));
  }
  std::sort(steps.begin(), steps.end());
  return steps;
}

// SimGrid's get_*_factor(size) of NetworkSmpiModel: the factor of the largest threshold below the
// size (1 below the first); a single (-1, factor) step for a constant one.
double step_factor(const std::vector<std::pair<double, double>>& steps, double bytes) {
  double current = 1.0;
  for (const auto& [threshold, factor] : steps) {
    if (bytes <= threshold) return current;
    current = factor;
  }
  return current;
}

}  // namespace

FlowNetwork::FlowNetwork(const config::Config& config) : config_(config) {
  namespace cfg = simgrid::config;
  weight_s_ = cfg::get_value<double>("network/weight-S");
  tcp_gamma_ = cfg::get_value<double>("network/TCP-gamma");
  crosstraffic_ = cfg::get_value<bool>("network/crosstraffic");
  if (config.platform.network.model == config::NetworkModel::smpi) {
    latency_steps_ = parse_steps(cfg::get_value<std::string>("smpi/lat-factor"));
    bandwidth_steps_ = parse_steps(cfg::get_value<std::string>("smpi/bw-factor"));
  } else {
    latency_steps_ = {{-1.0, cfg::get_value<double>("network/latency-factor")}};
    bandwidth_steps_ = {{-1.0, cfg::get_value<double>("network/bandwidth-factor")}};
  }
  for (const sg4::Link* link : sg4::Engine::get_instance()->get_all_links()) {
    const auto policy = link->get_sharing_policy();
    if (policy == sg4::Link::SharingPolicy::WIFI || policy == sg4::Link::SharingPolicy::NONLINEAR) {
      throw config::ConfigError(config.file, "/platform/network/solver",
                                "the platform has a " +
                                    std::string(policy == sg4::Link::SharingPolicy::WIFI ? "Wi-Fi" : "non-linear") +
                                    " link (\"" + link->get_name() +
                                    "\"), which the \"grouped\" solver does not model: use \"lazy\"");
    }
  }
}

double FlowNetwork::latency_factor(double bytes) const { return step_factor(latency_steps_, bytes); }
double FlowNetwork::bandwidth_factor(double bytes) const { return step_factor(bandwidth_steps_, bytes); }

std::uint32_t FlowNetwork::host_index(const sg4::Host* host) {
  return hosts_.try_emplace(host, static_cast<std::uint32_t>(hosts_.size())).first->second;
}

FlowSharing::LinkId FlowNetwork::link_index(const sg4::Link* link) {
  auto [it, added] = links_.try_emplace(link, 0);
  if (added) {
    it->second = sharing_.add_link(link->get_bandwidth(), link->get_sharing_policy() == sg4::Link::SharingPolicy::FATPIPE);
  }
  return it->second;
}

const FlowNetwork::Route& FlowNetwork::route(const sg4::Host* from, const sg4::Host* to) {
  const std::uint64_t key = (std::uint64_t{host_index(from)} << 32) | host_index(to);
  auto found = routes_.find(key);
  if (found != routes_.end()) return found->second;
  // As NetworkCm02Model::communicate: the route's links (weight 1) and, with cross-traffic, the
  // way back's (weight 0.05); penalty = latency + weight_S / bandwidth of each link (a route of
  // zero latency has penalty 1); bound = the slowest link, and TCP's window over twice the latency.
  scratch_.clear();
  double latency = 0;
  from->route_to(to, scratch_, &latency);
  FlowSharing::RouteSpec spec;
  double slowest = -1;
  double penalty = latency;
  for (const sg4::Link* link : scratch_) {
    spec.uses.push_back({link_index(link), 1.0});
    if (slowest < 0 || link->get_bandwidth() < slowest) slowest = link->get_bandwidth();
    if (weight_s_ > 0) penalty += weight_s_ / link->get_bandwidth();
  }
  if (crosstraffic_) {
    back_scratch_.clear();
    to->route_to(from, back_scratch_, nullptr);
    for (const sg4::Link* link : back_scratch_) spec.uses.push_back({link_index(link), 0.05});
  }
  spec.penalty = latency > 0 ? penalty : 1.0;
  spec.bound = slowest;
  if (latency > 0) {
    const double window = tcp_gamma_ / (2.0 * latency);
    spec.bound = spec.bound < 0 ? window : std::min(spec.bound, window);
  }
  Route route;
  route.id = sharing_.add_route(spec);
  route.latency = latency;
  return routes_.emplace(key, route).first->second;
}

FlowSharing::FlowId FlowNetwork::start(const sg4::Host* from, const sg4::Host* to, std::uint64_t bytes, double now,
                                       std::uint64_t tag) {
  const Route& r = route(from, to);
  const double size = double(bytes);
  return sharing_.start(r.id, size / bandwidth_factor(size), r.latency * latency_factor(size), now, tag);
}

}  // namespace ftsim::simgrid_backend
