#include "analysis/smpi_trace_reader.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <tuple>

#include "analysis/trace_builder.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"

namespace ftsim::analysis {

namespace {

// Action files are text of a few MB per rank at most.
constexpr std::uint64_t kMaxSmpiFileBytes = std::uint64_t(4) << 30;

enum class Action { send, isend, recv, irecv, wait, waitall, collective, none };

// The collectives, named as in the trace.
enum class Collective {
  barrier, bcast, reduce, allreduce, gather, gatherv, scatter, scatterv, allgather, allgatherv,
  alltoall, alltoallv, reducescatter
};

const std::map<std::string_view, Collective>& collectives() {
  static const std::map<std::string_view, Collective> names{
      {"barrier", Collective::barrier},     {"bcast", Collective::bcast},
      {"reduce", Collective::reduce},       {"allreduce", Collective::allreduce},
      {"gather", Collective::gather},       {"gatherv", Collective::gatherv},
      {"scatter", Collective::scatter},     {"scatterv", Collective::scatterv},
      {"allgather", Collective::allgather}, {"allgatherv", Collective::allgatherv},
      {"alltoall", Collective::alltoall},   {"alltoallv", Collective::alltoallv},
      {"reducescatter", Collective::reducescatter}};
  return names;
}

bool is_ignored_action(std::string_view word) {
  for (std::string_view ignored : {"init", "finalize", "compute", "sleep", "test", "comm_size", "comm_split",
                                   "comm_dup", "location"}) {
    if (word == ignored) return true;
  }
  return false;
}

bool is_action(std::string_view word) {
  for (std::string_view p2p : {"send", "isend", "recv", "irecv", "wait", "waitall"}) {
    if (word == p2p) return true;
  }
  return collectives().count(word) > 0 || is_ignored_action(word);
}

struct Origin {
  std::uint32_t file;
  std::size_t line;
};

struct ParsedAction {
  Action action = Action::none;
  int partner = 0, tag = 0;  // send, recv; wait: src (partner), dst, tag
  int destination = -1;
  bool wait_has_request = false;
  Collective collective = Collective::barrier;
  std::string_view collective_name;
  int root = 0;
  std::vector<std::string_view> words;  // for collectives whose root depends on the rank count
  Origin origin;
};

struct LineError {
  Origin origin;
  std::string message;
};

[[noreturn]] void fail(Origin origin, std::string message) { throw LineError{origin, std::move(message)}; }

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

// Calls f(line_number, line) for each line that is neither blank nor a comment.
template <class F>
void for_each_line(std::string_view text, F&& f) {
  std::size_t number = 0, start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] != '#') f(number, line);
    if (end == text.size()) break;
    start = end + 1;
  }
}

int integer(std::string_view word, Origin origin, const char* what) {
  int value = 0;
  const auto result = std::from_chars(word.data(), word.data() + word.size(), value);
  if (result.ec != std::errc() || result.ptr != word.data() + word.size()) {
    fail(origin, std::string(what) + ": expected an integer, got \"" + std::string(word.substr(0, 30)) + "\"");
  }
  return value;
}

// "3" or "p3".
std::optional<int> rank_label(std::string_view word) {
  if (!word.empty() && word[0] == 'p') word.remove_prefix(1);
  int value = -1;
  const auto result = std::from_chars(word.data(), word.data() + word.size(), value);
  if (result.ec != std::errc() || result.ptr != word.data() + word.size() || value < 0) return std::nullopt;
  return value;
}

ParsedAction parse_action(const std::vector<std::string_view>& words, Origin origin) {
  ParsedAction parsed;
  parsed.origin = origin;
  const std::string_view name = words[1];
  const std::size_t args = words.size() - 2;
  auto need = [&](std::size_t count, const char* usage) {
    if (args < count) fail(origin, std::string(name) + " needs " + usage);
  };
  if (name == "send" || name == "isend" || name == "recv" || name == "irecv") {
    need(2, "a partner, a tag and a size (\"send PARTNER TAG SIZE [DATATYPE]\")");
    parsed.action = name == "send" ? Action::send : name == "isend" ? Action::isend : name == "recv" ? Action::recv : Action::irecv;
    parsed.partner = integer(words[2], origin, "partner");
    // The older form "send PARTNER SIZE" has no tag.
    parsed.tag = args >= 3 ? integer(words[3], origin, "tag") : 0;
    if (parsed.partner < 0) {
      fail(origin, "partner " + std::to_string(parsed.partner) +
                       ": a receive from any source cannot be matched; the trace must name the actual rank");
    }
  } else if (name == "wait") {
    parsed.action = Action::wait;
    if (args >= 3) {
      parsed.wait_has_request = true;
      parsed.partner = integer(words[2], origin, "source");
      parsed.destination = integer(words[3], origin, "destination");
      parsed.tag = integer(words[4], origin, "tag");
    }
  } else if (name == "waitall") {
    parsed.action = Action::waitall;
  } else if (auto found = collectives().find(name); found != collectives().end()) {
    parsed.action = Action::collective;
    parsed.collective = found->second;
    parsed.collective_name = found->first;
    parsed.words = words;
    switch (parsed.collective) {
      case Collective::bcast:
        need(1, "a size (\"bcast SIZE [ROOT [DATATYPE]]\")");
        parsed.root = args >= 2 ? integer(words[3], origin, "root") : 0;
        break;
      case Collective::reduce:
        need(2, "two sizes (\"reduce COMM_SIZE COMP_SIZE [ROOT [DATATYPE]]\")");
        parsed.root = args >= 3 ? integer(words[4], origin, "root") : 0;
        break;
      case Collective::gather:
      case Collective::scatter:
        need(2, "two sizes (\"gather SEND_SIZE RECV_SIZE [ROOT [DATATYPES]]\")");
        parsed.root = args >= 3 ? integer(words[4], origin, "root") : 0;
        break;
      case Collective::allreduce:
      case Collective::allgather:
      case Collective::alltoall:
        need(2, "two sizes");
        break;
      default:
        break;  // v-collectives: the root's place depends on the rank count, read when expanding
    }
  } else if (is_ignored_action(name)) {
    parsed.action = Action::none;
  } else {
    fail(origin, "unknown action \"" + std::string(name.substr(0, 30)) +
                     "\" (send, isend, recv, irecv, wait, waitall, a collective, or one without messages: init, "
                     "finalize, compute, sleep, test, comm_size, comm_split, comm_dup, location)");
  }
  return parsed;
}

// One message of a rank's history, in its local order.
struct Step {
  bool send;
  int peer;
  std::string id;
  Origin origin;
};

struct Expansion {
  std::vector<Step>& steps;
  int rank, ranks;
  Origin origin;

  void send(int to, const std::string& prefix) { steps.push_back({true, to, prefix + std::to_string(rank) + ">" + std::to_string(to), origin}); }
  void receive(int from, const std::string& prefix) {
    steps.push_back({false, from, prefix + std::to_string(from) + ">" + std::to_string(rank), origin});
  }
  // Binomial tree from root (SimGrid's bcast__binomial_tree): receive from the parent, then
  // send to the children, farthest first.
  void binomial_broadcast(int root, const std::string& prefix) {
    const int relative = (rank - root + ranks) % ranks;
    int mask = 1;
    while (mask < ranks) {
      if (relative & mask) {
        receive((rank - mask + ranks) % ranks, prefix);
        break;
      }
      mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (relative + mask < ranks) send((rank + mask) % ranks, prefix);
    }
  }
  // Every rank but the root sends to it; the root receives in rank order.
  void linear_to_root(int root, const std::string& prefix) {
    if (rank != root) {
      send(root, prefix);
      return;
    }
    for (int other = 0; other < ranks; ++other) {
      if (other != root) receive(other, prefix);
    }
  }
  void linear_from_root(int root, const std::string& prefix) {
    if (rank != root) {
      receive(root, prefix);
      return;
    }
    for (int other = 0; other < ranks; ++other) {
      if (other != root) send(other, prefix);
    }
  }
  // Every rank sends to every other, then receives from every other.
  void direct_exchange(const std::string& prefix) {
    for (int i = 1; i < ranks; ++i) send((rank + i) % ranks, prefix);
    for (int i = 1; i < ranks; ++i) receive((rank - i + ranks) % ranks, prefix);
  }
};

// The root of a v-collective, whose position follows the per-rank counts.
int v_root(const ParsedAction& action, int ranks) {
  const std::size_t args = action.words.size() - 2;
  const std::size_t root_at = 2 + 1 + std::size_t(ranks);  // gatherv: SEND RECV×n ROOT; scatterv: SEND×n RECV ROOT
  if (args < std::size_t(ranks) + 1) {
    fail(action.origin, std::string(action.collective_name) + " needs " + std::to_string(ranks + 1) +
                            " sizes for " + std::to_string(ranks) + " ranks");
  }
  return action.words.size() > root_at ? integer(action.words[root_at], action.origin, "root") : 0;
}

void expand_collective(const ParsedAction& action, int rank, int ranks, int sequence, std::vector<Step>& steps) {
  Expansion expansion{steps, rank, ranks, action.origin};
  const std::string prefix = std::string(action.collective_name) + std::to_string(sequence) + ":";
  auto check_root = [&](int root) {
    if (root < 0 || root >= ranks) {
      fail(action.origin, "root " + std::to_string(root) + " is not a rank (ranks 0 to " + std::to_string(ranks - 1) + ")");
    }
    return root;
  };
  switch (action.collective) {
    case Collective::barrier:  // ompi_basic_linear: in to rank 0, then out from it
      expansion.linear_to_root(0, prefix + "in:");
      expansion.linear_from_root(0, prefix + "out:");
      break;
    case Collective::bcast:
      expansion.binomial_broadcast(check_root(action.root), prefix);
      break;
    case Collective::reduce:
    case Collective::gather:
      expansion.linear_to_root(check_root(action.root), prefix);
      break;
    case Collective::gatherv:
      expansion.linear_to_root(check_root(v_root(action, ranks)), prefix);
      break;
    case Collective::scatter:
      expansion.linear_from_root(check_root(action.root), prefix);
      break;
    case Collective::scatterv:
      expansion.linear_from_root(check_root(v_root(action, ranks)), prefix);
      break;
    case Collective::allreduce:  // reduce to 0, then a binomial broadcast from 0
      expansion.linear_to_root(0, prefix + "reduce:");
      expansion.binomial_broadcast(0, prefix + "bcast:");
      break;
    case Collective::reducescatter:  // reduce to 0, then scatterv from 0
      expansion.linear_to_root(0, prefix + "reduce:");
      expansion.linear_from_root(0, prefix + "scatter:");
      break;
    case Collective::allgather:
    case Collective::allgatherv:
    case Collective::alltoall:
    case Collective::alltoallv:
      expansion.direct_exchange(prefix);
      break;
  }
}

struct Source {
  std::string name;
  const std::string* text;
};

class SmpiReader {
public:
  explicit SmpiReader(std::vector<Source> sources) : sources_(std::move(sources)) {}

  Trace read(bool one_file_per_rank) {
    if (one_file_per_rank) {
      actions_.resize(sources_.size());
      for (std::uint32_t file = 0; file < sources_.size(); ++file) read_rank_file(file);
    } else {
      read_combined_file();
    }
    if (actions_.empty()) fail({0, 0}, "no action lines (expected \"RANK ACTION ...\" lines)");
    const int ranks = int(actions_.size());
    steps_.resize(actions_.size());
    for (int rank = 0; rank < ranks; ++rank) expand_rank(rank, ranks);
    check_collectives_agree();
    match_point_to_point();
    return build();
  }

  const std::string& file_name(std::uint32_t file) const { return sources_[file].name; }

private:
  void read_rank_file(std::uint32_t file) {
    std::string_view label;
    for_each_line(*sources_[file].text, [&](std::size_t number, std::string_view line) {
      const Origin origin{file, number};
      const auto words = split_words(line);
      if (words.size() < 2) fail(origin, "expected \"RANK ACTION ...\"");
      if (label.empty()) label = words[0];
      if (words[0] != label) {
        fail(origin, "this file holds the actions of \"" + std::string(label) + "\", not of \"" +
                         std::string(words[0].substr(0, 20)) + "\"");
      }
      actions_[file].push_back(parse_action(words, origin));
    });
  }

  void read_combined_file() {
    for_each_line(*sources_[0].text, [&](std::size_t number, std::string_view line) {
      const Origin origin{0, number};
      const auto words = split_words(line);
      if (words.size() < 2) fail(origin, "expected \"RANK ACTION ...\"");
      const auto rank = rank_label(words[0]);
      if (!rank || *rank > 1'000'000) fail(origin, "\"" + std::string(words[0].substr(0, 20)) + "\" is not a rank");
      if (std::size_t(*rank) >= actions_.size()) actions_.resize(std::size_t(*rank) + 1);
      actions_[std::size_t(*rank)].push_back(parse_action(words, origin));
    });
  }

  void check_partner(int partner, int ranks, Origin origin) const {
    if (partner >= ranks) {
      fail(origin, "partner " + std::to_string(partner) + " is not a rank (ranks 0 to " + std::to_string(ranks - 1) + ")");
    }
  }

  // The rank's sends and receives in local order; point-to-point ids are set when matching.
  void expand_rank(int rank, int ranks) {
    struct Request {
      bool receive;
      int partner, tag;
      Origin origin;
    };
    std::vector<Request> pending;
    std::vector<Step>& steps = steps_[std::size_t(rank)];
    auto complete = [&](const Request& request) {
      if (request.receive) steps.push_back({false, request.partner, "#" + std::to_string(request.tag), request.origin});
    };
    int sequence = 0;
    for (const ParsedAction& action : actions_[std::size_t(rank)]) {
      switch (action.action) {
        case Action::send:
        case Action::isend:
          check_partner(action.partner, ranks, action.origin);
          steps.push_back({true, action.partner, "#" + std::to_string(action.tag), action.origin});
          if (action.action == Action::isend) pending.push_back({false, action.partner, action.tag, action.origin});
          break;
        case Action::recv:
          check_partner(action.partner, ranks, action.origin);
          steps.push_back({false, action.partner, "#" + std::to_string(action.tag), action.origin});
          break;
        case Action::irecv:
          check_partner(action.partner, ranks, action.origin);
          pending.push_back({true, action.partner, action.tag, {action.origin}});
          break;
        case Action::wait: {
          if (pending.empty()) break;  // caught by an earlier test, as SimGrid's replay assumes
          auto it = pending.end() - 1;  // a bare wait: the latest request
          if (action.wait_has_request) {
            it = std::find_if(pending.begin(), pending.end(), [&](const Request& r) {
              return r.tag == action.tag && (r.receive ? r.partner == action.partner && action.destination == rank
                                                       : r.partner == action.destination && action.partner == rank);
            });
            if (it == pending.end()) break;
          }
          complete(*it);
          pending.erase(it);
          break;
        }
        case Action::waitall:
          for (const Request& request : pending) complete(request);
          pending.clear();
          break;
        case Action::collective:
          collective_calls_.resize(actions_.size());
          collective_calls_[std::size_t(rank)].push_back(&action);
          expand_collective(action, rank, ranks, ++sequence, steps);
          break;
        case Action::none:
          break;
      }
    }
    for (const Request& request : pending) complete(request);  // completed by finalize
  }

  // Every rank calls the same collectives in the same order (MPI requires it on one communicator).
  void check_collectives_agree() {
    collective_calls_.resize(actions_.size());
    const auto& reference = collective_calls_[0];
    for (std::size_t rank = 1; rank < collective_calls_.size(); ++rank) {
      const auto& calls = collective_calls_[rank];
      for (std::size_t i = 0; i < std::max(calls.size(), reference.size()); ++i) {
        if (i >= calls.size()) {
          fail(reference[i]->origin, "rank 0 calls " + std::string(reference[i]->collective_name) + " (collective " +
                                         std::to_string(i + 1) + ") but rank " + std::to_string(rank) +
                                         " makes only " + std::to_string(calls.size()) + " collective calls");
        }
        if (i >= reference.size() || calls[i]->collective != reference[i]->collective) {
          fail(calls[i]->origin, "collective " + std::to_string(i + 1) + " of rank " + std::to_string(rank) + " is " +
                                     std::string(calls[i]->collective_name) + " but rank 0's is " +
                                     (i < reference.size() ? std::string(reference[i]->collective_name) : "missing"));
        }
      }
    }
  }

  // The k-th send from s to d with tag t and the k-th receive of d from s with tag t are one message.
  void match_point_to_point() {
    std::map<std::tuple<int, int, std::string>, int> sent, received;
    for (std::size_t rank = 0; rank < steps_.size(); ++rank) {
      for (Step& step : steps_[rank]) {
        if (step.id.empty() || step.id[0] != '#') continue;  // collective messages have their ids
        if (step.send) {
          const int k = sent[{int(rank), step.peer, step.id}]++;
          step.id = std::to_string(rank) + ">" + std::to_string(step.peer) + step.id + "." + std::to_string(k);
        }
      }
    }
    for (std::size_t rank = 0; rank < steps_.size(); ++rank) {
      for (Step& step : steps_[rank]) {
        if (step.id.empty() || step.id[0] != '#' || step.send) continue;
        const int k = received[{step.peer, int(rank), step.id}]++;
        const auto found = sent.find({step.peer, int(rank), step.id});
        if (found == sent.end() || k >= found->second) {
          fail(step.origin, "receive from rank " + std::to_string(step.peer) + " with tag " + step.id.substr(1) +
                                " has no matching send (rank " + std::to_string(step.peer) + " sends " +
                                std::to_string(found == sent.end() ? 0 : found->second) + " such messages)");
        }
        step.id = std::to_string(step.peer) + ">" + std::to_string(rank) + step.id + "." + std::to_string(k);
      }
    }
  }

  Trace build() {
    TraceBuilder builder;
    for (std::size_t rank = 0; rank < steps_.size(); ++rank) builder.add_process("rank " + std::to_string(rank));
    for (std::size_t rank = 0; rank < steps_.size(); ++rank) {
      for (const Step& step : steps_[rank]) {
        if (step.send) {
          builder.add_send(ProcessId(rank), step.id, std::uint64_t(step.peer));
        } else {
          builder.add_receive(ProcessId(rank), step.id);
        }
      }
    }
    try {
      return std::move(builder).build();
    } catch (const TraceError& e) {
      // A causal cycle (the trace cannot have run): name the action's line.
      const auto& where = e.where();
      if (where.process && where.event && *where.process < steps_.size() && *where.event < steps_[*where.process].size()) {
        fail(steps_[*where.process][*where.event].origin, e.message());
      }
      throw;
    }
  }

  std::vector<Source> sources_;
  std::vector<std::vector<ParsedAction>> actions_;  // per rank
  std::vector<std::vector<Step>> steps_;            // per rank
  std::vector<std::vector<const ParsedAction*>> collective_calls_;
};

Trace read_sources(std::vector<Source> sources, bool one_file_per_rank) {
  SmpiReader reader(sources);
  try {
    return reader.read(one_file_per_rank);
  } catch (const LineError& e) {
    throw TraceError(reader.file_name(e.origin.file), e.origin.line == 0 ? TraceLocation{} : TraceLocation::at_line(e.origin.line),
                     e.message);
  }
}

}  // namespace

bool looks_like_smpi_actions(const std::string& text) {
  bool result = false, decided = false;
  for_each_line(text, [&](std::size_t, std::string_view line) {
    if (decided) return;
    decided = true;
    const auto words = split_words(line);
    result = words.size() >= 2 && is_action(words[1]);
  });
  return result;
}

Trace parse_smpi_actions(const std::vector<std::string>& texts, const std::vector<std::string>& names) {
  std::vector<Source> sources;
  for (std::size_t i = 0; i < texts.size(); ++i) sources.push_back({i < names.size() ? names[i] : "<text>", &texts[i]});
  return read_sources(std::move(sources), texts.size() > 1);
}

Trace read_smpi_trace(const std::string& path) {
  auto read = [](const std::string& file) {
    try {
      return config::read_input_file(file, kMaxSmpiFileBytes);
    } catch (const config::ConfigError& e) {
      throw TraceError(file, {}, e.message());
    }
  };
  const std::string text = read(path);
  if (looks_like_smpi_actions(text)) {
    const std::vector<std::string> texts{text};
    return parse_smpi_actions(texts, {path});
  }
  // An index: one action file per rank, relative to the index's folder.
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::vector<std::string> names;
  for_each_line(text, [&](std::size_t, std::string_view line) {
    const auto words = split_words(line);
    const std::filesystem::path file{std::string(words[0])};
    names.push_back((file.is_absolute() ? file : folder / file).string());
  });
  if (names.empty()) throw TraceError(path, {}, "empty: expected SMPI actions or a list of per-rank action files");
  std::vector<std::string> texts;
  texts.reserve(names.size());
  for (const auto& name : names) texts.push_back(read(name));
  std::vector<Source> sources;
  for (std::size_t i = 0; i < names.size(); ++i) sources.push_back({names[i], &texts[i]});
  return read_sources(std::move(sources), true);
}

}  // namespace ftsim::analysis
