#pragma once
// Wall-clock timers of a rank: due time, an action, cancellation by id.
#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ftsim::mpi {

template <class Action>
class TimerQueue {
public:
  std::uint64_t add(double due, Action action) {
    const std::uint64_t id = next_id_++;
    live_.emplace(id, std::move(action));
    due_.push({due, id});
    return id;
  }
  void cancel(std::uint64_t id) { live_.erase(id); }
  void clear() {
    live_.clear();
    due_ = {};
  }
  std::size_t size() const { return live_.size(); }
  // The next action due at `now`, if any.
  bool pop_due(double now, Action& action) {
    while (!due_.empty() && due_.top().first <= now) {
      const std::uint64_t id = due_.top().second;
      due_.pop();
      auto it = live_.find(id);
      if (it == live_.end()) continue;  // cancelled
      action = std::move(it->second);
      live_.erase(it);
      return true;
    }
    return false;
  }

private:
  using Entry = std::pair<double, std::uint64_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> due_;
  std::unordered_map<std::uint64_t, Action> live_;
  std::uint64_t next_id_ = 1;
};

}  // namespace ftsim::mpi
