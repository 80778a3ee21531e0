// example-hold-flush: `none` (a failure restarts the whole job from its input) whose nodes hold
// every application data message they send and let them all go together, `delay` after the first
// one: the send verdict `hold` and release_held_sends(). A runtime that aggregates its sends so (a
// send buffer flushed on a timer, a Nagle delay) trades latency for fewer posts; here each message
// still travels alone, so the delay is all it shows. A held message keeps its datum busy, as a send
// in progress does: a task that overwrites it waits for the flush.
#include "protocols/none/none_protocol.hpp"
#include "protocols/protocol_module.hpp"

namespace ftsim::protocols {

using none::NoneProtocol;  // what an example builds on
namespace {
using namespace node;

class HoldFlushProtocol final : public NoneProtocol {
public:
  HoldFlushProtocol(double delay, bool coordinator) : NoneProtocol(coordinator), delay_(delay) {}

  SendVerdict on_send(ProtocolContext& ctx, Message& m) override {
    if (m.traffic != Traffic::application) return SendVerdict::send;
    if (!flush_due_) ctx.set_timer(delay_, 0);  // the first held message sets the flush
    flush_due_ = true;
    return SendVerdict::hold;
  }
  void on_timer(ProtocolContext& ctx, std::uint64_t) override {
    flush_due_ = false;
    ctx.release_held_sends();  // in the order they were held
  }
  // A recovery starts a new epoch, and the host stamps a message with the epoch when it lets it go:
  // what is held leaves first, stamped with the epoch it belongs to, and the receivers that have
  // moved on drop it as an orphan. Then `none` recovers.
  void on_failure_notice(ProtocolContext& ctx, const FailureNotice& notice) override {
    ctx.release_held_sends();
    NoneProtocol::on_failure_notice(ctx, notice);
  }
  void on_control(ProtocolContext& ctx, const Message& m) override {
    ctx.release_held_sends();
    NoneProtocol::on_control(ctx, m);
  }
  std::string phase(ProtocolContext&) override { return flush_due_ ? "holding sends until the next flush" : ""; }

private:
  double delay_;
  bool flush_due_ = false;  // a flush timer is set
};

double read_delay(config::JsonReader& block) {  // /protocol/delay, 1 ms by default
  const std::optional<config::JsonReader> delay = block.find("delay");
  return delay ? delay->as_positive_seconds() : 1e-3;
}
void check(const config::Config&, config::JsonReader& block) {
  read_delay(block);
  block.finish();
}
ProtocolFactory factory(const config::Config& config, const graphs::TaskGraph&) {
  config::JsonReader block(config.protocol.block, config.file, "/protocol");
  const double delay = read_delay(block);
  return [delay](NodeId, bool coordinator) { return std::make_unique<HoldFlushProtocol>(delay, coordinator); };
}
CampaignDraw campaign(std::mt19937_64& random, double makespan) {
  const double delay = makespan * std::uniform_real_distribution<double>(0.001, 0.05)(random);
  return {{{"protocol", {{"type", "example-hold-flush"}, {"delay", delay}}}}, false};
}

}  // namespace

extern const ProtocolModule example_hold_flush_module = {
    "example-hold-flush", "an example: `none` whose nodes hold their sends and flush them `delay` after the first",
    check, factory, {}, campaign, nullptr, nullptr, nullptr, "the example saves no checkpoint data"};

}  // namespace ftsim::protocols
