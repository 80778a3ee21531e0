#include "sim/world/run_metrics_json.hpp"

namespace ftsim::world {

using nlohmann::json;

const char* traffic_key(std::size_t kind) { return to_string(static_cast<node::Traffic>(kind)); }

namespace {

json traffic_json(const std::array<std::uint64_t, node::kTrafficKinds>& values) {
  json object = json::object();
  for (std::size_t k = 0; k < node::kTrafficKinds; ++k) object[traffic_key(k)] = values[k];
  return object;
}

std::array<std::uint64_t, node::kTrafficKinds> traffic_from(const json& object) {
  std::array<std::uint64_t, node::kTrafficKinds> values{};
  for (std::size_t k = 0; k < node::kTrafficKinds; ++k) values[k] = object.value(traffic_key(k), std::uint64_t{0});
  return values;
}

json optional_time(double t) { return t < 0 ? json(nullptr) : json(t); }
double time_from(const json& value) { return value.is_null() ? -1.0 : value.get<double>(); }

// A node's named protocol metrics, by name (the run's list gives the names and their order).
json named_json(const std::vector<node::RunMetrics::NamedValue>& names, const node::NodeMetrics& node) {
  json object = json::object();
  for (std::size_t i = 0; i < names.size(); ++i) object[names[i].name] = node.counters.named[i];
  return object;
}

// Recovery without spares (docs/shrink.md): machines at the start and the end, and what each
// re-hosting of a failed rank moved and how long it took until the rank was recovered.
json shrink_json(const node::RunMetrics& m) {
  json list = json::array();
  std::uint64_t bytes = 0;
  double seconds = 0;
  for (const node::RedistributionRecord& r : m.redistributions) {
    const bool recovered = r.recovered_at >= 0;
    list.push_back({{"node", r.node},
                    {"on_machine_of", r.machine_rank},
                    {"machine", r.machine},
                    {"from_machine", r.from_machine},
                    {"time", r.time},
                    {"recovered_at", optional_time(r.recovered_at)},
                    {"seconds", recovered ? json(r.recovered_at - r.time) : json(nullptr)},
                    {"bytes", r.bytes}});
    bytes += r.bytes;
    if (recovered) seconds += r.recovered_at - r.time;
  }
  return {{"nodes_at_start", m.machines_at_start},
          {"nodes_at_end", m.machines_at_end},
          {"ranks_per_machine", m.ranks_per_machine},
          {"redistribution_bytes", bytes},
          {"redistribution_seconds", seconds},
          {"redistributions", list}};
}

json migration_json(const node::MigrationMetrics& m) {
  json records = json::array();
  for (const node::MigrationRecord& r : m.records) {
    records.push_back({{"node", r.node},
                       {"true_alarm", r.true_alarm},
                       {"alarm", r.alarm},
                       {"predicted_failure", r.predicted_failure},
                       {"outcome", r.outcome},
                       {"safe_point", optional_time(r.safe_point)},
                       {"transfer_start", optional_time(r.transfer_start)},
                       {"end", optional_time(r.end)},
                       {"state_bytes", r.state_bytes},
                       {"forwarded_bytes", r.forwarded_bytes},
                       {"chunks", r.chunks}});
  }
  return {{"alarms", m.alarms},
          {"true_alarms", m.true_alarms},
          {"false_alarms", m.false_alarms},
          {"migrations_done", m.migrations_done},
          {"migrations_skipped", m.skipped_no_spare},
          {"migrations_interrupted", m.interrupted},
          {"failures_avoided", m.failures_avoided},
          {"bytes", m.bytes},
          {"seconds", m.seconds},
          {"records", records}};
}

node::MigrationMetrics migration_from(const json& j) {
  node::MigrationMetrics m;
  m.enabled = true;
  m.alarms = j.at("alarms");
  m.true_alarms = j.at("true_alarms");
  m.false_alarms = j.at("false_alarms");
  m.migrations_done = j.at("migrations_done");
  m.skipped_no_spare = j.at("migrations_skipped");
  m.interrupted = j.at("migrations_interrupted");
  m.failures_avoided = j.at("failures_avoided");
  m.bytes = j.at("bytes");
  m.seconds = j.at("seconds");
  for (const json& r : j.at("records")) {
    node::MigrationRecord record;
    record.node = r.at("node");
    record.true_alarm = r.at("true_alarm");
    record.alarm = r.at("alarm");
    record.predicted_failure = r.at("predicted_failure");
    record.outcome = r.at("outcome");
    record.safe_point = time_from(r.at("safe_point"));
    record.transfer_start = time_from(r.at("transfer_start"));
    record.end = time_from(r.at("end"));
    record.state_bytes = r.at("state_bytes");
    record.forwarded_bytes = r.at("forwarded_bytes");
    record.chunks = r.at("chunks");
    m.records.push_back(record);
  }
  return m;
}

// What /checkpoint_data did on a node (ContentCounters; results.md: nodes[].checkpoint_data).
json content_json(const node::ContentCounters& c) {
  json images = json::array();
  for (const node::ContentImageRecord& i : c.images) {
    images.push_back({{"checkpoint", i.checkpoint}, {"full", i.full}, {"logical_bytes", i.logical_bytes},
                      {"stored_bytes", i.stored_bytes}, {"seconds", i.seconds}});
  }
  return {{"full_images", c.full_images},
          {"incremental_images", c.incremental_images},
          {"full_logical_bytes", c.full_logical_bytes},
          {"full_stored_bytes", c.full_stored_bytes},
          {"incremental_logical_bytes", c.incremental_logical_bytes},
          {"incremental_stored_bytes", c.incremental_stored_bytes},
          {"uncompressed_bytes", c.uncompressed_bytes},
          {"blocks", c.blocks},
          {"zero_blocks", c.zero_blocks},
          {"unchanged_blocks", c.unchanged_blocks},
          {"stored_blocks", c.stored_blocks},
          {"hash_seconds", c.hash_seconds},
          {"compress_seconds", c.compress_seconds},
          {"decompress_seconds", c.decompress_seconds},
          {"restores", c.restores},
          {"restore_images", c.restore_images},
          {"restore_bytes", c.restore_bytes},
          {"images", images}};
}

node::ContentCounters content_from(const json& j) {
  node::ContentCounters c;
  c.full_images = j.at("full_images");
  c.incremental_images = j.at("incremental_images");
  c.full_logical_bytes = j.at("full_logical_bytes");
  c.full_stored_bytes = j.at("full_stored_bytes");
  c.incremental_logical_bytes = j.at("incremental_logical_bytes");
  c.incremental_stored_bytes = j.at("incremental_stored_bytes");
  c.uncompressed_bytes = j.at("uncompressed_bytes");
  c.blocks = j.at("blocks");
  c.zero_blocks = j.at("zero_blocks");
  c.unchanged_blocks = j.at("unchanged_blocks");
  c.stored_blocks = j.at("stored_blocks");
  c.hash_seconds = j.at("hash_seconds");
  c.compress_seconds = j.at("compress_seconds");
  c.decompress_seconds = j.at("decompress_seconds");
  c.restores = j.at("restores");
  c.restore_images = j.at("restore_images");
  c.restore_bytes = j.at("restore_bytes");
  for (const json& i : j.at("images")) {
    c.images.push_back({i.at("checkpoint"), i.at("full"), i.at("logical_bytes"), i.at("stored_bytes"), i.at("seconds")});
  }
  return c;
}

}  // namespace

json to_json(const node::RunMetrics& m) {
  json nodes = json::array();
  std::array<std::uint64_t, node::kTrafficKinds> bytes{}, messages{};
  std::uint64_t executions = 0, reexecutions = 0;
  for (const node::NodeMetrics& n : m.nodes) {
    nodes.push_back({{"executions", n.executions},
                     {"reexecutions", n.reexecutions},
                     {"busy_seconds", n.busy_seconds},
                     {"lost_seconds", n.lost_seconds},
                     {"bytes_sent", traffic_json(n.bytes_sent)},
                     {"messages_sent", traffic_json(n.messages_sent)},
                     {"duplicates_received", n.duplicates_received},
                     {"orphans_dropped", n.orphans_dropped},
                     {"sends_suppressed", n.sends_suppressed},
                     {"inputs_missing_at_start", n.inputs_missing_at_start},
                     {"checkpoint_store", {{"total_bytes", n.checkpoint_store_total}, {"peak_bytes", n.checkpoint_store_peak}}},
                     {"log_store", {{"total_bytes", n.log_store_total}, {"peak_bytes", n.log_store_peak},
                                    {"copies_peak_bytes", n.log_copies_peak}}},
                     {"peak_memory_bytes", n.peak_memory_bytes},
                     {"restarts", n.restarts},
                     {"protocol_metrics", named_json(m.protocol_metrics, n)}});
    const node::ContentCounters& c = n.counters.content;
    if (c.full_images + c.incremental_images + c.restores > 0 || !c.images.empty()) {
      nodes.back()["checkpoint_data"] = content_json(c);  // only with /checkpoint_data
    }
    for (std::size_t k = 0; k < node::kTrafficKinds; ++k) {
      bytes[k] += n.bytes_sent[k];
      messages[k] += n.messages_sent[k];
    }
    executions += n.executions;
    reexecutions += n.reexecutions;
  }
  json failures = json::array();
  for (const node::FailureRecord& f : m.failures) {
    failures.push_back({{"time", f.time},
                        {"node", f.node},
                        {"class", f.failure_class},
                        {"origin", f.origin},
                        {"burst", f.burst},
                        {"detected_at", optional_time(f.detected_at)},
                        {"replaced_at", optional_time(f.replaced_at)},
                        {"recovered_at", optional_time(f.recovered_at)},
                        {"recovery_time", f.recovered_at < 0 ? json(nullptr) : json(f.recovered_at - f.time)},
                        {"restart_point", f.restart_point},
                        {"tasks_reexecuted", f.tasks_reexecuted},
                        {"work_lost_seconds", f.work_lost_seconds},
                        {"processes_rolled_back", f.processes_rolled_back},
                        {"messages_replayed", f.messages_replayed},
                        {"bytes_replayed", f.bytes_replayed}});
  }
  json checkpoints = json::array();
  for (const node::CheckpointRecord& c : m.checkpoints) {
    checkpoints.push_back({{"id", c.id},
                           {"process", c.process < 0 ? json(nullptr) : json(c.process)},
                           {"started", optional_time(c.started)},
                           {"saved", optional_time(c.saved)},
                           {"committed", optional_time(c.committed)},
                           {"bytes", c.bytes},
                           {"aborted", c.aborted}});
  }
  json protocol_metrics = json::object(), protocol_metric_units = json::object();
  for (const node::RunMetrics::NamedValue& named : m.protocol_metrics) {
    protocol_metrics[named.name] = named.value;
    protocol_metric_units[named.name] = named.unit;
  }
  json oracle = {{"ok", m.oracle_ok}, {"missing", m.oracle_missing}, {"wrong", m.oracle_wrong}};
  if (m.test_faults_fired > 0) oracle["test_faults_fired"] = m.test_faults_fired;  // tests only
  json result = {{"complete", m.complete},
          {"failure_reason", m.failure_reason.empty() ? json(nullptr) : json(m.failure_reason)},
          {"makespan", m.makespan},
          {"executions", executions},
          {"reexecutions", reexecutions},
          {"bytes_sent", traffic_json(bytes)},
          {"messages_sent", traffic_json(messages)},
          {"starpu",
           {{"CP_DATA_NORMAL_COUNT", m.cp_data_normal_count},
            {"CP_DATA_NORMAL_TOTAL_SIZE", m.cp_data_normal_total_size},
            {"CP_DATA_CACHED_COUNT", m.cp_data_cached_count},
            {"CP_DATA_CACHED_SIZE", m.cp_data_cached_size},
            {"FT_SERVICE_MSGS_COUNT", m.ft_service_msgs_count},
            {"FT_SERVICE_MSGS_TOTAL_SIZE", m.ft_service_msgs_total_size},
            {"IN_MEM_CP_DATA_TOTAL", m.in_mem_cp_data_total},
            {"IN_MEM_CP_DATA_MAX_AT_T", m.in_mem_cp_data_max_at_t}}},
          {"log", {{"bytes", m.log_bytes}, {"peak_bytes", m.log_peak_bytes}, {"copies_peak_bytes", m.log_copies_peak_bytes}}},
          {"protocol_metrics", protocol_metrics},
          {"protocol_metric_units", protocol_metric_units},
          {"failures", failures},
          {"failure_events",
           {{"node", m.failure_events[0]},
            {"group", m.failure_events[1]},
            {"job", m.failure_events[2]},
            {"process", m.failure_events[3]},
            {"burst", m.burst_failures}}},
          {"checkpoints", checkpoints},
          {"nodes", nodes},
          {"oracle", oracle},
          {"stall_report", m.stall_report},
          {"events", m.events}};
  if (m.shrink_enabled) result["shrink"] = shrink_json(m);
  if (m.migration.enabled) result["migration"] = migration_json(m.migration);
  return result;
}

node::RunMetrics run_metrics_from_json(const json& j) {
  node::RunMetrics m;
  m.complete = j.at("complete").get<bool>();
  if (!j.at("failure_reason").is_null()) m.failure_reason = j.at("failure_reason").get<std::string>();
  m.makespan = j.at("makespan").get<double>();
  const json& starpu = j.at("starpu");
  m.cp_data_normal_count = starpu.at("CP_DATA_NORMAL_COUNT");
  m.cp_data_normal_total_size = starpu.at("CP_DATA_NORMAL_TOTAL_SIZE");
  m.cp_data_cached_count = starpu.at("CP_DATA_CACHED_COUNT");
  m.cp_data_cached_size = starpu.at("CP_DATA_CACHED_SIZE");
  m.ft_service_msgs_count = starpu.at("FT_SERVICE_MSGS_COUNT");
  m.ft_service_msgs_total_size = starpu.at("FT_SERVICE_MSGS_TOTAL_SIZE");
  m.in_mem_cp_data_total = starpu.at("IN_MEM_CP_DATA_TOTAL");
  m.in_mem_cp_data_max_at_t = starpu.at("IN_MEM_CP_DATA_MAX_AT_T");
  m.log_bytes = j.at("log").at("bytes");
  m.log_peak_bytes = j.at("log").at("peak_bytes");
  m.log_copies_peak_bytes = j.at("log").at("copies_peak_bytes");
  const json& units = j.at("protocol_metric_units");
  for (const auto& [name, value] : j.at("protocol_metrics").items()) {
    m.protocol_metrics.push_back({name, units.at(name).get<std::string>(), value.get<std::uint64_t>()});
  }
  for (const json& f : j.at("failures")) {
    node::FailureRecord r;
    r.time = f.at("time");
    r.node = f.at("node");
    r.failure_class = f.value("class", std::string("node"));
    r.origin = f.value("origin", r.node);
    r.burst = f.value("burst", false);
    r.detected_at = time_from(f.at("detected_at"));
    r.replaced_at = time_from(f.at("replaced_at"));
    r.recovered_at = time_from(f.at("recovered_at"));
    r.restart_point = f.at("restart_point");
    r.tasks_reexecuted = f.at("tasks_reexecuted");
    r.work_lost_seconds = f.at("work_lost_seconds");
    r.processes_rolled_back = f.at("processes_rolled_back");
    r.messages_replayed = f.at("messages_replayed");
    r.bytes_replayed = f.at("bytes_replayed");
    m.failures.push_back(r);
  }
  if (const auto events = j.find("failure_events"); events != j.end()) {
    m.failure_events[0] = events->value("node", std::uint64_t(0));
    m.failure_events[1] = events->value("group", std::uint64_t(0));
    m.failure_events[2] = events->value("job", std::uint64_t(0));
    m.failure_events[3] = events->value("process", std::uint64_t(0));
    m.burst_failures = events->value("burst", std::uint64_t(0));
  }
  for (const json& c : j.at("checkpoints")) {
    node::CheckpointRecord r;
    r.id = c.at("id");
    r.process = c.at("process").is_null() ? -1 : c.at("process").get<std::int64_t>();
    r.started = time_from(c.at("started"));
    r.saved = time_from(c.at("saved"));
    r.committed = time_from(c.at("committed"));
    r.bytes = c.at("bytes");
    r.aborted = c.at("aborted");
    m.checkpoints.push_back(r);
  }
  for (const json& n : j.at("nodes")) {
    node::NodeMetrics r;
    r.executions = n.at("executions");
    r.reexecutions = n.at("reexecutions");
    r.busy_seconds = n.at("busy_seconds");
    r.lost_seconds = n.at("lost_seconds");
    r.bytes_sent = traffic_from(n.at("bytes_sent"));
    r.messages_sent = traffic_from(n.at("messages_sent"));
    r.duplicates_received = n.at("duplicates_received");
    r.orphans_dropped = n.at("orphans_dropped");
    r.sends_suppressed = n.at("sends_suppressed");
    r.inputs_missing_at_start = n.at("inputs_missing_at_start");
    r.checkpoint_store_total = n.at("checkpoint_store").at("total_bytes");
    r.checkpoint_store_peak = n.at("checkpoint_store").at("peak_bytes");
    r.log_store_total = n.at("log_store").at("total_bytes");
    r.log_store_peak = n.at("log_store").at("peak_bytes");
    r.log_copies_peak = n.at("log_store").at("copies_peak_bytes");
    r.peak_memory_bytes = n.at("peak_memory_bytes");
    r.restarts = n.at("restarts");
    for (std::size_t i = 0; i < m.protocol_metrics.size(); ++i) {
      r.counters.named[i] = n.at("protocol_metrics").at(m.protocol_metrics[i].name);
    }
    if (n.contains("checkpoint_data")) r.counters.content = content_from(n.at("checkpoint_data"));
    m.nodes.push_back(r);
  }
  m.oracle_ok = j.at("oracle").at("ok");
  m.oracle_missing = j.at("oracle").at("missing").get<std::vector<std::string>>();
  m.oracle_wrong = j.at("oracle").at("wrong").get<std::vector<std::string>>();
  m.test_faults_fired = j.at("oracle").value("test_faults_fired", std::uint64_t{0});
  m.stall_report = j.at("stall_report").get<std::vector<std::string>>();
  m.events = j.at("events");
  if (j.contains("shrink")) {
    const json& shrink = j.at("shrink");
    m.shrink_enabled = true;
    m.machines_at_start = shrink.at("nodes_at_start");
    m.machines_at_end = shrink.at("nodes_at_end");
    m.ranks_per_machine = shrink.value("ranks_per_machine", std::uint32_t{1});
    for (const json& r : shrink.at("redistributions")) {
      node::RedistributionRecord record;
      record.node = r.at("node");
      record.machine_rank = r.at("on_machine_of");
      record.machine = r.value("machine", std::uint32_t{0});
      record.from_machine = r.value("from_machine", std::uint32_t{0});
      record.time = r.at("time");
      record.recovered_at = time_from(r.at("recovered_at"));
      record.bytes = r.at("bytes");
      m.redistributions.push_back(record);
    }
  }
  if (j.contains("migration")) m.migration = migration_from(j.at("migration"));
  return m;
}

}  // namespace ftsim::world
