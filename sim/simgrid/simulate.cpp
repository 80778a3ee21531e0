#include "sim/simgrid/simulate.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "graphs/graph_stats.hpp"
#include "protocols/registry.hpp"
#include "sim/world/run_metrics_json.hpp"
#include "sim/simgrid/simgrid_backend.hpp"

namespace ftsim::simgrid_backend {

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = [](int) { request_stop(); };
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // every signal, the second one too, only asks to stop
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

SimulationResult simulate_in_process(const config::Config& config, const graphs::TaskGraph& graph,
                                     const graphs::CostModel& cost, const world::SimulationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::clock_t cpu_start = std::clock();
  SimgridBackend backend(config);
  // Ctrl-C or a batch system's SIGTERM: stop the simulation and still report its results. Set
  // after SimGrid's engine exists, which installs a SIGINT handler of its own that exits.
  install_stop_handlers();
  world::SimulationOptions with_metrics = options;
  with_metrics.protocol_metrics = protocols::protocol_metric_definitions(config);
  world::Simulation simulation(config, graph, cost, protocols::make_protocol_factory(config, graph), backend,
                               with_metrics);
  backend.set_events(&simulation);
  simulation.start();
  const auto setup_end = std::chrono::steady_clock::now();
  backend.run();
  simulation.finish();
  SimulationResult result;
  result.metrics = simulation.metrics();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.cpu_seconds = double(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  result.setup_seconds = std::chrono::duration<double>(setup_end - start).count();
  return result;
}

namespace {

volatile sig_atomic_t running_child = 0;  // the simulation process the parent waits for

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

}  // namespace

SimulationResult simulate(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost,
                          const world::SimulationOptions& options) {
  // FTSIM_NO_FORK=1 runs in this process (for debuggers); only one simulation per process then.
  if (const char* no_fork = std::getenv("FTSIM_NO_FORK"); no_fork && std::string(no_fork) == "1") {
    try {
      return simulate_in_process(config, graph, cost, options);
    } catch (const Interrupted& e) {
      SimulationResult result;
      result.metrics.failure_reason = std::string(e.what()) + ", before the simulation started";
      return result;
    }
  }
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    ::close(pipe_fds[0]);
    nlohmann::json answer;
    try {
      SimulationResult result = simulate_in_process(config, graph, cost, options);
      answer = {{"metrics", world::to_json(result.metrics)}, {"wall_seconds", result.wall_seconds},
                {"cpu_seconds", result.cpu_seconds}, {"setup_seconds", result.setup_seconds}};
    } catch (const Interrupted& e) {
      node::RunMetrics metrics;
      metrics.failure_reason = std::string(e.what()) + ", before the simulation started";
      answer = {{"metrics", world::to_json(metrics)}, {"wall_seconds", 0.0}};
    } catch (const config::ConfigError& e) {
      answer = {{"config_error", {{"file", e.file()}, {"pointer", e.pointer()}, {"message", e.message()}}}};
    } catch (const std::exception& e) {
      answer = {{"error", e.what()}};
    }
    write_all(pipe_fds[1], answer.dump());
    ::close(pipe_fds[1]);
    std::fflush(stderr);
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  // The child handles the interruption and reports; the parent waits for its results and passes
  // the signals meant for it on to the child (a terminal's Ctrl-C reaches both: harmless).
  running_child = child;
  auto forward = [](int signal) {
    request_stop();  // this process stops too: no reference run after an interrupted one
    if (running_child > 0) ::kill(running_child, signal);
  };
  auto previous_int = std::signal(SIGINT, forward);
  auto previous_term = std::signal(SIGTERM, forward);
  // The child stops itself at /run/wall_limit, but only between events: a hang inside one event
  // never reaches that check. Past the limit and a grace, with no answer begun, it is killed.
  const double limit = config.run.wall_limit;
  const double deadline = limit > 0 ? limit + std::max(10.0, 0.1 * limit) : 0;
  const auto forked = std::chrono::steady_clock::now();
  bool hung = false;
  std::string text;
  char buffer[1 << 16];
  while (true) {
    if (deadline > 0 && text.empty()) {
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - forked).count();
      if (waited >= deadline) {
        hung = true;
        ::kill(child, SIGKILL);
        break;
      }
      pollfd readable{pipe_fds[0], POLLIN, 0};
      const int ready = ::poll(&readable, 1, static_cast<int>(std::min(1000.0, 1000.0 * (deadline - waited))) + 1);
      if (ready <= 0) continue;  // a timeout or a signal: check the deadline again
    }
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  running_child = 0;
  std::signal(SIGINT, previous_int);
  std::signal(SIGTERM, previous_term);
  if (hung) {
    SimulationResult result;
    result.metrics.failure_reason = "hung: no result after " + std::to_string(deadline) +
                                    " s of wall time, the simulation process was killed (/run/wall_limit is " +
                                    std::to_string(limit) + " s)";
    result.wall_seconds = deadline;
    return result;
  }
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("the simulation process was killed by signal " + std::to_string(WTERMSIG(status)) +
                             (WTERMSIG(status) == 9 ? " (out of memory?)" : ""));
  }
  if (text.empty()) throw std::runtime_error("the simulation process ended without a result");
  const nlohmann::json answer = nlohmann::json::parse(text);
  if (answer.contains("config_error")) {
    const auto& e = answer["config_error"];
    throw config::ConfigError(e["file"], e["pointer"], e["message"]);
  }
  if (answer.contains("error")) throw std::runtime_error(answer["error"].get<std::string>());
  SimulationResult result;
  result.metrics = world::run_metrics_from_json(answer.at("metrics"));
  result.wall_seconds = answer.at("wall_seconds");
  result.cpu_seconds = answer.value("cpu_seconds", 0.0);
  result.setup_seconds = answer.value("setup_seconds", 0.0);
  return result;
}

double default_time_limit(const config::Config& config, const graphs::TaskGraph& graph, const graphs::CostModel& cost) {
  if (config.run.time_limit) return *config.run.time_limit;
  if (config.failures.model == config::FailureModel::none) return 0;  // nothing can loop forever
  double total = 0;
  for (graphs::TaskId t = 0; t < graph.task_count(); ++t) total += cost.seconds(graph, t);
  const double path = graphs::longest_path(graph, [&](graphs::TaskId t) { return cost.seconds(graph, t); });
  const double bound = std::max(path, total / (double(graph.node_count()) * config.platform.cores_per_node));
  return 1000.0 * bound + 3600.0;
}

}  // namespace ftsim::simgrid_backend
