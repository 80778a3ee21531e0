#include "sim/sweep/sweep_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "sim/config/stop_request.hpp"

extern char** environ;

namespace ftsim::sweep {

namespace {

// The last `limit` bytes of a file ("" if it cannot be read).
std::string file_tail(const std::filesystem::path& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::size_t>(std::max<std::streamoff>(0, in.tellg()));
  in.seekg(static_cast<std::streamoff>(size > limit ? size - limit : 0));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::optional<Json> read_results(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  try {
    Json results = Json::parse(in);
    if (results.is_object()) return results;
  } catch (const nlohmann::json::exception&) {
    // Cut short (the child was killed while writing it): no results.
  }
  return std::nullopt;
}

// A word for a POSIX shell.
std::string shell_quoted(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:=+-") == std::string::npos;
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

bool is_launcher_variable(const char* entry) {
  for (const char* prefix : {"OMPI_", "PMIX_", "PMI_"}) {
    if (std::strncmp(entry, prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

}  // namespace

PointRunner::PointRunner(const SweepPlan& plan, std::vector<std::size_t> todo, RunnerOptions options)
    : plan_(plan), todo_(todo.begin(), todo.end()), options_(std::move(options)) {
  if (options_.jobs == 0) options_.jobs = 1;
  for (char** entry = environ; *entry; ++entry) {
    if (options_.plain_environment && is_launcher_variable(*entry)) continue;
    environment_.emplace_back(*entry);
  }
}

PointRunner::~PointRunner() {
  if (!children_.empty()) stop();
}

bool PointRunner::done() const { return children_.empty() && (todo_.empty() || stop_requested()); }

std::vector<Row> PointRunner::step() {
  std::vector<Row> rows;
  for (auto it = children_.begin(); it != children_.end();) {
    int status = 0;
    const pid_t pid = ::waitpid(it->first, &status, WNOHANG);
    if (pid == it->first) {
      rows.push_back(finished(it->second, status));
      it = children_.erase(it);
    } else {
      ++it;
    }
  }
  while (children_.size() < options_.jobs && !todo_.empty() && !stop_requested()) {
    const std::size_t index = todo_.front();
    todo_.pop_front();
    const Point& point = plan_.points()[index];
    const std::filesystem::path dir = options_.points_dir / point.id;
    const std::filesystem::path config = dir / "config.json";
    std::vector<std::string> arguments = {options_.ftsim, "run", config.string(), "-o", dir.string()};
    try {
      std::filesystem::remove_all(dir);  // what an interrupted run of this point left
      std::filesystem::create_directories(dir);
      std::ofstream out(config, std::ios::binary);
      out << plan_.point_config(point).dump(2) << "\n";
      out.flush();
      if (!out) throw std::runtime_error("cannot write " + config.string());
      std::ofstream command(dir / "command.txt", std::ios::binary);
      for (const auto& a : arguments) command << (&a == &arguments.front() ? "" : " ") << shell_quoted(a);
      command << "\n";
      if (!options_.runner.empty()) command << "# run by " << options_.runner << "\n";
    } catch (const std::exception& e) {
      rows.push_back(start_failed(index, e.what()));
      continue;
    }

    std::vector<char*> argv, envp;
    for (auto& a : arguments) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : environment_) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    const std::string out_path = (dir / "stdout.txt").string(), err_path = (dir / "stderr.txt").string();
    posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&files, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // A process group of its own (a terminal's Ctrl-C reaches the sweep, which decides), the
    // default handling of the stop signals even if the sweep was started with them ignored, and no
    // signal blocked.
    sigset_t defaults, empty;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    sigemptyset(&empty);
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &empty);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t pid = 0;
    const int error = ::posix_spawn(&pid, options_.ftsim.c_str(), &files, &attributes, argv.data(), envp.data());
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&files);
    if (error != 0) {
      rows.push_back(start_failed(index, fmt::format("cannot start {}: {}", options_.ftsim, std::strerror(error))));
      continue;
    }
    children_[pid] = Child{index, dir, std::chrono::steady_clock::now()};
  }
  return rows;
}

void PointRunner::stop() {
  for (const auto& [pid, child] : children_) ::kill(pid, SIGTERM);  // `ftsim run` stops and writes what it has
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!children_.empty()) {
    const bool late = std::chrono::steady_clock::now() > deadline;
    for (auto it = children_.begin(); it != children_.end();) {
      if (late) ::kill(it->first, SIGKILL);
      int status = 0;
      const pid_t pid = ::waitpid(it->first, &status, late ? 0 : WNOHANG);
      it = (pid == it->first || pid < 0) ? children_.erase(it) : std::next(it);
    }
    if (!children_.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

Row PointRunner::start_failed(std::size_t index, const std::string& why) const {
  const Point& point = plan_.points()[index];
  PointOutcome outcome;
  outcome.exit_code = 127;  // as a shell reports a command that cannot run
  outcome.stderr_tail = "error: " + why;
  return make_row(point, plan_.row_varied_columns(), plan_.row_varied_values(point), outcome);
}

Row PointRunner::finished(const Child& child, int status) const {
  const Point& point = plan_.points()[child.point];
  PointOutcome outcome;
  if (WIFSIGNALED(status)) {
    outcome.signal = WTERMSIG(status);
    outcome.exit_code = 128 + outcome.signal;
  } else {
    outcome.exit_code = WEXITSTATUS(status);
  }
  outcome.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - child.started).count();
  outcome.results = read_results(child.dir / "results.json");
  outcome.stderr_tail = file_tail(child.dir / "stderr.txt", 4096);
  return make_row(point, plan_.row_varied_columns(), plan_.row_varied_values(point), outcome);
}

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = [](int) { request_stop(); };
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

}  // namespace ftsim::sweep
