#include "analysis/checkpoint_placement.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "analysis/causal_order.hpp"
#include "analysis/trace_builder.hpp"
#include "analysis/trace_error.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"
#include "sim/config/random_stream.hpp"

namespace ftsim::analysis {

namespace {

template <class Number>
std::optional<Number> number_of(std::string_view text) {
  Number value{};
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<std::string_view> split(std::string_view text, char separator, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const auto at = text.find(separator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  parts.push_back(text);
  return parts;
}

void read_clusters(CheckpointPolicy& policy) {
  std::string text;
  try {
    text = config::read_input_file(policy.clusters_file, config::kMaxConfigFileBytes);
  } catch (const config::ConfigError& e) {
    throw TraceError(policy.clusters_file, {}, e.message());
  }
  std::size_t number = 0;
  std::string_view rest = text;
  auto fail = [&](const std::string& message) {
    throw TraceError(policy.clusters_file, TraceLocation::at_line(number), message);
  };
  while (!rest.empty() || number == 0) {
    const auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ++number;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    std::vector<std::string_view> words;
    for (std::string_view word : split(line, ' ', SIZE_MAX)) {
      while (!word.empty() && (word.back() == '\r' || word.back() == '\t')) word.remove_suffix(1);
      while (!word.empty() && word.front() == '\t') word.remove_prefix(1);
      if (!word.empty()) words.push_back(word);
    }
    if (words.empty()) {
      if (rest.empty()) break;
      continue;
    }
    if (words[0] == "period") {
      const auto period = words.size() == 2 ? number_of<std::uint64_t>(words[1]) : std::nullopt;
      if (!period || *period == 0) fail("expected \"period EVENTS\" with EVENTS a positive integer");
      if (policy.events != 0) fail("\"period\" given twice");
      policy.events = *period;
      continue;
    }
    std::vector<ProcessId> cluster;
    for (std::string_view word : words) {
      const auto range = split(word, '-', 2);
      const auto first = number_of<std::uint32_t>(range[0]);
      const auto last = range.size() == 2 ? number_of<std::uint32_t>(range[1]) : first;
      if (!first || !last || *last < *first || *last - *first > 10'000'000) {
        fail("\"" + std::string(word.substr(0, 30)) + "\": expected a rank or a range of ranks like 0-15");
      }
      for (std::uint32_t p = *first; p <= *last; ++p) cluster.push_back(p);
    }
    policy.clusters.push_back(std::move(cluster));
    policy.cluster_lines.push_back(number);
  }
  if (policy.events == 0) throw TraceError(policy.clusters_file, {}, "missing \"period EVENTS\" line");
  if (policy.clusters.empty()) throw TraceError(policy.clusters_file, {}, "no cluster (one line of ranks per cluster)");
}

// Per process, the cluster it belongs to; checks that the clusters partition the processes.
std::vector<std::uint32_t> cluster_of_processes(const CheckpointPolicy& policy, std::size_t processes) {
  std::vector<std::uint32_t> cluster_of(processes, UINT32_MAX);
  for (std::uint32_t c = 0; c < policy.clusters.size(); ++c) {
    for (ProcessId p : policy.clusters[c]) {
      const auto where = TraceLocation::at_line(policy.cluster_lines[c]);
      if (p >= processes) {
        throw TraceError(policy.clusters_file, where,
                         "rank " + std::to_string(p) + " is not a process of the trace (it has " +
                             std::to_string(processes) + ")");
      }
      if (cluster_of[p] != UINT32_MAX) {
        throw TraceError(policy.clusters_file, where,
                         "rank " + std::to_string(p) + " is already in the cluster of line " +
                             std::to_string(policy.cluster_lines[cluster_of[p]]));
      }
      cluster_of[p] = c;
    }
  }
  for (ProcessId p = 0; p < processes; ++p) {
    if (cluster_of[p] == UINT32_MAX) {
      throw TraceError(policy.clusters_file, {}, "rank " + std::to_string(p) + " is in no cluster");
    }
  }
  return cluster_of;
}

// New checkpoint positions per process.
std::vector<std::vector<Position>> positions_of(const Trace& trace, const CheckpointPolicy& policy,
                                                const std::vector<std::uint32_t>& cluster_of) {
  const std::size_t processes = trace.process_count();
  std::vector<std::vector<Position>> positions(processes);
  switch (policy.kind) {
    case CheckpointPolicy::Kind::periodic:
      for (ProcessId p = 0; p < processes; ++p) {
        for (std::uint64_t x = policy.events; x <= trace.communication_count(p); x += policy.events) {
          positions[p].push_back(Position(x));
        }
      }
      break;
    case CheckpointPolicy::Kind::random:
      for (ProcessId p = 0; p < processes; ++p) {
        std::uint64_t state = policy.seed ^ (0x9e3779b97f4a7c15ULL * (std::uint64_t(p) + 1));
        for (Position x = 1; x <= trace.communication_count(p); ++x) {
          const double uniform = double(config::splitmix64(state) >> 11) * 0x1.0p-53;
          if (uniform < policy.rate) positions[p].push_back(x);
        }
      }
      break;
    case CheckpointPolicy::Kind::clusters: {
      // Walk a causal order; a cluster checkpoints when its processes made `period` events each
      // on average since its last checkpoint. A prefix of a causal order is a consistent cut.
      std::vector<Position> done(processes, 0);
      std::vector<std::uint64_t> since(policy.clusters.size(), 0);
      visit_in_causal_order(trace, [&](ProcessId p, Position i) {
        done[p] = i + 1;
        const std::uint32_t c = cluster_of[p];
        if (++since[c] < policy.events * policy.clusters[c].size()) return;
        since[c] = 0;
        for (ProcessId q : policy.clusters[c]) positions[q].push_back(done[q]);
      });
      break;
    }
  }
  return positions;
}

// The epoch of p at position x: its checkpoints at or before x, plus its cluster's offset.
std::uint64_t epoch(const std::vector<Position>& checkpoints, Position x, std::uint64_t offset) {
  return offset + std::uint64_t(std::upper_bound(checkpoints.begin(), checkpoints.end(), x) - checkpoints.begin());
}

}  // namespace

CheckpointPolicy parse_checkpoint_policy(const std::string& text) {
  CheckpointPolicy policy;
  const auto parts = split(text, ':', 3);
  const std::string usage = " (periodic:EVENTS, random:SEED:RATE or clusters:FILE)";
  if (parts[0] == "periodic") {
    const auto events = parts.size() == 2 ? number_of<std::uint64_t>(parts[1]) : std::nullopt;
    if (!events || *events == 0 || *events > UINT32_MAX) {
      throw std::invalid_argument("checkpoints \"" + text + "\": EVENTS must be a positive integer" + usage);
    }
    policy.kind = CheckpointPolicy::Kind::periodic;
    policy.events = *events;
  } else if (parts[0] == "random") {
    const auto seed = parts.size() == 3 ? number_of<std::uint64_t>(parts[1]) : std::nullopt;
    const auto rate = parts.size() == 3 ? number_of<double>(parts[2]) : std::nullopt;
    if (!seed || !rate || !(*rate > 0 && *rate <= 1)) {
      throw std::invalid_argument("checkpoints \"" + text +
                                  "\": expected random:SEED:RATE, SEED a non-negative integer and 0 < RATE <= 1" + usage);
    }
    policy.kind = CheckpointPolicy::Kind::random;
    policy.seed = *seed;
    policy.rate = *rate;
  } else if (parts[0] == "clusters") {
    if (parts.size() < 2 || parts[1].empty()) throw std::invalid_argument("checkpoints \"" + text + "\": expected clusters:FILE" + usage);
    policy.kind = CheckpointPolicy::Kind::clusters;
    policy.clusters_file = text.substr(std::string("clusters:").size());  // a path may hold ':'
    read_clusters(policy);
  } else {
    throw std::invalid_argument("checkpoints \"" + text + "\": unknown policy" + usage);
  }
  return policy;
}

Logging parse_logging(const std::string& text) {
  if (text == "none") return Logging::none;
  if (text == "all") return Logging::all;
  if (text == "epochs") return Logging::epochs;
  if (text == "keep") return Logging::keep;
  throw std::invalid_argument("logging \"" + text + "\": expected none, all or epochs");
}

Trace place_checkpoints(const Trace& trace, const std::optional<CheckpointPolicy>& policy, Logging logging) {
  const std::size_t processes = trace.process_count();
  std::vector<std::vector<Position>> checkpoints(processes);
  std::vector<std::uint64_t> epoch_offset(processes, 0);
  if (policy) {
    std::vector<std::uint32_t> cluster_of;
    if (policy->kind == CheckpointPolicy::Kind::clusters) {
      cluster_of = cluster_of_processes(*policy, processes);
      for (ProcessId p = 0; p < processes; ++p) epoch_offset[p] = 2 * std::uint64_t(cluster_of[p]);
    }
    checkpoints = positions_of(trace, *policy, cluster_of);
  } else {
    for (ProcessId p = 0; p < processes; ++p) checkpoints[p] = trace.checkpoint_positions(p);
  }
  auto logged = [&](MessageId m) {
    switch (logging) {
      case Logging::keep: return trace.logged(m);
      case Logging::none: return false;
      case Logging::all: return true;
      case Logging::epochs: {
        if (!trace.received(m)) return false;
        const ProcessId s = trace.sender(m), r = trace.receiver(m);
        return epoch(checkpoints[s], trace.send_position(m), epoch_offset[s]) <
               epoch(checkpoints[r], trace.receive_position(m), epoch_offset[r]);
      }
    }
    return false;
  };

  TraceBuilder builder;
  builder.reserve_messages(trace.message_count(), 0);
  for (ProcessId p = 0; p < processes; ++p) builder.add_process(trace.process_name(p));
  builder.set_metadata(trace.metadata());
  for (ProcessId p = 0; p < processes; ++p) {
    const auto& positions = checkpoints[p];
    std::size_t next = 0;
    for (Position i = 0;; ++i) {
      for (; next < positions.size() && positions[next] == i; ++next) {
        builder.add_checkpoint(p, policy ? kNoTime : trace.checkpoint_time(p, CheckpointIndex(next + 1)));
      }
      if (i == trace.communication_count(p)) break;
      const MessageId m = trace.message_at(p, i);
      if (trace.is_receive_at(p, i)) {
        builder.add_receive(p, trace.message_name(m), trace.receive_time(m));
      } else {
        builder.add_send(p, trace.message_name(m), trace.receiver(m), logged(m), trace.bytes(m), trace.send_time(m));
      }
    }
  }
  return std::move(builder).build();
}

}  // namespace ftsim::analysis
