#include "sim/mpi/mpi_sweep.hpp"

#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "sim/sweep/sibling_executable.hpp"
#include "sim/sweep/sweep_progress.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/stop_request.hpp"

namespace ftsim::mpi {

namespace {

// Messages: a row (a JSON text) and "my share is done" to rank 0; "stop" and "the end" (the exit
// code) from rank 0.
constexpr int kTagRow = 1, kTagDone = 2, kTagStop = 3, kTagEnd = 4;

void pause() { std::this_thread::sleep_for(std::chrono::milliseconds(10)); }

// Every rank leaves with the worst of the ranks' codes (bad input is found by all, said by rank 0).
int agree(int code) {
  int worst = 0;
  MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

std::vector<std::size_t> broadcast_points(std::vector<std::size_t> points) {
  unsigned long long count = points.size();
  MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::vector<unsigned long long> data(points.begin(), points.end());
  data.resize(count);
  if (count) MPI_Bcast(data.data(), static_cast<int>(count), MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  return std::vector<std::size_t>(data.begin(), data.end());
}

// Waits for a message from `source` with `tag` without spinning (MPI's blocking calls poll the
// network on a core, which the points' simulations need); returns its status.
MPI_Status wait_for(int source, int tag) {
  MPI_Status status;
  int arrived = 0;
  while (true) {
    MPI_Iprobe(source, tag, MPI_COMM_WORLD, &arrived, &status);
    if (arrived) return status;
    pause();
  }
}

std::string receive_text(const MPI_Status& status) {
  int length = 0;
  MPI_Get_count(&status, MPI_CHAR, &length);
  std::string text(static_cast<std::size_t>(length), '\0');
  MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return text;
}

int receive_int(const MPI_Status& status) {
  int value = 0;
  MPI_Recv(&value, 1, MPI_INT, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return value;
}

}  // namespace

int run_sweep_on_ranks(const sweep::SweepOptions& options, int rank, int size) {
  sweep::install_stop_handlers();
  const auto start = std::chrono::steady_clock::now();
  const bool writer = rank == 0;
  std::optional<sweep::SweepPlan> plan;
  int code = 0;
  std::string error;
  try {
    plan = sweep::SweepPlan::load(options.config, config::parse_overrides(options.sets, options.cfgs));
  } catch (const config::ConfigError& e) {
    error = e.what();
    code = 2;
  }
  // Every rank finds the same error: rank 0 says it; a rank that alone finds one (a file it cannot
  // read on its host) says it too.
  int writer_code = code;
  MPI_Bcast(&writer_code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (writer && code != 0) std::cerr << "error: " << error << "\n";
  if (!writer && code != 0 && writer_code == 0) {
    // Several ranks may say theirs at once: one write per line, or the lines interleave.
    const std::string line = "ftsim-mpi sweep: rank " + std::to_string(rank) + ": error: " + error + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  if (agree(code) != 0) return 2;
  const sweep::Shard shard = sweep::parse_shard(options.shard);
  const std::vector<std::size_t> selected = sweep::shard_points(*plan, shard);
  if (options.list || options.list_json) {
    if (writer) sweep::print_points(*plan, selected, options.list_json);
    return 0;
  }

  // Rank 0 alone reads and writes the rows; it tells the ranks which points are left.
  const sweep::SweepPaths paths = sweep::sweep_paths(options, *plan, shard);
  std::optional<sweep::RowsFiles> files;
  std::vector<std::size_t> todo;
  if (writer) {
    try {
      files.emplace(paths.csv, paths.jsonl, paths.imports, *plan);
      for (const std::size_t index : selected) {
        if (!files->has(plan->points()[index].id)) todo.push_back(index);
      }
    } catch (const config::ConfigError& e) {
      std::cerr << "error: " << e.what() << "\n";
      code = 2;
    }
  }
  if (agree(code) != 0) return 2;
  todo = broadcast_points(todo);
  // Rank r runs every size-th point left, from the r-th.
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(rank); i < todo.size(); i += static_cast<std::size_t>(size)) mine.push_back(todo[i]);
  char host[256] = "?";
  ::gethostname(host, sizeof host - 1);
  sweep::RunnerOptions runner_options{sweep::sibling_executable("ftsim"), paths.points, options.jobs, true,
                                      "rank " + std::to_string(rank) + " of " + std::to_string(size) + " on " + host};
  sweep::PointRunner runner(*plan, mine, runner_options);

  if (!writer) {
    bool stopped_by_writer = false;
    while (!runner.done() && !stop_requested() && !stopped_by_writer) {
      const std::vector<sweep::Row> rows = runner.step();
      for (const sweep::Row& row : rows) {
        const std::string text = row.dump();
        MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, 0, kTagRow, MPI_COMM_WORLD);
      }
      int arrived = 0;
      MPI_Iprobe(0, kTagStop, MPI_COMM_WORLD, &arrived, MPI_STATUS_IGNORE);
      stopped_by_writer = arrived != 0;
      if (rows.empty()) pause();
    }
    const int interrupted = runner.done() && !stop_requested() ? 0 : 1;
    if (interrupted) runner.stop();
    MPI_Send(&interrupted, 1, MPI_INT, 0, kTagDone, MPI_COMM_WORLD);
    // A "stop" may still come: it is skipped; "the end" carries the exit code.
    while (true) {
      const MPI_Status status = wait_for(0, MPI_ANY_TAG);
      const int value = receive_int(status);
      if (status.MPI_TAG == kTagEnd) return value;
    }
  }

  sweep::Progress progress(selected.size(), selected.size() - todo.size(), ::isatty(STDERR_FILENO) == 1, sweep::estimate_points(*plan, todo),
                           options.jobs * static_cast<std::size_t>(size));
  std::size_t run_now = 0;
  int open_ranks = size - 1;
  bool interrupted = false, stop_sent = false;
  auto record = [&](const sweep::Row& row) {
    files->append(row);
    progress.finished(row, plan->describe(plan->points()[row["point"].get<std::size_t>()]));
    ++run_now;
  };
  while (!runner.done() || open_ranks > 0) {
    if (stop_requested() && !stop_sent) {  // tell the ranks, which may not have been signalled
      for (int r = 1; r < size; ++r) {
        const int nothing = 0;
        MPI_Send(&nothing, 1, MPI_INT, r, kTagStop, MPI_COMM_WORLD);
      }
      stop_sent = true;
      interrupted = true;
      runner.stop();
    }
    std::vector<sweep::Row> rows = runner.step();
    bool busy = !rows.empty();
    for (const sweep::Row& row : rows) record(row);
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
    while (arrived) {
      busy = true;
      if (status.MPI_TAG == kTagRow) {
        record(sweep::Row::parse(receive_text(status)));
      } else if (status.MPI_TAG == kTagDone) {
        interrupted = receive_int(status) != 0 || interrupted;
        --open_ranks;
      }
      MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status);
    }
    progress.tick();
    if (!busy) pause();
  }
  progress.close();
  interrupted = interrupted || stop_requested();
  if (!interrupted) files->sort();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  code = sweep::report_end(*plan, *files, paths, selected, run_now, wall, interrupted);
  for (int r = 1; r < size; ++r) MPI_Send(&code, 1, MPI_INT, r, kTagEnd, MPI_COMM_WORLD);
  return code;
}

}  // namespace ftsim::mpi
