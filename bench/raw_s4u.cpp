// The baseline of bench/engine_speed.py: a plain S4U program doing what a task runtime asks of
// SimGrid, exec and comm, with no runtime logic at all. On `hosts` hosts of `cores` cores, each
// core runs an actor that executes `tasks` short computations, and each host runs a sender that
// puts `messages` messages to the next host's mailbox, whose receiver gets them. It prints the
// activities completed and the wall time, so that the engine's speed can be compared with it.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

int main(int argc, char** argv) {
  int quiet_argc = 2;
  char name[] = "raw_s4u";
  char quiet[] = "--log=root.thresh:critical";
  char* quiet_argv[] = {name, quiet, nullptr};
  if (argc < 5) {
    std::fprintf(stderr, "usage: raw_s4u HOSTS CORES TASKS_PER_CORE MESSAGES_PER_HOST\n");
    return 2;
  }
  const int hosts = std::atoi(argv[1]), cores = std::atoi(argv[2]);
  const long tasks = std::atol(argv[3]), messages = std::atol(argv[4]);
  sg4::Engine engine(&quiet_argc, quiet_argv);

  auto* zone = sg4::create_star_zone("raw");
  const sg4::Link* backbone = zone->create_link("backbone", 1e11)->set_latency(1e-6)->seal();
  for (int h = 0; h < hosts; ++h) {
    const std::string host_name = "host-" + std::to_string(h);
    const sg4::Host* host = zone->create_host(host_name, 1e9)->set_core_count(cores)->seal();
    const sg4::Link* up = zone->create_link(host_name + "_up", 5e9)->set_latency(1e-6)->seal();
    const sg4::Link* down = zone->create_link(host_name + "_down", 5e9)->set_latency(1e-6)->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr, {sg4::LinkInRoute{up}, sg4::LinkInRoute{backbone}}, false);
    zone->add_route(nullptr, host->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute{backbone}, sg4::LinkInRoute{down}}, false);
  }
  zone->seal();

  static long completed = 0;
  for (int h = 0; h < hosts; ++h) {
    sg4::Host* host = engine.host_by_name("host-" + std::to_string(h));
    for (int c = 0; c < cores; ++c) {
      sg4::Actor::create("core", host, [tasks, h, c] {
        for (long t = 0; t < tasks; ++t) {
          sg4::this_actor::execute(1e6 * (1 + (t + h + c) % 7));  // 1 to 7 ms, desynchronised
          ++completed;
        }
      });
    }
    sg4::Mailbox* next = sg4::Mailbox::by_name("mailbox-" + std::to_string((h + 1) % hosts));
    sg4::Mailbox* mine = sg4::Mailbox::by_name("mailbox-" + std::to_string(h));
    sg4::Actor::create("sender", host, [next, messages] {
      static int payload = 0;
      for (long m = 0; m < messages; ++m) next->put(&payload, 409600);
    });
    sg4::Actor::create("receiver", host, [mine, messages] {
      for (long m = 0; m < messages; ++m) {
        mine->get<int>();
        ++completed;
      }
    });
  }
  const auto start = std::chrono::steady_clock::now();
  engine.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"activities\": %ld, \"wall_seconds\": %.6f, \"simulated_seconds\": %.6f}\n", completed, wall,
              sg4::Engine::get_clock());
  return 0;
}
