// The `lineage` protocol's module: no option, no metric of its own.
#include "protocols/lineage/lineage_protocol.hpp"
#include "protocols/protocol_module.hpp"

namespace ftsim::protocols {

using namespace lineage;  // the protocol's own namespace: this file only registers it

namespace {

node::ProtocolFactory factory(const config::Config&, const graphs::TaskGraph&) {
  return [](node::NodeId, bool coordinator) { return std::make_unique<LineageProtocol>(coordinator); };
}

CampaignDraw campaign(std::mt19937_64&, double) { return {{{"protocol", {{"type", "lineage"}}}}, false}; }

}  // namespace

extern const ProtocolModule lineage_module = {
    "lineage",
    "no checkpoint: lost versions are recomputed from the task graph's lineage (Dask, Ray)",
    no_options,
    factory,
    {},
    campaign,
    nullptr,
    nullptr,
    nullptr,
    "the lineage protocol saves no checkpoint data (it recomputes lost data from the task graph)",
};

}  // namespace ftsim::protocols
