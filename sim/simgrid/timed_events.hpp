#pragma once
// The backend's own queue of timed events (task ends, protocol timers, deferred actions), ordered
// by (time, insertion order). SimGrid's timer heap breaks ties between equal dates by its internal
// structure, so one unrelated timer (a failure scheduled after the end of the run) reordered
// simultaneous task ends and changed the run: the same job with and without a late failure did not
// give the same makespan. Here equal times fire first in, first out, whatever else is queued; the
// backend arms one SimGrid timer, for the earliest entry. Task ends and the two events of a "nic"
// message carry their (node, id) in the heap entry rather than a closure: no allocation and no
// visit of the closures' array per task or message (at thousands of nodes each was a cache miss).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "graphs/ids.hpp"

namespace ftsim::simgrid_backend {

class TimedEvents {
public:
  enum class Kind : std::uint8_t {
    action,       // a closure
    task_end,     // task `id` of node `node` ends
    nic_head,     // "nic": the first byte of the message in slot `id` reaches its receiver
    nic_arrival,  // "nic": its last byte has arrived
    flows_due,    // "grouped" sharing solver: flows join or complete (a late event, see add_late)
  };
  struct Event {
    graphs::NodeId node = 0;
    std::uint32_t id = 0;
    Kind kind = Kind::action;
    bool cancelled = false;
    std::function<void()> action;  // when kind == action
  };
  using Handle = std::uint32_t;

  Handle add_task_end(double time, graphs::NodeId node, graphs::TaskId task) {
    return add(time, Kind::task_end, node, task);
  }
  // A typed event: it lives in its heap entry, and popping it does not touch events_ (at
  // thousands of nodes that array is far larger than the cache, and each pop was a miss there).
  Handle add(double time, Kind kind, graphs::NodeId node, std::uint32_t id) {
    const Handle h = slot();
    push(time, h, node, id, kind);
    return h;
  }
  // A typed event that fires after every other event of its time, as SimGrid reports the
  // network's completions after its timers.
  Handle add_late(double time, Kind kind, graphs::NodeId node, std::uint32_t id) {
    const Handle h = slot();
    heap_.push_back({time, kLate | next_sequence_++, h, node, id, kind});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
    return h;
  }
  Handle add_action(double time, std::function<void()> action) {
    const Handle h = slot();
    events_[h].action = std::move(action);
    push(time, h, 0, 0, Kind::action);
    return h;
  }
  // The event will not fire (it stays queued until its time, then is dropped).
  void cancel(Handle h) {
    if (!events_[h].cancelled) ++cancelled_;
    events_[h].cancelled = true;
  }
  void clear() {
    for (const Entry& entry : heap_) release(entry.handle);
    heap_.clear();
    cancelled_ = 0;
  }

  bool empty() const { return heap_.empty(); }
  // What the earliest events are, for cache hints: rank 0 is the earliest, 1 the one after it (the
  // earlier of the root's two children), 2 the one after those (the root's other child or a child
  // of the second). A hint only: an event added meanwhile may come first.
  struct Upcoming {
    Kind kind = Kind::action;
    graphs::NodeId node = 0;
    std::uint32_t id = 0;
  };
  bool peek(int rank, Upcoming& out) const {
    if (heap_.size() <= std::size_t(rank)) return false;
    std::size_t i = 0;
    if (rank >= 1) i = second_index();
    if (rank == 2) {
      const std::size_t second = i;
      i = second == 1 ? 2 : 1;
      for (std::size_t c = 2 * second + 1; c <= 2 * second + 2 && c < heap_.size(); ++c) {
        if (Later{}(heap_[i], heap_[c])) i = c;
      }
    }
    out = {heap_[i].kind, heap_[i].node, heap_[i].id};
    return true;
  }
  double earliest() const { return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.front().time; }
  // Takes the earliest event due at or before `now` into `out`; false when none is due.
  bool pop_due(double now, Event& out) {
    if (heap_.empty() || heap_.front().time > now) return false;
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    const Entry entry = heap_.back();
    heap_.pop_back();
    if (entry.kind != Kind::action && cancelled_ == 0) {
      // Nothing is cancelled: its slot holds nothing to read (no action, not cancelled).
      out.node = entry.node;
      out.id = entry.id;
      out.kind = entry.kind;
      out.cancelled = false;
      out.action = nullptr;
      free_.push_back(entry.handle);
      return true;
    }
    const Handle h = entry.handle;
    out = std::move(events_[h]);
    out.node = entry.node;
    out.id = entry.id;
    out.kind = entry.kind;
    if (out.cancelled) --cancelled_;
    release(h);
    return true;
  }

private:
  struct Entry {
    double time;
    std::uint64_t sequence;
    Handle handle;
    graphs::NodeId node;  // a typed event's (node, id)
    std::uint32_t id;
    Kind kind;
  };
  // A function object, not a function pointer: the heap's comparisons are inlined.
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };
  std::size_t second_index() const { return heap_.size() > 2 && Later{}(heap_[1], heap_[2]) ? 2 : 1; }
  Handle slot() {
    if (!free_.empty()) {
      const Handle h = free_.back();
      free_.pop_back();
      return h;
    }
    events_.emplace_back();
    return static_cast<Handle>(events_.size() - 1);
  }
  void release(Handle h) {
    events_[h] = Event{};
    free_.push_back(h);
  }
  void push(double time, Handle h, graphs::NodeId node, std::uint32_t id, Kind kind) {
    heap_.push_back({time, next_sequence_++, h, node, id, kind});
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }

  std::vector<Entry> heap_;
  std::vector<Event> events_;  // per handle: an action, and whether it was cancelled
  std::vector<Handle> free_;
  static constexpr std::uint64_t kLate = std::uint64_t{1} << 62;  // sorts after every sequence
  std::uint64_t next_sequence_ = 0;
  std::uint32_t cancelled_ = 0;  // queued events marked cancelled
};

}  // namespace ftsim::simgrid_backend
