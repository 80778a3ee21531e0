#include "sim/mpi/rank_process.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "sim/mpi/driver.hpp"

namespace ftsim::mpi {

using node::Bytes;
using node::WireReader;

RankProcess::RankProcess(const MpiRunSpec& spec, Transport& transport)
    : spec_(spec),
      transport_(transport),
      graph_(spec.graph),
      node_count_(spec.graph.node_count()),
      process_(static_cast<NodeId>(transport.rank())),
      index_(spec.graph),
      setup_{spec.config, spec.graph, index_, spec.cost, spec.config.platform.network.envelope},
      start_(std::chrono::steady_clock::now()),
      rank_(process_, process_ == node_count_, setup_, *this, spec.factory) {
  // Test only (tests/mpi): FTSIM_TEST_CRASH_RANK=r makes rank r crash with SIGSEGV after its
  // first task, to check that a real crash ends the whole job with a message naming the rank.
  if (const char* crash = std::getenv("FTSIM_TEST_CRASH_RANK")) crash_after_task_ = std::atoi(crash) == transport.rank();
  // Test only: FTSIM_TEST_THROW_RANK=r makes rank r throw an exception after its first task (an
  // error in the middle of a run, which must end the whole job promptly).
  if (const char* fail = std::getenv("FTSIM_TEST_THROW_RANK")) throw_after_task_ = std::atoi(fail) == transport.rank();
  // Test only: FTSIM_TEST_FAIL_ORDER_DELAY=seconds makes a victim take its fail order, and what the
  // driver rank sent after it (same channel), that much later while it runs on, as on a loaded
  // machine: the other hosts hear of its failure and may send it messages while it still runs
  // (docs/mpi.md, "What differs from a simulation").
  if (const char* delay = std::getenv("FTSIM_TEST_FAIL_ORDER_DELAY")) fail_order_delay_ = std::atof(delay);
  if (is_node()) {
    const std::size_t local = index_.tasks_of(process_).size();
    observer_.emplace(process_, index_);
    last_duration_.assign(local, 0);
    generation_.assign(local, 0);
    started_at_.assign(local, 0);
    pool_ = std::make_unique<WorkerPool>(spec.config.platform.cores_per_node, spec.kernels);
    if (spec.config.platform.local_storage.present) {
      disk_.emplace("FTSIM_LOCAL_STORAGE_DIR", "ftsim-local-rank-" + std::to_string(transport.rank()));
    }
  } else {
    driver_ = std::make_unique<Driver>(spec, *this);
  }
  rank_.start();
}

RankProcess::~RankProcess() = default;

double RankProcess::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

// ----------------------------------------------------------------------------- the loop

MpiRunResult RankProcess::run() {
  // As a job starts: every process has its input; then (after a barrier, so that the clocks of
  // all ranks start together) the protocols start, the initial values are sent, tasks scheduled.
  host()->load_initial_state();
  const double prepared = now();
  transport_.barrier();
  start_ = std::chrono::steady_clock::now();
  if (driver_) driver_->start();
  host()->start_protocol();
  host()->send_initial_values();
  host()->schedule();
  std::uint32_t idle = 0;
  while (!(driver_ ? driver_->done() : finishing_)) {
    if (step()) {
      idle = 0;
      continue;
    }
    // Nothing to do: give the cores to the workers and the other ranks (runs are often
    // oversubscribed), waking at once when a kernel finishes. The wait grows while idle.
    const auto wait = std::chrono::microseconds(std::min<std::uint32_t>(20u << std::min(idle, 4u), 200));
    ++idle;
    if (pool_) {
      pool_->wait_for_finished(wait);
    } else {
      std::this_thread::sleep_for(wait);
    }
  }
  MpiRunResult result;
  if (driver_) {
    result = driver_->take_result();
    result.phases.start = prepared;
  }
  return result;
}

bool RankProcess::step() {
  bool progress = false;
  int from = 0;
  Bytes packet;
  const int driver_rank = static_cast<int>(node_count_);
  for (int i = 0; i < 64 && transport_.receive(from, packet); ++i) {
    progress = true;
    if (fail_order_delay_ > 0 && from == driver_rank &&
        (!late_packets_.empty() || static_cast<PacketKind>(packet[0]) == PacketKind::fail)) {
      if (late_packets_.empty()) late_until_ = now() + fail_order_delay_;
      late_packets_.push_back(std::move(packet));
      continue;
    }
    handle(from, packet);
  }
  if (!late_packets_.empty() && now() >= late_until_) {
    const std::vector<Bytes> late = std::move(late_packets_);
    late_packets_.clear();
    for (const Bytes& p : late) handle(driver_rank, p);
    progress = true;
  }
  while (!local_answers_.empty()) {
    LocalAnswer answer = std::move(local_answers_.front());
    local_answers_.pop_front();
    progress = true;
    if (!host() || answer.incarnation != incarnation()) continue;  // the requester died meanwhile
    host()->on_storage_done(answer.token, answer.content ? &*answer.content : nullptr);
  }
  for (int i = 0; i < 64 && !inbox_.empty(); ++i) {
    LocalPacket local = std::move(inbox_.front());
    inbox_.pop_front();
    handle(transport_.rank(), local.packet);
    if (local.token != 0) released_.push_back(local.token);
    progress = true;
  }
  released_.clear();
  transport_.progress(released_);
  for (std::uint64_t token : released_) {
    auto it = in_flight_.find(token);
    if (it == in_flight_.end()) continue;
    const node::Message m = std::move(it->second);
    in_flight_.erase(it);
    // A dead incarnation's sends are nobody's business any more.
    if (host() && m.source_incarnation == incarnation()) host()->released(m);
    progress = true;
  }
  if (pool_ && pool_->collect(done_jobs_) > 0) {
    for (auto& job : done_jobs_) on_job_done(std::move(job));
    done_jobs_.clear();
    progress = true;
  }
  TimerAction action;
  while (!hold_timers_ && timers_.pop_due(now(), action)) {
    progress = true;
    if (!host() || action.incarnation != incarnation()) continue;  // timers die with their process
    if (action.kind == TimerAction::Kind::protocol) {
      host()->on_timer(action.token);
    } else {
      activity_timer_.erase(static_cast<TaskId>(action.token));
      host()->on_task_finished(static_cast<TaskId>(action.token));
    }
  }
  if (driver_ && driver_->tick()) progress = true;
  return progress;
}

void RankProcess::send_packet(int to, Bytes packet) {
  if (counted(static_cast<PacketKind>(packet[0]))) ++sent_;
  if (to == transport_.rank()) {
    inbox_.push_back({std::move(packet), 0});
  } else {
    transport_.send(to, std::move(packet));
  }
}

void RankProcess::to_driver(Bytes packet) { send_packet(static_cast<int>(node_count_), std::move(packet)); }

void RankProcess::handle(int from, const Bytes& packet) {
  if (packet.empty()) throw std::runtime_error("empty MPI packet from rank " + std::to_string(from));
  const auto kind = static_cast<PacketKind>(packet[0]);
  if (counted(kind)) ++received_;
  WireReader in(packet.data() + 1, packet.size() - 1);
  switch (kind) {
    case PacketKind::host_message: on_host_message(std::move(read_packet<HostMessage>(in).message)); return;
    case PacketKind::fail: {
      const Fail f = read_packet<Fail>(in);
      fail(f.incarnation, f.failure, f.process_only);
      return;
    }
    case PacketKind::notice: {
      const Notice n = read_packet<Notice>(in);
      if (host()) host()->on_failure_notice(n.notice);
      return;
    }
    case PacketKind::replace: {
      const Replace r = read_packet<Replace>(in);
      replace(r.incarnation, r.sequence);
      return;
    }
    case PacketKind::storage_done: {
      const StorageDone done = read_packet<StorageDone>(in);
      if (!host() || done.incarnation != incarnation()) return;  // the requester died meanwhile
      if (done.read && is_node()) {
        // The server's answer, on the reader's account (as the simulation counts it).
        ++metrics_.messages_sent[static_cast<std::size_t>(node::Traffic::restore)];
        metrics_.bytes_sent[static_cast<std::size_t>(node::Traffic::restore)] += done.bytes;
      }
      host()->on_storage_done(done.token, done.read && done.found ? &done.content : nullptr);
      return;
    }
    case PacketKind::status_query:
      to_driver(encode_packet(Status{read_packet<StatusQuery>(in).round, status()}));
      return;
    case PacketKind::finish:
      read_packet<Finish>(in);
      finishing_ = true;
      to_driver(encode_packet(results()));
      return;
    default:
      if (!driver_) throw std::runtime_error("rank " + std::to_string(transport_.rank()) + ": a driver packet from rank " +
                                             std::to_string(from));
      driver_->handle(from, kind, in);
      return;
  }
}

RankStatus RankProcess::status() const {
  RankStatus s;
  s.finished = host() && host()->finished();
  s.sent = sent_;
  s.received = received_;
  s.busy = (pool_ ? pool_->busy() : 0) + timers_.size() + inbox_.size() + local_answers_.size() +
           (transport_.sending() ? 1 : 0);
  s.remaining = host() && host()->has_runtime() ? host()->node_runtime().remaining_tasks() : 0;
  s.last_completion = last_completion_;
  return s;
}

// ----------------------------------------------------------------------------- messages

void RankProcess::send(node::Message m) {
  const std::uint64_t token = next_token_++;
  const int to = static_cast<int>(m.destination);
  std::size_t size = 128 + m.body.size() + (m.content ? m.content->size() : 0);
  for (const node::SharedBytes& part : m.parts) size += 16 + part->size();
  HostMessage outgoing{std::move(m)};
  Bytes packet = encode_packet(outgoing, size);
  // What released() needs: not the body nor the content.
  m = std::move(outgoing.message);
  m.body = Bytes{};
  m.parts.clear();
  m.content.reset();
  in_flight_.emplace(token, std::move(m));
  ++sent_;
  if (to == transport_.rank()) {
    inbox_.push_back({std::move(packet), token});
  } else {
    transport_.send(to, std::move(packet), token);
  }
}

void RankProcess::on_host_message(node::Message m) {
  // The rule of every backend (sim/world/rank_lifecycle.hpp): the running host takes it, or it is
  // kept for the replacement or a later incarnation (its sender heard of a failure whose fail
  // order is still on its way here), or it named a gone incarnation and is dropped.
  if (rank_.admit(std::move(m))) rank_.host()->deliver(m);  // (m is moved from only when kept)
}

// ----------------------------------------------------------------------------- fail-stop

void RankProcess::fail(std::uint32_t incarnation, std::uint64_t failure_index, bool process_only) {
  if (!rank_.up() || incarnation != rank_.incarnation() || !is_node()) return;
  if (disk_ && !process_only) disk_->wipe();  // the node failed: its local storage with it
  // The fail-stop of every backend (sim/world/rank_lifecycle.hpp); the incarnation it bumps makes
  // the dead incarnation's running kernels and sends ignored when they complete. Its timers go.
  rank_.fail_stop(metrics_, *observer_, failure_index);
  timers_.clear();
  activity_timer_.clear();
}

void RankProcess::replace(std::uint32_t incarnation, std::uint32_t last_sequence) {
  if (rank_.up()) return;
  rank_.replace(incarnation, last_sequence, metrics_);
  // What was kept for it is handed over at once, through the rule again.
  rank_.redeliver([this](node::Message&& m) {
    on_host_message(std::move(m));
    return true;
  });
}

// ----------------------------------------------------------------------------- tasks

void RankProcess::start_task(NodeId, TaskId task, double seconds) {
  if (task >= node::kActivityBase) {
    // A protocol activity (e.g. a copy task): it occupies a core of the host for its duration.
    activity_timer_[task] = timers_.add(now() + seconds, {TimerAction::Kind::activity, incarnation(), task});
    return;
  }
  const std::uint32_t s = slot(task);
  auto job = std::make_unique<KernelJob>();
  job->task = task;
  job->incarnation = incarnation();
  job->generation = ++generation_[s];
  job->seconds = seconds;
  started_at_[s] = now();
  const node::NodeRuntime& runtime = host()->node_runtime();
  for (const graphs::Access& a : graph_.accesses(task)) {
    const std::uint64_t bytes = graph_.bytes(a.handle);
    node::ContentRef input;
    if (graphs::reads(a.mode)) {
      input = runtime.input_content(a);
      // Not in memory at all (a protocol bug the oracle reports): the kernel reads zeros.
      if (!input || input->size() != bytes) input = std::make_shared<node::Content>(bytes, 0);
    }
    if (a.mode == graphs::AccessMode::R) {
      // Kernels do not write their R accesses: the shared, immutable content is safe to view.
      job->data.emplace_back(const_cast<std::uint8_t*>(input->data()), input->size());
      job->inputs.push_back(std::move(input));
      job->outputs.push_back(nullptr);
      continue;
    }
    auto output = input ? std::make_shared<node::Content>(*input) : std::make_shared<node::Content>(bytes, 0);
    job->data.emplace_back(output->data(), output->size());
    job->outputs.push_back(std::move(output));
  }
  pool_->submit(std::move(job));
}

void RankProcess::cancel_task(NodeId, TaskId task) {
  if (task >= node::kActivityBase) {
    auto it = activity_timer_.find(task);
    if (it != activity_timer_.end()) {
      timers_.cancel(it->second);
      activity_timer_.erase(it);
    }
    return;
  }
  ++generation_[slot(task)];  // the kernel cannot be stopped; its result will be ignored
}

void RankProcess::on_job_done(std::unique_ptr<KernelJob> job) {
  if (!job->error.empty()) {
    fail_run("rank " + std::to_string(process_) + ": kernel " + graph_.task_name(job->task) + " failed: " + job->error);
    return;
  }
  const std::uint32_t s = slot(job->task);
  if (!host() || job->incarnation != incarnation() || job->generation != generation_[s]) return;  // cancelled, or dead
  last_duration_[s] = now() - started_at_[s];
  last_completion_ = now();
  completing_ = job.get();
  host()->on_task_finished(job->task);
  completing_ = nullptr;
  if (crash_after_task_) std::raise(SIGSEGV);  // test only: a rank that crashes for real
  if (throw_after_task_) throw std::runtime_error("planted error after a task (FTSIM_TEST_THROW_RANK)");

}

node::ContentRef RankProcess::output_content(NodeId, TaskId task, HandleId h) {
  if (!completing_ || completing_->task != task) return nullptr;
  const auto accesses = graph_.accesses(task);
  for (std::size_t i = 0; i < accesses.size(); ++i) {
    if (accesses[i].handle == h && graphs::writes(accesses[i].mode)) return completing_->outputs[i];
  }
  return nullptr;
}

node::ContentRef RankProcess::initial_content(HandleId h) {
  auto content = std::make_shared<node::Content>(graph_.bytes(h), 0);
  spec_.kernels.initial(h, *content);
  return content;
}

bool RankProcess::observe_execution(TaskId task) {
  const world::NodeObserver::Execution execution = observer_->observe(task);
  if (execution.redoes_lost_work) {
    // Work the failure destroyed on this node, redone now: its cost is what the lost execution
    // measured.
    node::FailureEffect& effect = lost_effects_[execution.failure];
    ++effect.tasks_reexecuted;
    effect.work_lost_seconds += last_duration_[slot(task)];
  }
  if (spec_.inject_failures) {
    for (const config::FailureEvent& failure : spec_.config.failures.events) {
      if (failure.node != process_ || failure.after_tasks != observer_->executions()) continue;
      // The observer's part of the rank tells the driver, which injects the failure as any other.
      to_driver(encode_packet(TaskCount{process_, failure.kind}));
    }
  }
  return execution.again;
}

// ----------------------------------------------------------------------------- storage, timers, reports

std::uint32_t RankProcess::storage_servers() const { return spec_.config.platform.storage.hosts; }

bool RankProcess::storage_missing(std::uint32_t server) {
  if (server == node::kLocalStorage) return false;  // answered here (local_storage)
  if (storage_servers() != 0) return false;
  fail_run("the protocol needs stable storage but /platform/storage/hosts is 0");
  return true;
}

void RankProcess::storage_write(NodeId, std::uint32_t server, std::uint64_t key, Bytes content, std::uint64_t bytes,
                                std::uint64_t token) {
  if (server == node::kLocalStorage) return local_storage(true, key, &content, token);
  if (storage_missing(server)) return;
  to_driver(encode_packet(StorageWrite{incarnation(), server % storage_servers(), key, bytes, token, std::move(content)}));
}

void RankProcess::storage_read(NodeId, std::uint32_t server, std::uint64_t key, std::uint64_t token) {
  if (server == node::kLocalStorage) return local_storage(false, key, nullptr, token);
  if (storage_missing(server)) return;
  to_driver(encode_packet(StorageRead{incarnation(), server % storage_servers(), key, token}));
}

namespace {
std::string local_file(std::uint64_t key) { return std::to_string(key) + ".ckpt"; }  // in the rank's directory
}  // namespace

void RankProcess::local_storage(bool write, std::uint64_t key, const Bytes* content, std::uint64_t token) {
  if (!disk_ || !is_node()) {
    fail_run("the protocol writes to node-local storage but /platform/local_storage is not set");
    return;
  }
  // The disk is the rank's own: the I/O happens now, the answer comes from the rank's loop.
  LocalAnswer answer{incarnation(), token, std::nullopt};
  if (write) {
    if (std::string error = disk_->write(local_file(key), *content, content->size()); !error.empty()) {
      fail_run("node-local storage: " + error);
      return;
    }
  } else {
    if (auto object = disk_->read(local_file(key))) answer.content = std::move(object->content);
  }
  local_answers_.push_back(std::move(answer));
}

void RankProcess::storage_erase(NodeId, std::uint32_t server, std::uint64_t key) {
  if (server == node::kLocalStorage) {
    if (disk_) disk_->erase(local_file(key));
    return;
  }
  if (storage_servers() == 0) return;
  to_driver(encode_packet(StorageErase{server % storage_servers(), key}));
}

std::uint64_t RankProcess::set_timer(NodeId, double delay, std::uint64_t token) {
  return timers_.add(now() + delay, {TimerAction::Kind::protocol, incarnation(), token});
}

void RankProcess::cancel_timer(std::uint64_t id) { timers_.cancel(id); }

void RankProcess::record_failure_effect(const node::FailureNotice& failure, const node::FailureEffect& effect) {
  to_driver(encode_packet(FailureEffectReport{{failure.node, failure.incarnation}, effect}));
}

void RankProcess::record_recovered(const node::FailureNotice& failure) {
  to_driver(encode_packet(Recovered{{failure.node, failure.incarnation}}));
}

void RankProcess::record_checkpoint(const node::CheckpointRecord& record) {
  to_driver(encode_packet(Checkpoint{record}));
}

void RankProcess::fail_run(const std::string& reason) {
  to_driver(encode_packet(FailRun{reason}));
}

// ----------------------------------------------------------------------------- results

Results RankProcess::results() {
  if (host()) host()->account_peaks();
  Results results;
  results.process = process_;
  results.metrics = metrics_;
  results.last_completion = last_completion_;
  results.effects.assign(lost_effects_.begin(), lost_effects_.end());
  // The oracle on this rank's share: the final versions it must hold, and its tasks; and the
  // final buffers, for the bit-exact check against the failure-free run.
  world::OracleFindings findings;
  if (is_node()) {
    std::vector<HandleId> final_handles;
    for (HandleId h = 0; h < graph_.handle_count(); ++h) {
      if (graph_.version_node(h, graph_.final_version(h)) == process_) final_handles.push_back(h);
    }
    const node::NodeRuntime* runtime = host() ? &host()->node_runtime() : nullptr;
    observer_->check_oracle(graph_, runtime, final_handles, world::failure_free_digests(graph_), findings);
    for (HandleId h : final_handles) {
      if (!runtime) break;
      auto it = runtime->store().entries().find(node::VersionStore::key(h, graph_.final_version(h)));
      if (it != runtime->store().entries().end()) results.finals.emplace_back(h, it->second.content);
    }
  }
  std::string& stall = results.stall;
  const std::string phase = host() ? host()->protocol_phase() : std::string();
  if (is_node() && host() && (host()->node_runtime().remaining_tasks() > 0 || !phase.empty())) {
    const node::NodeRuntime& runtime = host()->node_runtime();
    stall = "node " + std::to_string(process_) + ": " + std::to_string(runtime.remaining_tasks()) + " tasks left" +
            (runtime.paused() ? " (paused by the protocol)" : "");
    for (TaskId t : runtime.waiting_sample(3)) stall += "; " + runtime.describe_wait(t);
    if (!phase.empty()) stall += "; protocol: " + phase;  // what it waits for (Protocol::phase)
  } else if (!is_node() && !phase.empty()) {
    stall = "coordinator: " + phase;
  } else if (is_node() && !host()) {
    stall = "node " + std::to_string(process_) + ": dead, never replaced";
  }
  results.missing = std::move(findings.missing_lines);
  results.wrong = std::move(findings.wrong_lines);
  return results;
}

}  // namespace ftsim::mpi
