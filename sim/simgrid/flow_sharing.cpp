#include "sim/simgrid/flow_sharing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ftsim::simgrid_backend {

namespace {
// SimGrid 3.32's precisions: maxmin/precision (shares and usages) and surf/precision (dates).
constexpr double kMaxminPrecision = 1e-5;
constexpr double kDatePrecision = 1e-9;

// lmm's double_update: subtract, and round what falls under the precision down to zero.
void subtract(double& variable, double value, double precision) {
  variable -= value;
  if (variable < precision) variable = 0.0;
}

// The least of n levels (positive, finite or infinite: no NaN, so SSE2's min is the usual one),
// two lanes at a time: the solver's scan of a hundred links, ten times a solve.
double least_of(const double* level, std::size_t n) {
  double least = std::numeric_limits<double>::infinity();
  std::size_t i = 0;
#if defined(__SSE2__)
  __m128d a = _mm_set1_pd(least), b = a;
  for (; i + 4 <= n; i += 4) {
    a = _mm_min_pd(a, _mm_loadu_pd(level + i));
    b = _mm_min_pd(b, _mm_loadu_pd(level + i + 2));
  }
  a = _mm_min_pd(a, b);
  least = std::min(_mm_cvtsd_f64(a), _mm_cvtsd_f64(_mm_unpackhi_pd(a, a)));
#endif
  for (; i < n; ++i) least = level[i] < least ? level[i] : least;
  return least;
}

// Appends ids[i] for each level[i] equal to `value`, in order.
void append_equal(const double* level, const std::uint32_t* ids, std::size_t n, double value,
                  std::vector<std::uint32_t>& out) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128d v = _mm_set1_pd(value);
  for (; i + 4 <= n; i += 4) {
    const int low = _mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(level + i), v));
    const int high = _mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(level + i + 2), v));
    const int mask = low | high << 2;
    if (mask == 0) continue;
    for (int k = 0; k < 4; ++k) {
      if (mask >> k & 1) out.push_back(ids[i + k]);
    }
  }
#endif
  for (; i < n; ++i) {
    if (level[i] == value) out.push_back(ids[i]);
  }
}
}  // namespace

FlowSharing::LinkId FlowSharing::add_link(double capacity, bool fatpipe) {
  Link link;
  link.capacity = capacity;
  link.fatpipe = fatpipe;
  links_.push_back(link);
  return static_cast<LinkId>(links_.size() - 1);
}

FlowSharing::RouteId FlowSharing::add_route(const RouteSpec& spec) {
  if (!(spec.penalty > 0)) throw std::invalid_argument("flow sharing: a route's penalty must be positive");
  Route route;
  route.uses_begin = static_cast<std::uint32_t>(uses_.size());
  for (const Use& use : spec.uses) {
    if (use.link >= links_.size()) throw std::invalid_argument("flow sharing: unknown link");
    if (use.weight > 0) uses_.push_back({use.link, use.weight, use.weight / spec.penalty, kNone});
  }
  route.uses_end = static_cast<std::uint32_t>(uses_.size());
  route.penalty = spec.penalty;
  route.bound = spec.bound;
  routes_.push_back(std::move(route));
  return static_cast<RouteId>(routes_.size() - 1);
}

void FlowSharing::settle(double now) {
  // A change made at an earlier instant that no one asked about yet: solve it as of then, so that
  // the shares between then and now are the new ones.
  if (dirty_ && now > change_time_) solve(change_time_);
}

void FlowSharing::changed(double now) {
  dirty_ = true;
  change_time_ = now;
}

FlowSharing::FlowId FlowSharing::start(RouteId route, double work, double latency, double now, std::uint64_t tag) {
  settle(now);
  FlowId id;
  if (!free_flows_.empty()) {
    id = free_flows_.back();
    free_flows_.pop_back();
  } else {
    id = static_cast<FlowId>(flows_.size());
    flows_.emplace_back();
  }
  Flow& flow = flows_[id];
  flow.route = route;
  flow.work = work;
  flow.tag = tag;
  flow.sequence = next_sequence_++;
  flow.live = true;
  flow.joined = false;
  if (latency > 0) {
    joins_.push_back({now + latency, flow.sequence, id});
    std::push_heap(joins_.begin(), joins_.end(), LaterJoin{});
  } else {
    join(id, now);
  }
  return id;
}

void FlowSharing::join(FlowId id, double now) {
  Flow& flow = flows_[id];
  flow.joined = true;
  Route& route = routes_[flow.route];
  if (route.uses_begin == route.uses_end) {
    // A route of latency only (a platform file may have one): SimGrid ends it with its latency.
    instant_done_.push_back({flow.sequence, flow.tag});
    release(id);
    return;
  }
  bring_up_to_date(route, now);
  route.marks.push_back({route.progress + flow.work, flow.sequence, id});
  std::push_heap(route.marks.begin(), route.marks.end(), LaterMark{});
  if (route.active++ == 0) {
    set_active(flow.route, true);
  } else {
    update_loads(flow.route);
  }
  changed(now);
}

void FlowSharing::cancel(FlowId id, double now) {
  settle(now);
  Flow& flow = flows_[id];
  if (!flow.live) return;
  if (flow.joined) {
    Route& route = routes_[flow.route];
    bring_up_to_date(route, now);
    if (--route.active == 0) {
      set_active(flow.route, false);
    } else {
      update_loads(flow.route);
    }
    changed(now);
  }
  release(id);  // its mark or join entry stays queued: the sequence tells it is gone
  ++cancelled_;
}

void FlowSharing::release(FlowId id) {
  flows_[id].live = false;
  free_flows_.push_back(id);
}

bool FlowSharing::current(FlowId id, std::uint64_t sequence) const {
  return flows_[id].live && flows_[id].sequence == sequence;
}

void FlowSharing::bring_up_to_date(Route& route, double now) {
  route.progress += route.value * (now - route.updated);
  route.updated = now;
}

void FlowSharing::join_links(RouteId id) {
  const Route& route = routes_[id];
  for (std::uint32_t u = route.uses_begin; u < route.uses_end; ++u) {
    Link& link = links_[uses_[u].link];
    if (link.members.empty()) {
      link.in_use_slot = static_cast<std::uint32_t>(links_in_use_.size());
      links_in_use_.push_back(uses_[u].link);
    }
    uses_[u].member = static_cast<std::uint32_t>(link.members.size());
    link.members.push_back({id, uses_[u].usage, double(route.active) * uses_[u].usage});
  }
}

void FlowSharing::update_loads(RouteId id) {
  const Route& route = routes_[id];
  for (std::uint32_t u = route.uses_begin; u < route.uses_end; ++u) {
    links_[uses_[u].link].members[uses_[u].member].load = double(route.active) * uses_[u].usage;
  }
}

void FlowSharing::leave_links(RouteId id) {
  const Route& route = routes_[id];
  for (std::uint32_t u = route.uses_begin; u < route.uses_end; ++u) {
    const LinkId l = uses_[u].link;
    Link& link = links_[l];
    const std::uint32_t slot = uses_[u].member;
    const auto last = static_cast<std::uint32_t>(link.members.size() - 1);
    const Member moved = link.members.back();
    link.members[slot] = moved;
    link.members.pop_back();
    uses_[u].member = kNone;
    if (slot < link.members.size()) {
      // The member moved into the slot: the use it stands for says where it is now (only that
      // one: a route of a platform file may cross a link twice, with a member for each).
      const Route& other = routes_[moved.route];
      for (std::uint32_t v = other.uses_begin; v < other.uses_end; ++v) {
        if (uses_[v].link == l && uses_[v].member == last) {
          uses_[v].member = slot;
          break;
        }
      }
    }
    if (link.members.empty()) {
      const LinkId last = links_in_use_.back();
      links_in_use_[link.in_use_slot] = last;
      links_[last].in_use_slot = link.in_use_slot;
      links_in_use_.pop_back();
      link.in_use_slot = kNone;
    }
  }
}

void FlowSharing::set_active(RouteId id, bool active) {
  Route& route = routes_[id];
  if (active) {
    route.active_slot = static_cast<std::uint32_t>(active_routes_.size());
    active_routes_.push_back(id);
    join_links(id);
    return;
  }
  leave_links(id);
  const RouteId last = active_routes_.back();
  active_routes_[route.active_slot] = last;
  routes_[last].active_slot = route.active_slot;
  active_routes_.pop_back();
  route.active_slot = kNone;
  route.value = 0;
  route.completion = kNever;
}

void FlowSharing::drop_dead_marks(Route& route) {
  if (cancelled_ == 0) return;  // only a cancellation leaves a mark behind
  while (!route.marks.empty() && !current(route.marks.front().flow, route.marks.front().sequence)) {
    std::pop_heap(route.marks.begin(), route.marks.end(), LaterMark{});
    route.marks.pop_back();
  }
}

double FlowSharing::next_event(double now) {
  settle(now);
  if (dirty_) solve(change_time_);
  if (!instant_done_.empty()) return now;
  double next = next_completion_;
  if (!joins_.empty()) next = std::min(next, joins_.front().time);
  return next;
}

void FlowSharing::advance(double now, std::vector<std::uint64_t>& completed) {
  settle(now);
  done_.clear();
  done_.swap(instant_done_);
  // Completions first, on the shares of the last solve (the joins of this instant change them
  // only from now on).
  if (next_completion_ <= now + kDatePrecision) {
    for (std::size_t i = 0; i < active_routes_.size(); ++i) {
      Route& route = routes_[active_routes_[i]];
      if (route.completion > now + kDatePrecision) continue;
      bring_up_to_date(route, now);
      const double tolerance = route.value * kDatePrecision;
      for (;;) {
        drop_dead_marks(route);
        if (route.marks.empty() || route.marks.front().mark > route.progress + tolerance) break;
        const Mark mark = route.marks.front();
        std::pop_heap(route.marks.begin(), route.marks.end(), LaterMark{});
        route.marks.pop_back();
        done_.push_back({mark.sequence, flows_[mark.flow].tag});
        release(mark.flow);
        --route.active;
      }
      if (route.active > 0) update_loads(active_routes_[i]);
      route.completion = kNever;
      changed(now);
    }
    next_completion_ = kNever;
    for (std::size_t i = 0; i < active_routes_.size();) {
      const RouteId id = active_routes_[i];
      if (routes_[id].active == 0) {
        set_active(id, false);  // moves the last one here: look at slot i again
      } else {
        ++i;
      }
    }
  }
  while (!joins_.empty() && joins_.front().time <= now) {
    const Join join_entry = joins_.front();
    std::pop_heap(joins_.begin(), joins_.end(), LaterJoin{});
    joins_.pop_back();
    if (current(join_entry.flow, join_entry.sequence)) join(join_entry.flow, now);
  }
  if (!instant_done_.empty()) {  // routes of latency only, joined now
    done_.insert(done_.end(), instant_done_.begin(), instant_done_.end());
    instant_done_.clear();
  }
  std::sort(done_.begin(), done_.end());
  for (const auto& [sequence, tag] : done_) completed.push_back(tag);
}

double FlowSharing::share(FlowId id) {
  if (dirty_) solve(change_time_);
  const Flow& flow = flows_[id];
  return flow.live && flow.joined ? routes_[flow.route].value : 0.0;
}

void FlowSharing::solve(double now) {
  ++solves_;
  ++stamp_;
  dirty_ = false;
  for (const RouteId r : active_routes_) bring_up_to_date(routes_[r], now);
  // Each link in use: its usage, the sum over the flows crossing it of weight / penalty (a fat
  // pipe: the largest), and the links to saturate.
  light_.clear();
  light_levels_.clear();
  for (const LinkId l : links_in_use_) {
    Link& link = links_[l];
    link.remaining = link.capacity;
    double usage = 0;
    if (link.fatpipe) {
      for (const Member& m : link.members) usage = std::max(usage, m.usage);
    } else {
      for (const Member& m : link.members) usage += m.load;
    }
    link.usage = usage;
    link.light = link.remaining > link.capacity * kMaxminPrecision && usage > 0;
    if (!link.light) continue;
    link.level = link.remaining / usage;
    link.light_slot = static_cast<std::uint32_t>(light_.size());
    light_.push_back(l);
    light_levels_.push_back(link.level);
  }
  light_alive_ = light_.size();
  // Progressive filling (lmm::MaxMin::maxmin_solve): saturate the links at the least level of
  // remaining capacity over usage, fix the flows crossing them, repeat. Fixing a flow never lowers
  // a link's level (it takes at most the least level's share of what remains). A few hundred
  // links are scanned at each round; more are kept in a heap whose entries, lower bounds of their
  // link's level, are brought up to date when they come out on top.
  if (light_.size() <= kScannedLinks) {
    saturate_by_scans();
  } else {
    saturate_by_heap();
  }
  // Each route's next completion.
  next_completion_ = kNever;
  for (const RouteId r : active_routes_) {
    Route& route = routes_[r];
    if (route.fixed_stamp != stamp_) route.value = 0;  // no link to share (cannot happen on a route with links)
    drop_dead_marks(route);
    route.completion = kNever;
    if (!route.marks.empty() && route.value > 0) {
      route.completion = now + std::max(0.0, route.marks.front().mark - route.progress) / route.value;
    }
    next_completion_ = std::min(next_completion_, route.completion);
  }
  solved_at_ = now;
}

void FlowSharing::saturate_by_scans() {
  for (;;) {
    // Every link at the least level saturates in this round, as in SimGrid (equal values only),
    // in light_'s order.
    const double least = least_of(light_levels_.data(), light_levels_.size());
    if (least == kNever) return;
    saturated_.clear();
    append_equal(light_levels_.data(), light_.data(), light_.size(), least, saturated_);
    saturate_round(least);
    if (2 * light_alive_ < light_.size()) {
      // Most are saturated: drop them, keeping the order of the others.
      std::size_t kept = 0;
      for (std::size_t i = 0; i < light_.size(); ++i) {
        if (light_levels_[i] == kNever) continue;
        links_[light_[i]].light_slot = static_cast<std::uint32_t>(kept);
        light_[kept] = light_[i];
        light_levels_[kept++] = light_levels_[i];
      }
      light_.resize(kept);
      light_levels_.resize(kept);
    }
  }
}

void FlowSharing::saturate_by_heap() {
  levels_.clear();
  for (const LinkId l : light_) levels_.push_back({links_[l].level, l});
  std::make_heap(levels_.begin(), levels_.end(), HigherLevel{});
  const auto pop_least = [this]() -> bool {  // the least current level on top, or false
    while (!levels_.empty()) {
      const Level top = levels_.front();
      const Link& link = links_[top.link];
      if (!link.light) {
        std::pop_heap(levels_.begin(), levels_.end(), HigherLevel{});
        levels_.pop_back();
        continue;
      }
      const double ratio = link.level;
      if (ratio == top.ratio) return true;
      std::pop_heap(levels_.begin(), levels_.end(), HigherLevel{});
      levels_.back().ratio = ratio;
      std::push_heap(levels_.begin(), levels_.end(), HigherLevel{});
    }
    return false;
  };
  while (pop_least()) {
    const double least = levels_.front().ratio;
    saturated_.clear();
    while (pop_least() && levels_.front().ratio == least) {
      saturated_.push_back(levels_.front().link);
      std::pop_heap(levels_.begin(), levels_.end(), HigherLevel{});
      levels_.pop_back();
    }
    saturate_round(least);
    // A saturated link still light (the bound case) stays, at its new level.
    for (const LinkId l : saturated_) {
      if (!links_[l].light) continue;
      levels_.push_back({links_[l].level, l});
      std::push_heap(levels_.begin(), levels_.end(), HigherLevel{});
    }
  }
}

void FlowSharing::saturate_round(double min_usage) {
  ++round_stamp_;
  round_.clear();
  for (const LinkId l : saturated_) {
    for (const Member& m : links_[l].members) {
      Route& route = routes_[m.route];
      if (route.fixed_stamp == stamp_ || route.round_stamp == round_stamp_) continue;
      route.round_stamp = round_stamp_;
      round_.push_back(m.route);
    }
  }
  // Flows that reach their bound before this level are fixed first (at their bound), alone.
  double min_bound = -1;
  for (const RouteId r : round_) {
    const Route& route = routes_[r];
    if (route.bound > 0 && route.bound * route.penalty < min_usage) {
      min_bound = min_bound < 0 ? route.bound * route.penalty : std::min(min_bound, route.bound * route.penalty);
    }
  }
  for (const RouteId r : round_) {
    Route& route = routes_[r];
    if (min_bound < 0) {
      fix(route, min_usage / route.penalty);
    } else if (std::fabs(min_bound - route.bound * route.penalty) < kMaxminPrecision) {
      fix(route, route.bound);
    }
  }
  // A saturated link whose routes are all fixed is done, whatever rounding left of its usage; one
  // with routes left (the bound case) stays light.
  for (const LinkId l : saturated_) {
    Link& link = links_[l];
    if (!link.light) continue;
    bool unfixed = false;
    for (const Member& m : link.members) unfixed = unfixed || routes_[m.route].fixed_stamp != stamp_;
    if (!unfixed) saturated(link);
  }
}

void FlowSharing::saturated(Link& link) {
  link.light = false;
  light_levels_[link.light_slot] = kNever;
  --light_alive_;
}

void FlowSharing::fix(Route& route, double value) {
  route.value = value;
  route.fixed_stamp = stamp_;
  const double n = route.active;
  for (std::uint32_t u = route.uses_begin; u < route.uses_end; ++u) {
    Link& link = links_[uses_[u].link];
    // A saturated link's remaining capacity and usage are read by no one until the next solve
    // starts them again.
    if (!link.light) continue;
    if (!link.fatpipe) {
      subtract(link.remaining, n * uses_[u].weight * value, link.capacity * kMaxminPrecision);
      subtract(link.usage, n * uses_[u].usage, kMaxminPrecision);
    } else {
      // A fat pipe is shared by no one: its usage is the largest of the routes still unfixed.
      link.usage = 0;
      for (const Member& m : link.members) {
        if (routes_[m.route].fixed_stamp != stamp_) link.usage = std::max(link.usage, m.usage);
      }
    }
    // Saturated: it is dropped when next seen; otherwise its level has risen.
    if (!(link.usage > kMaxminPrecision) || !(link.remaining > link.capacity * kMaxminPrecision)) {
      saturated(link);
    } else {
      link.level = link.remaining / link.usage;
      light_levels_[link.light_slot] = link.level;
    }
  }
}

}  // namespace ftsim::simgrid_backend
