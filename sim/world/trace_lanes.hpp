#pragma once
// The lanes of one kind (sends, receives or protocol spans) of each process of trace.json: a
// slice goes to the lowest lane whose slices all end before it starts, and a lane is added when
// none is free, so two slices of one lane never overlap, in whatever order they come (a message
// is recorded at its delivery, after messages sent later may have been).
#include <cstdint>
#include <vector>

namespace ftsim::world {

class TraceLanes {
public:
  // `gap`: a lane is free only strictly after its last slice ends, so that a flow arrow's end at
  // a slice's edge lies in that slice alone (viewers bind it to the slice enclosing it).
  explicit TraceLanes(bool gap) : gap_(gap) {}

  struct Placement {
    std::uint32_t lane;  // 0: the kind's first lane
    bool added;          // a new lane: the writer names it
  };

  // Where slice [start, end] (nanoseconds) of `process` goes.
  Placement place(std::uint32_t process, std::int64_t start, std::int64_t end) {
    if (process >= last_end_.size()) last_end_.resize(process + 1);
    std::vector<std::int64_t>& lanes = last_end_[process];
    for (std::uint32_t k = 0; k < lanes.size(); ++k) {
      if (gap_ ? lanes[k] < start : lanes[k] <= start) {
        lanes[k] = end;
        return {k, false};
      }
    }
    lanes.push_back(end);
    return {static_cast<std::uint32_t>(lanes.size() - 1), lanes.size() > 1};
  }

private:
  bool gap_;
  std::vector<std::vector<std::int64_t>> last_end_;  // per process, per lane: where its last slice ends
};

}  // namespace ftsim::world
