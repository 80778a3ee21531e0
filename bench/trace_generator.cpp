// ftsim_trace_generator: a large random ftsim-trace for bench/analyze_scale.py, written through
// the analysis writer. A run of P processes that mostly talk to their ring neighbours (some
// messages go anywhere), checkpoint independently (each event is followed by a checkpoint with
// probability 1/EVERY) and log their messages by Guermouche's epoch rule (from an earlier epoch
// to a later one). Every message is received before the trace ends.
//   ftsim_trace_generator PROCESSES EVENTS SEED EVERY OUTPUT
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/trace_builder.hpp"
#include "analysis/trace_json_writer.hpp"
#include "sim/config/random_stream.hpp"

using namespace ftsim::analysis;

namespace {

std::uint64_t argument(const char* text, const char* name) {
  std::uint64_t value = 0;
  const std::string s(text);
  const auto result = std::from_chars(s.data(), s.data() + s.size(), value);
  if (result.ec != std::errc() || result.ptr != s.data() + s.size()) {
    std::cerr << "error: " << name << ": expected a non-negative integer, got " << s << "\n";
    std::exit(2);
  }
  return value;
}

std::string name_of(std::uint64_t m) {
  char buffer[16] = {'m'};
  const auto end = std::to_chars(buffer + 1, buffer + sizeof buffer, m, 36).ptr;
  return std::string(buffer, end);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::cerr << "usage: ftsim_trace_generator PROCESSES EVENTS SEED EVERY OUTPUT\n";
    return 2;
  }
  const std::uint64_t processes = argument(argv[1], "PROCESSES"), events = argument(argv[2], "EVENTS");
  std::uint64_t state = argument(argv[3], "SEED");
  const std::uint64_t every = argument(argv[4], "EVERY");
  if (processes < 2 || every == 0) {
    std::cerr << "error: PROCESSES >= 2 and EVERY >= 1\n";
    return 2;
  }
  auto draw = [&](std::uint64_t n) { return ftsim::config::splitmix64(state) % n; };

  // First the run in global order (to know each message's receive epoch before its send is
  // added), then the trace.
  struct Event {
    std::uint32_t process;
    std::uint32_t message;  // UINT32_MAX: a checkpoint
    bool receive;
  };
  std::vector<Event> run;
  run.reserve(events + events / every * 2 + processes);
  std::vector<std::uint32_t> epoch(processes, 0), sender_epoch;
  std::vector<std::uint8_t> logged;
  std::vector<std::uint32_t> destination;
  std::vector<std::deque<std::uint32_t>> inbox(processes);
  std::uint64_t in_transit = 0, messages = 0;
  auto after_event = [&](std::uint32_t p) {
    if (draw(every) == 0) {
      run.push_back({p, UINT32_MAX, false});
      ++epoch[p];
    }
  };
  auto receive = [&](std::uint32_t p) {
    const std::uint32_t m = inbox[p].front();
    inbox[p].pop_front();
    --in_transit;
    logged[m] = sender_epoch[m] < epoch[p];
    run.push_back({p, m, true});
    after_event(p);
  };
  while (2 * messages < events) {
    const auto p = std::uint32_t(draw(processes));
    if (!inbox[p].empty() && draw(2) == 0) {
      receive(p);
      continue;
    }
    // 90% to a ring neighbour within 2, 10% anywhere.
    std::uint32_t to;
    if (draw(10) != 0) {
      const std::uint64_t offset = 1 + draw(2);
      to = std::uint32_t(draw(2) ? (p + offset) % processes : (p + processes - offset) % processes);
    } else {
      to = std::uint32_t((p + 1 + draw(processes - 1)) % processes);
    }
    const auto m = std::uint32_t(messages++);
    sender_epoch.push_back(epoch[p]);
    logged.push_back(0);
    destination.push_back(to);
    inbox[to].push_back(m);
    ++in_transit;
    run.push_back({p, m, false});
    after_event(p);
  }
  for (std::uint32_t p = 0; p < processes; ++p) {
    while (!inbox[p].empty()) receive(p);
  }

  TraceBuilder builder(processes);
  builder.reserve_messages(messages, messages * 6);
  for (const Event& e : run) {
    if (e.message == UINT32_MAX) {
      builder.add_checkpoint(e.process);
    } else if (e.receive) {
      builder.add_receive(e.process, name_of(e.message));
    } else {
      builder.add_send(e.process, name_of(e.message), destination[e.message], logged[e.message] != 0);
    }
  }
  const Trace trace = std::move(builder).build();
  write_trace_json_file(trace, argv[5]);
  std::cout << "{\"processes\": " << trace.process_count() << ", \"events\": " << trace.total_event_count()
            << ", \"messages\": " << trace.message_count() << "}\n";
  return 0;
}
