#pragma once
// When an application process checkpoints (Fig. 3 l. 41; §V-E): at random times, independent per
// node, or periodically from the node's offset (the clusters schedule is the periodic one with
// per-cluster offsets and first epochs). One timer at a time.
#include <cstdint>
#include <optional>
#include <random>

#include "protocols/uncoordinated/unco_options.hpp"

namespace ftsim::protocols::uncoordinated {

class CheckpointTimer {
public:
  CheckpointTimer(const Options& options, node::NodeId node)
      : options_(options), node_(node), random_(options.seed * 0x9e3779b97f4a7c15ull + node * 1315423911ull + 7) {}

  void arm(node::ProtocolContext& ctx);  // the next checkpoint's timer (the one armed is cancelled)
  // Whether `token` is the armed timer's (it is then spent); false: a timer cancelled since.
  bool fired(std::uint64_t token);
  bool armed() const { return timer_.has_value(); }

private:
  static constexpr std::uint64_t kTimerBit = 1ull << 62;

  const Options& options_;
  node::NodeId node_;
  std::optional<std::uint64_t> timer_;
  std::uint64_t token_ = 0;
  std::uint32_t periods_ = 0;  // periodic: checkpoints scheduled so far
  std::mt19937_64 random_;
};

}  // namespace ftsim::protocols::uncoordinated
