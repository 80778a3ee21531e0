#pragma once
// none: no fault tolerance. On any failure the whole job restarts from its input: the failure-free
// reference and the "restart from scratch" cost. It is also the model protocol of
// docs/writing-a-protocol.md, in as few lines as a correct protocol can have. It shows the parts
// every protocol has: state kept in the object (it dies with its process), typed control
// messages encoded to bytes, a coordinator that learns only from messages, epochs against stale
// data, and the reports. Its folder (protocols/none/) is all it takes to add it: this class, its
// module.cpp (id, options, factory, campaign entry) and its schema.json.
//
//  node:        failure notice -> stop; RECOVER(e) -> reset to the input, RESTORED(e)
//  coordinator: failure notice -> RECOVER(e) to every rank; all RESTORED(e) -> RESUME(e)
//  node:        RESUME(e) -> send the initial values again and run
#include <algorithm>
#include <vector>

#include "sim/node/codec.hpp"
#include "sim/node/protocol.hpp"
#include "sim/node/protocol_context.hpp"

namespace ftsim::protocols::none {

class NoneProtocol : public node::Protocol {  // not final: example-hold-flush adds to it
public:
  explicit NoneProtocol(bool coordinator) : coordinator_(coordinator) {}

  void on_failure_notice(node::ProtocolContext& ctx, const node::FailureNotice& notice) override {
    ctx.set_epoch(std::max(ctx.epoch(), notice.sequence));  // data of older epochs are orphans now
    if (!coordinator_) {
      ctx.runtime().abort();  // stop at once: this work will be thrown away
      ctx.runtime().pause();
      return;
    }
    notices_.push_back(notice);
    restored_.assign(ctx.node_count(), false);
    // A rank being replaced gets this when its replacement is up (its buffered messages).
    for (node::NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kRecover, notice);
  }

  void on_restart(node::ProtocolContext& ctx, const node::RestartInfo& info) override {
    ctx.set_epoch(info.last_sequence);  // a replacement holds nothing and waits for RECOVER
    ctx.runtime().pause();
  }

  node::ReceiveVerdict on_receive(node::ProtocolContext& ctx, const node::Message& m) override {
    return m.epoch < ctx.epoch() ? node::ReceiveVerdict::drop_orphan : node::ReceiveVerdict::accept;
  }

  void on_control(node::ProtocolContext& ctx, const node::Message& m) override {
    const auto notice = node::decode<node::FailureNotice>(m);
    if (notice.sequence < ctx.epoch()) return;  // from a recovery that a newer one replaced
    switch (m.control_type) {
      case kRecover: {  // node: back to the input
        ctx.set_epoch(notice.sequence);
        node::ProtocolRuntime runtime = ctx.runtime();
        runtime.abort();
        runtime.pause();
        node::FailureEffect effect;
        effect.processes_rolled_back = 1;
        ctx.record_failure_effect(notice, effect);
        runtime.restore(runtime.initial_snapshot());
        runtime.rebuild();
        send(ctx, ctx.coordinator(), kRestored, notice);
        break;
      }
      case kRestored:  // coordinator: resume once every rank is back at the start
        if (!coordinator_ || notice.sequence != notices_.back().sequence) return;
        restored_[m.source] = true;
        if (std::find(restored_.begin(), restored_.end(), false) != restored_.end()) return;
        for (const node::FailureNotice& n : notices_) {
          node::FailureEffect effect;
          effect.restart_point = "from scratch";
          ctx.record_failure_effect(n, effect);
          ctx.record_recovered(n);
        }
        notices_.clear();
        for (node::NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kResume, notice);
        break;
      case kResume:  // node: start over
        ctx.runtime().resume();
        ctx.runtime().send_initial_values();
        break;
      default: break;
    }
  }

private:
  enum Type : std::uint32_t { kRecover = 1, kRestored, kResume };

  // Every message of this protocol carries the notice of the failure it is about (its fields:
  // sim/node/codec.hpp).
  static void send(node::ProtocolContext& ctx, node::NodeId to, Type type, const node::FailureNotice& n) {
    ctx.send_control(to, type, node::encode(n));
  }

  bool coordinator_;
  std::vector<node::FailureNotice> notices_;  // coordinator: failures whose recovery is under way
  std::vector<bool> restored_;                // coordinator: ranks back at the start
};

}  // namespace ftsim::protocols::none
