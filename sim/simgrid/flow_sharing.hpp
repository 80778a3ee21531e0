#pragma once
// Max-min fair sharing of network links by flows (the "grouped" sharing solver,
// /platform/network/solver): SimGrid's flow model (CM02 / LV08 / SMPI, network_cm02.cpp and
// lmm/maxmin.cpp of SimGrid 3.32), computed with the flows of one route taken together.
//
// SimGrid gives every communication a variable of its max-min system and re-solves the whole
// connected system each time one starts or ends: with the thousands of concurrent checkpoint
// transfers of a buddy run (20,840 at 64 nodes) that is O(flows) per event, O(flows^2) per run.
// But two flows on the same route (same links, same penalty, same bound) always get the same
// share: the max-min problem only has one unknown per *route*. Here a route is a group of n
// identical variables, each flow's progress is the integral of its route's share since it joined
// (processor sharing: a flow of w units that joined when the integral was P ends when it reaches
// P + w), and a solve costs O(routes in use x links per route), whatever the number of flows.
//
// The model, as SimGrid 3.32 has it:
//  - a flow pays its route's latency (x the latency factor) first, without sharing anything;
//  - then it shares every link of its route with weight 1 and, with cross-traffic (SimGrid's
//    default), every link of the way back with weight 0.05 (the acknowledgements);
//  - weighted max-min: a flow's share is proportional to 1 / penalty, penalty = the route's
//    latency + weight_S / bandwidth of each link (LV08's RTT-unfairness; 0 for CM02); a route of
//    zero latency has penalty 1;
//  - each flow's share is bounded by the route's slowest link and by TCP's window,
//    gamma / (2 x route latency) (the latency before its factor);
//  - its rate is its share x the bandwidth factor: a flow of b bytes is b / factor units of work.
// The solve is SimGrid's progressive filling (lmm::MaxMin::maxmin_solve): saturate the link of
// least remaining / usage, fix the flows crossing it (or first those that reach their bound),
// repeat. Not modelled: link profiles (bandwidth or latency traces), Wi-Fi links, IB's penalties;
// the backend leaves those to SimGrid's solver.
#include <cstdint>
#include <limits>
#include <vector>

namespace ftsim::simgrid_backend {

class FlowSharing {
public:
  using LinkId = std::uint32_t;
  using RouteId = std::uint32_t;
  using FlowId = std::uint32_t;
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  struct Use {
    LinkId link;
    double weight;  // 1 on the route, 0.05 on the way back (cross-traffic)
  };
  struct RouteSpec {
    std::vector<Use> uses;
    double penalty = 1;  // > 0
    double bound = -1;   // the share's upper bound, <= 0: none
  };

  LinkId add_link(double capacity, bool fatpipe = false);
  RouteId add_route(const RouteSpec& spec);
  std::size_t route_count() const { return routes_.size(); }

  // A flow of `work` units (bytes / bandwidth factor) on `route`, sent at `now`; `tag` comes back
  // when it completes. It joins the sharing after `latency` seconds (the route's, factor applied).
  FlowId start(RouteId route, double work, double latency, double now, std::uint64_t tag);
  // The flow stops now (its host failed): it shares nothing from now on and never completes.
  void cancel(FlowId flow, double now);
  std::uint64_t tag(FlowId flow) const { return flows_[flow].tag; }

  // The time of the next join or completion (solving the sharing first if it changed at `now`), or
  // kNever. Call it at the instant of a change, before time moves on.
  double next_event(double now);
  // Joins and completions due at `now` (a completion within SimGrid's 1e-9 s of it); appends the
  // tags of the completed flows, in the order they were started.
  void advance(double now, std::vector<std::uint64_t>& completed);

  // For tests and reports: a flow's current rate in units per second (0 in its latency).
  double share(FlowId flow);
  std::size_t flows_in_flight() const { return flows_.size() - free_flows_.size(); }
  std::uint64_t solves() const { return solves_; }

private:
  // A route crossing a link, with what each of its flows weighs there (weight / penalty).
  struct Member {
    RouteId route;
    double usage;
    double load;  // usage x the route's active flows, kept as they come and go (a solve sums it)
  };
  struct Link {
    double capacity = 0;
    bool fatpipe = false;
    std::vector<Member> members;        // the active routes crossing it, kept as routes come and go
    std::uint32_t in_use_slot = kNone;  // position in links_in_use_
    // Solve state.
    double remaining = 0, usage = 0;
    double level = 0;    // remaining / usage
    bool light = false;  // still to saturate
    std::uint32_t light_slot = kNone;  // its position in light_ and light_levels_ (this solve)
  };
  struct RouteUse {  // a link of a route, as the solve reads it
    LinkId link;
    double weight;
    double usage;          // weight / penalty: what each flow of the route weighs on the link
    std::uint32_t member;  // its position in the link's members while the route is active
  };
  struct Mark {
    double mark;             // the route's progress at which the flow ends
    std::uint64_t sequence;  // the flow's start order (tells a flow id reused since)
    FlowId flow;
  };
  struct LaterMark {
    bool operator()(const Mark& a, const Mark& b) const {
      return a.mark != b.mark ? a.mark > b.mark : a.sequence > b.sequence;
    }
  };
  struct Route {
    std::uint32_t uses_begin = 0, uses_end = 0;
    double penalty = 1, bound = -1;
    std::uint32_t active = 0;   // flows past their latency
    double value = 0;           // each flow's share
    double progress = 0;        // integral of value since the start, at `updated`
    double updated = 0;
    double completion = kNever;  // of its first flow, as of the last solve
    std::uint32_t active_slot = kNone;  // position in active_routes_
    std::uint64_t fixed_stamp = 0;      // solve state: its value is fixed in this solve
    std::uint64_t round_stamp = 0;      // solve state: in the current round's list
    std::vector<Mark> marks;            // min-heap: the progress at which each flow ends
  };
  struct Flow {
    RouteId route = 0;
    double work = 0;
    std::uint64_t tag = 0;
    std::uint64_t sequence = 0;  // start order
    bool live = false;           // false once completed or cancelled (its mark may stay queued)
    bool joined = false;
  };
  static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

  void settle(double now);
  void changed(double now);
  void release(FlowId flow);
  bool current(FlowId flow, std::uint64_t sequence) const;
  void bring_up_to_date(Route& route, double now);
  void join(FlowId flow, double now);
  void set_active(RouteId id, bool active);
  void join_links(RouteId id);
  void update_loads(RouteId id);  // its active flows changed
  void leave_links(RouteId id);
  void drop_dead_marks(Route& route);
  void solve(double now);
  void saturate_by_scans();
  void saturate_by_heap();
  void saturate_round(double min_usage);  // the links of saturated_, at that level
  void fix(Route& route, double value);
  void saturated(Link& link);  // no longer light

  std::vector<Link> links_;
  std::vector<RouteUse> uses_;
  std::vector<LinkId> links_in_use_;  // links with active routes
  std::vector<Route> routes_;
  std::vector<Flow> flows_;
  std::vector<FlowId> free_flows_;
  std::vector<RouteId> active_routes_;  // routes with joined flows
  // Flows in their latency: (join time, start sequence, flow), a min-heap.
  struct Join {
    double time;
    std::uint64_t sequence;
    FlowId flow;
  };
  struct LaterJoin {
    bool operator()(const Join& a, const Join& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };
  std::vector<Join> joins_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> instant_done_;  // routes of latency only
  std::uint64_t next_sequence_ = 0;
  bool dirty_ = false;
  double change_time_ = 0;
  double solved_at_ = 0;
  double next_completion_ = kNever;
  std::uint64_t stamp_ = 0;
  std::uint64_t solves_ = 0;
  std::uint64_t cancelled_ = 0;  // flows ever cancelled (their marks may be stale)
  // Solve scratch (kept between solves: no allocation once grown).
  struct Level {
    double ratio;  // remaining / usage when pushed (a lower bound of its current one)
    LinkId link;
  };
  struct HigherLevel {  // a min-heap by level, links in id order at equal levels
    bool operator()(const Level& a, const Level& b) const {
      return a.ratio != b.ratio ? a.ratio > b.ratio : a.link > b.link;
    }
  };
  std::vector<Level> levels_;
  std::vector<LinkId> light_;  // links still to saturate (and, while scanning, some saturated since)
  // The level of each link of light_, kNever once saturated: the scans read this dense array, not
  // the links (the solver's least-level scan was 11% of a 64-node buddy run's instructions).
  std::vector<double> light_levels_;
  std::size_t light_alive_ = 0;  // entries of light_levels_ below kNever
  static constexpr std::size_t kScannedLinks = 512;  // scanned at each round up to this many
  std::vector<LinkId> saturated_;
  std::vector<RouteId> round_;
  std::uint64_t round_stamp_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> done_;  // (sequence, tag)
};

}  // namespace ftsim::simgrid_backend
