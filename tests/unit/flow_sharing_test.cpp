// The "grouped" sharing solver (sim/simgrid/flow_sharing.hpp) on cases computed by hand: SimGrid's
// weighted max-min sharing with flows of one route taken together, latencies, bounds,
// cross-traffic weights, cancellations, and flow ids reused after a cancellation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/simgrid/flow_sharing.hpp"

using ftsim::simgrid_backend::FlowSharing;

namespace {

// Runs the sharing until nothing is left; returns each tag's completion time.
std::vector<double> run_to_end(FlowSharing& sharing, std::size_t tags, double now = 0) {
  std::vector<double> done(tags, -1);
  std::vector<std::uint64_t> completed;
  for (double next = sharing.next_event(now); next != FlowSharing::kNever; next = sharing.next_event(now)) {
    now = next;
    completed.clear();
    sharing.advance(now, completed);
    for (std::uint64_t tag : completed) done.at(tag) = now;
  }
  return done;
}

FlowSharing::RouteSpec route(std::vector<FlowSharing::Use> uses, double penalty = 1, double bound = -1) {
  FlowSharing::RouteSpec spec;
  spec.uses = std::move(uses);
  spec.penalty = penalty;
  spec.bound = bound;
  return spec;
}

struct Started {
  FlowSharing::FlowId id;
  std::vector<FlowSharing::Use> uses;
  double penalty;
  FlowSharing::RouteId route;
};

// Weighted max-min fairness of the current shares: no link over its capacity, and each flow has a
// bottleneck, a saturated link where no flow has a larger share x penalty.
void check_max_min_fair(FlowSharing& s, const std::vector<Started>& flows, const std::vector<double>& capacity) {
  const std::size_t link_count = capacity.size();
  std::vector<double> load(link_count, 0);
  std::vector<double> level(link_count, 0);  // the largest share x penalty on each link
  for (const auto& f : flows) {
    const double share = s.share(f.id);
    REQUIRE(share > 0);
    for (const auto& u : f.uses) {
      load[u.link] += u.weight * share;
      level[u.link] = std::max(level[u.link], share * f.penalty);
    }
  }
  for (std::size_t l = 0; l < link_count; ++l) CHECK(load[l] <= capacity[l] * (1 + 1e-9));
  for (const auto& f : flows) {
    bool bottleneck = false;
    for (const auto& u : f.uses) {
      const bool saturated = load[u.link] >= capacity[u.link] * (1 - 1e-7);
      bottleneck = bottleneck || (saturated && s.share(f.id) * f.penalty >= level[u.link] * (1 - 1e-9));
    }
    CHECK(bottleneck);
  }
}

}  // namespace

TEST_CASE("flow sharing: a lone flow takes its latency plus work over capacity", "[simgrid][flows]") {
  FlowSharing s;
  const auto link = s.add_link(100);
  const auto r = s.add_route(route({{link, 1}}));
  s.start(r, 200, 0.5, 1.0, 0);
  const auto done = run_to_end(s, 1, 1.0);
  CHECK(done[0] == Approx(1.0 + 0.5 + 2.0).epsilon(1e-12));
}

TEST_CASE("flow sharing: flows of one route share equally, and the rest speeds up", "[simgrid][flows]") {
  FlowSharing s;
  const auto link = s.add_link(1);
  const auto r = s.add_route(route({{link, 1}}));
  s.start(r, 1, 0, 0, 0);
  s.start(r, 3, 0, 0, 1);
  const auto done = run_to_end(s, 2);
  CHECK(done[0] == Approx(2.0).epsilon(1e-12));  // 1 unit at 1/2
  CHECK(done[1] == Approx(4.0).epsilon(1e-12));  // 1 done at 1/2 by then, 2 left alone at 1
}

TEST_CASE("flow sharing: shares are weighted by 1 / penalty", "[simgrid][flows]") {
  FlowSharing s;
  const auto link = s.add_link(1);
  const auto a = s.add_route(route({{link, 1}}, 1));
  const auto b = s.add_route(route({{link, 1}}, 3));
  const auto fa = s.start(a, 100, 0, 0, 0);
  const auto fb = s.start(b, 100, 0, 0, 1);
  CHECK(s.share(fa) == Approx(0.75).epsilon(1e-12));
  CHECK(s.share(fb) == Approx(0.25).epsilon(1e-12));
  // Three flows on route b weigh three times as much: 1 against 3 x 1/3.
  s.start(b, 100, 0, 0, 2);
  s.start(b, 100, 0, 0, 3);
  CHECK(s.share(fa) == Approx(0.5).epsilon(1e-12));
  CHECK(s.share(fb) == Approx(0.5 / 3).epsilon(1e-12));
}

TEST_CASE("flow sharing: max-min over two links saturates the tighter first", "[simgrid][flows]") {
  // Flow 1 on A, flow 2 on A and B, flow 3 on B; A = 1, B = 2: A saturates at 1/2 each, B gives
  // flow 3 what flow 2 leaves: 1.5.
  FlowSharing s;
  const auto a = s.add_link(1), b = s.add_link(2);
  const auto f1 = s.start(s.add_route(route({{a, 1}})), 100, 0, 0, 0);
  const auto f2 = s.start(s.add_route(route({{a, 1}, {b, 1}})), 100, 0, 0, 1);
  const auto f3 = s.start(s.add_route(route({{b, 1}})), 100, 0, 0, 2);
  CHECK(s.share(f1) == Approx(0.5));
  CHECK(s.share(f2) == Approx(0.5));
  CHECK(s.share(f3) == Approx(1.5));
}

TEST_CASE("flow sharing: a bound caps a share and leaves the rest to others", "[simgrid][flows]") {
  FlowSharing s;
  const auto link = s.add_link(10);
  const auto capped = s.start(s.add_route(route({{link, 1}}, 1, 3)), 100, 0, 0, 0);
  CHECK(s.share(capped) == Approx(3));
  const auto free_flow = s.start(s.add_route(route({{link, 1}})), 100, 0, 0, 1);
  CHECK(s.share(capped) == Approx(3));
  CHECK(s.share(free_flow) == Approx(7));
}

TEST_CASE("flow sharing: cross-traffic weighs 0.05 on the way back", "[simgrid][flows]") {
  // Hosts A and B, up and down links of 1: A -> B and B -> A at once. Each up link carries one
  // flow (weight 1) and the other's acknowledgements (0.05): 1 / 1.05 each.
  FlowSharing s;
  const auto a_up = s.add_link(1), a_down = s.add_link(1), b_up = s.add_link(1), b_down = s.add_link(1);
  const auto ab = s.add_route(route({{a_up, 1}, {b_down, 1}, {b_up, 0.05}, {a_down, 0.05}}));
  const auto ba = s.add_route(route({{b_up, 1}, {a_down, 1}, {a_up, 0.05}, {b_down, 0.05}}));
  const auto f = s.start(ab, 1, 0, 0, 0);
  const auto g = s.start(ba, 1, 0, 0, 1);
  CHECK(s.share(f) == Approx(1 / 1.05).epsilon(1e-12));
  CHECK(s.share(g) == Approx(1 / 1.05).epsilon(1e-12));
}

TEST_CASE("flow sharing: a cancelled flow frees its share at once and never completes", "[simgrid][flows]") {
  FlowSharing s;
  const auto link = s.add_link(1);
  const auto r = s.add_route(route({{link, 1}}));
  const auto first = s.start(r, 10, 0, 0, 0);
  s.start(r, 10, 0, 0, 1);
  std::vector<std::uint64_t> completed;
  CHECK(s.next_event(0) == Approx(20));
  // At 4 s each has done 2: cancel the first; the second ends 8 s later.
  s.cancel(first, 4);
  CHECK(s.next_event(4) == Approx(12).epsilon(1e-12));
  // A new flow reuses the cancelled one's id: the stale entry must not speak for it.
  const auto reused = s.start(r, 100, 0, 4, 2);
  CHECK(reused == first);
  const auto done = run_to_end(s, 3, 4);
  CHECK(done[0] == -1);
  CHECK(done[1] == Approx(4 + 16).epsilon(1e-12));  // 8 left at 1/2
  CHECK(done[2] == Approx(4 + 16 + 92).epsilon(1e-12));
}

TEST_CASE("flow sharing: a flow shares nothing during its latency", "[simgrid][flows]") {
  FlowSharing s;
  const auto link = s.add_link(1);
  const auto r = s.add_route(route({{link, 1}}));
  s.start(r, 1, 2.0, 0, 0);
  s.start(r, 3, 0.0, 0, 1);
  const auto done = run_to_end(s, 2);
  // The fast flow is alone for 2 s (2 units), then both at 1/2: the fast one's last unit takes
  // 2 s (t = 4), the slow one has 1 - 1 = 0 left then: both end at 4.
  CHECK(done[1] == Approx(4).epsilon(1e-12));
  CHECK(done[0] == Approx(4).epsilon(1e-12));
}

TEST_CASE("flow sharing: equal flows end together, reported in start order", "[simgrid][flows]") {
  FlowSharing s;
  const auto link = s.add_link(4);
  const auto a = s.add_route(route({{link, 1}}));
  const auto b = s.add_route(route({{link, 1}}));
  s.start(b, 2, 0, 0, 7);
  s.start(a, 2, 0, 0, 3);
  s.start(b, 2, 0, 0, 5);
  std::vector<std::uint64_t> completed;
  const double next = s.next_event(0);
  CHECK(next == Approx(1.5));
  s.advance(next, completed);
  CHECK(completed == std::vector<std::uint64_t>{7, 3, 5});
  CHECK(s.next_event(next) == FlowSharing::kNever);
}

TEST_CASE("flow sharing: a change between solves is solved as of its own instant", "[simgrid][flows]") {
  // start() at t = 0, then nothing asked until t = 1: the share between 0 and 1 is the new one.
  FlowSharing s;
  const auto link = s.add_link(1);
  const auto r = s.add_route(route({{link, 1}}));
  s.start(r, 4, 0, 0, 0);
  s.start(r, 4, 0, 1, 1);  // the first has done 1 unit by then
  const auto done = run_to_end(s, 2, 1);
  CHECK(done[0] == Approx(1 + 6).epsilon(1e-12));  // 3 left at 1/2
  CHECK(done[1] == Approx(1 + 6 + 1).epsilon(1e-12));
}

// Weighted max-min fairness, checked by its characterisation rather than by hand: every link's
// load (sum of weight x share over its flows) is within its capacity, and every flow has a
// bottleneck, a saturated link on which no flow has a larger share x penalty. Random instances of
// a few links (the solve scans them) and of more than a thousand (it keeps them in a heap).
TEST_CASE("flow sharing: random instances are max-min fair, scanned or heaped, as flows come and go", "[simgrid][flows]") {
  for (const std::size_t link_count : {12u, 40u, 1500u}) {
    for (std::uint32_t seed = 1; seed <= 8; ++seed) {
      std::uint64_t state = seed * 0x9E3779B97F4A7C15ull + link_count;
      const auto next = [&state]() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
      };
      const auto uniform = [&next]() { return double(next() >> 11) / double(1ull << 53); };
      FlowSharing s;
      std::vector<double> capacity;
      for (std::size_t l = 0; l < link_count; ++l) {
        capacity.push_back(1 + 99 * uniform());
        s.add_link(capacity.back());
      }
      std::vector<Started> flows;
      const std::size_t routes = link_count * 2;
      for (std::size_t r = 0; r < routes; ++r) {
        std::vector<FlowSharing::Use> uses;
        const std::size_t hops = 1 + next() % 3;
        for (std::size_t h = 0; h < hops; ++h) {
          const auto link = static_cast<FlowSharing::LinkId>(next() % link_count);
          bool seen = false;
          for (const auto& u : uses) seen = seen || u.link == link;
          // A link twice now and then, as a route on a shared link of a platform file has it (its
          // way there and its cross-traffic back).
          if (!seen || next() % 2 == 0) uses.push_back({link, h == 0 || next() % 4 ? 1.0 : 0.05});
        }
        const double penalty = 0.5 + 2 * uniform();
        const auto id = s.add_route(route(uses, penalty));
        const std::size_t copies = 1 + next() % 3;
        for (std::size_t c = 0; c < copies; ++c) {
          flows.push_back({s.start(id, 1e9, 0, 0, flows.size()), uses, penalty, id});
        }
      }
      check_max_min_fair(s, flows, capacity);
      // Flows come and go on routes still in use (their loads on the links change): every third
      // cancelled, a new one on the route of every fifth; the shares are max-min fair again.
      std::vector<Started> after;
      for (std::size_t i = 0; i < flows.size(); ++i) {
        if (i % 3 == 0) {
          s.cancel(flows[i].id, 1);
        } else {
          after.push_back(flows[i]);
        }
      }
      for (std::size_t i = 0; i < flows.size(); i += 5) {
        after.push_back({s.start(flows[i].route, 1e9, 0, 1, flows.size() + i), flows[i].uses, flows[i].penalty,
                         flows[i].route});
      }
      check_max_min_fair(s, after, capacity);
    }
  }
}
