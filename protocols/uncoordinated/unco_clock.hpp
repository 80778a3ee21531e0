#pragma once
// Fig. 3's clocks of an application process: its Date (sends and first receives, l. 15 and 25),
// its Epoch (one per checkpoint, l. 44), its Phase (l. 21-26, 45) and its date at the beginning of
// each epoch (SPE[e].date, what the recovery line's dates are made of). The message log moves
// the date and the phase, the checkpointer the epoch; every part reads them.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "protocols/uncoordinated/unco_tables.hpp"

namespace ftsim::protocols::uncoordinated {

class Clock {
public:
  explicit Clock(std::uint32_t first_epoch) : epoch_(first_epoch), epoch_dates_{date_} {}

  std::uint32_t date() const { return date_; }
  std::uint32_t epoch() const { return epoch_; }
  std::uint32_t phase() const { return phase_; }
  const std::vector<std::uint32_t>& epoch_dates() const { return epoch_dates_; }

  std::uint32_t tick() { return ++date_; }  // a send (l. 15) or a first receive (l. 25)
  void reach_phase(std::uint32_t phase) { phase_ = std::max(phase_, phase); }  // l. 21-26
  // A checkpoint saved (l. 43-45): a new epoch, and a new phase under the send-deterministic rule.
  void next_epoch(bool phases) {
    ++epoch_;
    if (phases) ++phase_;
    epoch_dates_.push_back(date_);
  }
  void restore(Tables& tables) {
    epoch_ = tables.epoch;
    phase_ = tables.phase;
    date_ = tables.date;
    epoch_dates_ = std::move(tables.epoch_dates);
  }

private:
  std::uint32_t date_ = 1, epoch_ = 1, phase_ = 1;
  std::vector<std::uint32_t> epoch_dates_;
};

}  // namespace ftsim::protocols::uncoordinated
