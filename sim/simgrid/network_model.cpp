#include "sim/simgrid/network_model.hpp"

#include <sstream>

namespace ftsim::simgrid_backend {

NetworkModelFactors network_model_factors(config::NetworkModel model) {
  switch (model) {
    case config::NetworkModel::lv08: return {13.01, 0.97, false};  // TCP slow start, fitted by Velho & Legrand
    case config::NetworkModel::cm02: return {1, 1, false};
    case config::NetworkModel::smpi:
    case config::NetworkModel::ib: return {11.6436, 0.940694, true};  // fitted on MPI ping-pongs
  }
  return {};
}

std::string describe_network_model(config::NetworkModel model) {
  const NetworkModelFactors factors = network_model_factors(model);
  std::ostringstream text;  // 6 significant digits: SimGrid's factors print as written
  text << config::to_string(model) << " (";
  if (factors.by_message_size) text << "messages over 65472 B: ";
  text << "latency x" << factors.latency << ", bandwidth x" << factors.bandwidth;
  if (model == config::NetworkModel::cm02) text << ": as configured";
  if (factors.by_message_size) text << "; smaller ones: other factors";
  if (model == config::NetworkModel::ib) text << "; plus InfiniBand contention penalties";
  text << ")";
  return text.str();
}

}  // namespace ftsim::simgrid_backend
