// The `none` protocol's module: no option, no metric of its own.
#include "protocols/none/none_protocol.hpp"
#include "protocols/protocol_module.hpp"

namespace ftsim::protocols {

using namespace none;  // the protocol's own namespace: this file only registers it

namespace {

node::ProtocolFactory factory(const config::Config&, const graphs::TaskGraph&) {
  return [](node::NodeId, bool coordinator) { return std::make_unique<NoneProtocol>(coordinator); };
}

CampaignDraw campaign(std::mt19937_64&, double) { return {{{"protocol", {{"type", "none"}}}}, false}; }

}  // namespace

extern const ProtocolModule none_module = {
    "none",
    "no fault tolerance: a failure restarts the whole job from its input",
    no_options,
    factory,
    {},
    campaign,
    nullptr,
    nullptr,
    nullptr,
    "the none protocol saves no checkpoint data (a failure restarts the job from its input)",
};

}  // namespace ftsim::protocols
