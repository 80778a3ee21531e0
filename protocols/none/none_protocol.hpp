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

namespace ftsim::protocols {

class NoneProtocol : public core::Protocol {  // not final: example-hold-flush adds to it
public:
  explicit NoneProtocol(bool coordinator) : coordinator_(coordinator) {}

  void on_failure_notice(core::ProtocolContext& ctx, const core::FailureNotice& notice) override {
    ctx.set_epoch(std::max(ctx.epoch(), notice.sequence));  // data of older epochs are orphans now
    if (!coordinator_) {
      ctx.runtime().abort();  // stop at once: this work will be thrown away
      ctx.runtime().pause();
      return;
    }
    notices_.push_back(notice);
    restored_.assign(ctx.node_count(), false);
    // A rank being replaced gets this when its replacement is up (its buffered messages).
    for (core::NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kRecover, notice);
  }

  void on_restart(core::ProtocolContext& ctx, const core::RestartInfo& info) override {
    ctx.set_epoch(info.last_sequence);  // a replacement holds nothing and waits for RECOVER
    ctx.runtime().pause();
  }

  core::ReceiveVerdict on_receive(core::ProtocolContext& ctx, const core::Message& m) override {
    return m.epoch < ctx.epoch() ? core::ReceiveVerdict::drop_orphan : core::ReceiveVerdict::accept;
  }

  void on_control(core::ProtocolContext& ctx, const core::Message& m) override {
    const auto notice = core::decode<core::FailureNotice>(m);
    if (notice.sequence < ctx.epoch()) return;  // from a recovery that a newer one replaced
    switch (m.control_type) {
      case kRecover: {  // node: back to the input
        ctx.set_epoch(notice.sequence);
        core::ProtocolRuntime runtime = ctx.runtime();
        runtime.abort();
        runtime.pause();
        core::FailureEffect effect;
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
        for (const core::FailureNotice& n : notices_) {
          core::FailureEffect effect;
          effect.restart_point = "from scratch";
          ctx.record_failure_effect(n, effect);
          ctx.record_recovered(n);
        }
        notices_.clear();
        for (core::NodeId n = 0; n < ctx.node_count(); ++n) send(ctx, n, kResume, notice);
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
  static void send(core::ProtocolContext& ctx, core::NodeId to, Type type, const core::FailureNotice& n) {
    ctx.send_control(to, type, core::encode(n));
  }

  bool coordinator_;
  std::vector<core::FailureNotice> notices_;  // coordinator: failures whose recovery is under way
  std::vector<bool> restored_;                // coordinator: ranks back at the start
};

}  // namespace ftsim::protocols
