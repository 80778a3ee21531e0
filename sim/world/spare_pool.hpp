#pragma once
// SparePool: the spare nodes (machines) left for replacements and migrations (/platform/spares,
// /platform/unlimited_spares), the same rule on every backend: unlimited, a count, or none.
#include <cstdint>

#include "sim/config/config.hpp"

namespace ftsim::world {

class SparePool {
public:
  SparePool(bool unlimited, std::uint32_t spares) : unlimited_(unlimited), left_(spares) {}
  explicit SparePool(const config::PlatformConfig& platform) : SparePool(platform.unlimited_spares, platform.spares) {}

  // Whether a spare is left (none is taken).
  bool available() const { return unlimited_ || left_ > 0; }
  // Takes a spare for a failure or a migration: false if none is left.
  bool take() {
    if (!available()) return false;
    if (!unlimited_) --left_;
    return true;
  }
  // A spare taken but not used (a migration stopped by a failure) goes back.
  void give_back() {
    if (!unlimited_) ++left_;
  }

private:
  bool unlimited_;
  std::uint32_t left_;
};

}  // namespace ftsim::world
