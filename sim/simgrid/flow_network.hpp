#pragma once
// The platform's network as the "grouped" sharing solver sees it (/platform/network/solver,
// flow_sharing.hpp): SimGrid's routes, links and model parameters, read once from the engine,
// turned into FlowSharing routes (one per pair of hosts that exchange), and each message's work
// and latency from its size (the model's factors: constant for LV08 and CM02, by size for SMPI).
// SimGrid keeps the platform and the clock; it solves no sharing.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <simgrid/s4u.hpp>

#include "sim/config/config.hpp"
#include "sim/simgrid/flow_sharing.hpp"

namespace ftsim::simgrid_backend {

class FlowNetwork {
public:
  // After the platform is built (SimGrid sets its model's parameters then). Throws a ConfigError
  // for a platform whose links this solver does not model (Wi-Fi, non-linear sharing).
  explicit FlowNetwork(const config::Config& config);

  // A transfer of `bytes` from `from` to `to`, sent at `now`.
  FlowSharing::FlowId start(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, std::uint64_t bytes,
                            double now, std::uint64_t tag);
  FlowSharing& sharing() { return sharing_; }

private:
  struct Route {
    FlowSharing::RouteId id = 0;
    double latency = 0;  // the route's, before the latency factor
  };
  const Route& route(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to);
  std::uint32_t host_index(const simgrid::s4u::Host* host);
  FlowSharing::LinkId link_index(const simgrid::s4u::Link* link);
  // The model's factors for a message of `bytes` (SimGrid's get_latency_factor / get_bandwidth_factor).
  double latency_factor(double bytes) const;
  double bandwidth_factor(double bytes) const;

  const config::Config& config_;
  FlowSharing sharing_;
  // SimGrid's settings, read once.
  double weight_s_ = 0, tcp_gamma_ = 0;
  bool crosstraffic_ = true;
  // (size threshold, factor) steps, SMPI's; a single step for the other models.
  std::vector<std::pair<double, double>> latency_steps_, bandwidth_steps_;
  std::unordered_map<const simgrid::s4u::Host*, std::uint32_t> hosts_;
  std::unordered_map<const simgrid::s4u::Link*, FlowSharing::LinkId> links_;
  std::unordered_map<std::uint64_t, Route> routes_;  // by (from << 32 | to)
  std::vector<simgrid::s4u::Link*> scratch_, back_scratch_;
};

}  // namespace ftsim::simgrid_backend
