#include "protocols/uncoordinated/unco_timer.hpp"

namespace ftsim::protocols::uncoordinated {

void CheckpointTimer::arm(node::ProtocolContext& ctx) {
  if (timer_) ctx.cancel_timer(*timer_);
  timer_.reset();
  double delay = 0;
  if (options_.schedule == Schedule::random) {
    // Random times, independent per node: the gap is uniform in [0, 2 period] (mean: the period).
    delay = std::uniform_real_distribution<double>(0.0, 2.0 * options_.period)(random_);
  } else {
    // Periodic with the node's offset: its k-th checkpoint is due at offset + k period (a slot
    // missed during a recovery or a long save is skipped, so nodes keep their relative order).
    double due = options_.offsets[node_] + double(periods_) * options_.period;
    while (due <= ctx.now()) due = options_.offsets[node_] + double(++periods_) * options_.period;
    ++periods_;
    delay = due - ctx.now();
  }
  timer_ = ctx.set_timer(delay, kTimerBit | ++token_);
}

bool CheckpointTimer::fired(std::uint64_t token) {
  if (token != (kTimerBit | token_)) return false;
  timer_.reset();
  return true;
}

}  // namespace ftsim::protocols::uncoordinated
