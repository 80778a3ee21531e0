// The trace model, its builder, and the JSON reader and writer (docs/trace-format.md): the
// issue's example read exactly, a round trip, and every kind of bad trace named by process and
// event index.
#include <catch2/catch.hpp>

#include <sstream>

#include "analysis/trace_builder.hpp"
#include "analysis/trace_json_reader.hpp"
#include "analysis/trace_json_writer.hpp"

using namespace ftsim::analysis;

namespace {

const char* const kExample = R"({"format": "ftsim-trace", "version": 1,
 "processes": [
   {"events": [{"checkpoint": 1}, {"send": "m1", "to": 1, "logged": false}, {"receive": "m2"}]},
   {"events": [{"receive": "m1"}, {"send": "m2", "to": 0}, {"checkpoint": 1}]}]})";

std::string written(const Trace& trace) {
  std::ostringstream out;
  write_trace_json(trace, out);
  return out.str();
}

// The message of the TraceError that parsing `text` throws.
std::string error_of(const std::string& text) {
  try {
    parse_trace_json(text, "t.json");
  } catch (const TraceError& e) {
    return e.what();
  }
  return "no error";
}

std::string with_processes(const std::string& processes) {
  return R"({"format": "ftsim-trace", "version": 1, "processes": )" + processes + "}";
}

}  // namespace

TEST_CASE("analysis: trace reader: the issue's example", "[analysis][trace]") {
  const Trace trace = parse_trace_json(kExample, "example");
  REQUIRE(trace.process_count() == 2);
  REQUIRE(trace.message_count() == 2);
  CHECK(trace.communication_count(0) == 2);
  CHECK(trace.checkpoint_count(0) == 1);
  CHECK(trace.checkpoint_position(0, 0) == 0);
  CHECK(trace.checkpoint_position(0, 1) == 0);
  CHECK(trace.checkpoint_position(1, 1) == 2);
  const MessageId m1 = *trace.find_message("m1");
  const MessageId m2 = *trace.find_message("m2");
  CHECK(trace.sender(m1) == 0);
  CHECK(trace.receiver(m1) == 1);
  CHECK(trace.send_position(m1) == 0);
  CHECK(trace.receive_position(m1) == 0);
  CHECK_FALSE(trace.logged(m1));
  CHECK(trace.sender(m2) == 1);
  CHECK(trace.receive_position(m2) == 1);
  CHECK(trace.is_receive_at(0, 1));
  CHECK_FALSE(trace.is_receive_at(0, 0));
  CHECK(trace.event_index_of_communication(0, 0) == 1);
  CHECK(trace.event_index_of_communication(1, 1) == 1);
  CHECK(trace.event_index_of_checkpoint(1, 1) == 2);
  CHECK(trace.total_event_count() == 6);
  CHECK(std::isnan(trace.send_time(m1)));
  CHECK(trace.bytes(m1) == kNoBytes);
}

TEST_CASE("analysis: trace writer: what it writes reads back the same", "[analysis][trace]") {
  TraceBuilder builder(3);
  builder.set_process_name(2, "rank \"two\"");
  builder.add_receive(1, "a");  // before its send: files list one process after the other
  builder.add_checkpoint(0, 1.5);
  builder.add_checkpoint(0);
  builder.add_send(0, "a", 1, true, 4096, 2.25);
  builder.add_send(1, "b\n\u00e9", 2);
  builder.add_receive(2, "b\n\u00e9", 3.0);
  builder.add_send(2, "lost", 0);  // never received: in transit at the end
  builder.add_checkpoint(2);
  builder.set_metadata({{"protocol", "uncoordinated"}});
  const Trace trace = std::move(builder).build();
  const std::string text = written(trace);
  const Trace again = parse_trace_json(text, "round trip");
  CHECK(written(again) == text);
  CHECK(again.process_name(2) == "rank \"two\"");
  CHECK(again.checkpoint_time(0, 1) == 1.5);
  CHECK(std::isnan(again.checkpoint_time(0, 2)));
  const MessageId a = *again.find_message("a");
  CHECK(again.logged(a));
  CHECK(again.bytes(a) == 4096);
  CHECK(again.send_time(a) == 2.25);
  CHECK(again.receive_time(*again.find_message("b\n\u00e9")) == 3.0);
  CHECK_FALSE(again.received(*again.find_message("lost")));
  CHECK(again.metadata()["protocol"] == "uncoordinated");
  CHECK(text.find("\"logged\": false") == std::string::npos);
  // A copy is a trace of its own.
  Trace copy = again;
  CHECK(written(copy) == text);
  copy = parse_trace_json(kExample, "example");
  CHECK(copy.find_message("m2"));
  CHECK(again.find_message("b\n\u00e9"));
  // The example reads, writes and reads again identically too.
  const Trace example = parse_trace_json(kExample, "example");
  CHECK(written(parse_trace_json(written(example), "again")) == written(example));
}

TEST_CASE("analysis: trace reader: bad traces name the process and the event", "[analysis][trace][errors]") {
  using Catch::Matchers::Contains;
  // Unknown keys, at every level.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "tp": 0}]}])")),
             Contains("t.json: process 0, event 0: unknown key \"tp\" in an event (did you mean \"to\"?)"));
  CHECK_THAT(error_of(with_processes(R"([{"events": [], "rank": 3}])")), Contains("process 0: unknown key \"rank\""));
  CHECK_THAT(error_of(R"({"format": "ftsim-trace", "version": 1, "processes": [], "extra": 1})"),
             Contains("unknown key \"extra\" in the trace"));
  // A receive without its send.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"checkpoint": 1}]}, {"events": [{"checkpoint": 1}, {"receive": "m9"}]}])")),
             Contains("t.json: process 1, event 1: receive of \"m9\" without its send"));
  // A message received twice.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "to": 1}]}, {"events": [{"receive": "m"}, {"receive": "m"}]}])")),
             Contains("process 1, event 1: message \"m\" received twice"));
  // A message sent twice.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "to": 1}, {"send": "m", "to": 1}]}, {"events": []}])")),
             Contains("process 0, event 1: message \"m\" sent twice"));
  // A process id out of range, and not a number.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"checkpoint": 1}, {"send": "m", "to": 2}]}, {"events": []}])")),
             Contains("process 0, event 1: send of \"m\" to process 2, which does not exist"));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "to": -1}]}])")),
             Contains("process 0, event 0: \"to\": -1 is not a process number"));
  // Received by a process it was not sent to.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "to": 2}]}, {"events": [{"receive": "m"}]}, {"events": []}])")),
             Contains("process 1, event 0: message \"m\" is received by process 1 but was sent to process 2"));
  // Checkpoints numbered out of order.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"checkpoint": 1}, {"checkpoint": 3}]}])")),
             Contains("process 0, event 1: checkpoint numbered 3, expected 2"));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"checkpoint": 0}]}])")),
             Contains("process 0, event 0: checkpoint numbered 0, expected 1"));
  // A causal cycle: each process receives before sending what the other receives.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"receive": "b"}, {"send": "a", "to": 1}]},
                                         {"events": [{"receive": "a"}, {"send": "b", "to": 0}]}])")),
             Contains("process 0, event 0: receive of \"b\"") );
  // Shapes and syntax.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "to": 0, "to": 0}]}])")),
             Contains("process 0, event 0: duplicate key \"to\""));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m"}]}])")), Contains("process 0, event 0: a send needs \"to\""));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "receive": "m", "to": 0}]}])")),
             Contains("not several"));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"receive": "m", "logged": true}]}])")),
             Contains("a receive has no \"to\", \"logged\" or \"bytes\""));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"checkpoint": 1.5}]}])")),
             Contains("\"checkpoint\": expected a non-negative integer, got 1.5"));
  CHECK_THAT(error_of(with_processes("[{\"events\": [\n{\"checkpoint\": 1},\n{\"checkpoint\" 2}]}]")),
             Contains("t.json: line 3, column 15 (process 0, event 1): invalid JSON: expected ':'"));
  CHECK_THAT(error_of(R"({"format": "ftsim-graph", "version": 1, "processes": []})"), Contains("/format: expected \"ftsim-trace\""));
  CHECK_THAT(error_of(R"({"format": "ftsim-trace", "version": 2, "processes": []})"), Contains("unsupported version 2"));
  CHECK_THAT(error_of(R"({"format": "ftsim-trace", "processes": []})"), Contains("missing key \"version\""));
  CHECK_THAT(error_of(R"({"format": "ftsim-trace", "version": 1, "processes": []} x)"), Contains("unexpected text after"));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "", "to": 0}]}])")), Contains("must not be empty"));
  CHECK_THAT(error_of(with_processes("[{\"events\": [{\"send\": \"\\ud800\", \"to\": 0}]}]")), Contains("surrogate"));
  // The first error in file order wins, also when the reader sees a later one first.
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "to": 0}, {"send": "m", "to": 0}, {"checkpoint": 1},
                                                     {"checkpoint": 1, "x": 0}]}])")),
             Contains("process 0, event 1: message \"m\" sent twice"));
  CHECK_THAT(error_of(with_processes(R"([{"events": [{"send": "m", "to": 0}, {"send": "m", "to": 0}, {"checkpoint" 1}]}])")),
             Contains("process 0, event 1: message \"m\" sent twice"));
  // A missing file names the file.
  CHECK_THROWS_WITH(read_trace_json("/nonexistent/t.json"), Contains("/nonexistent/t.json"));
}

TEST_CASE("analysis: trace builder: errors at once name the event being added", "[analysis][trace][errors]") {
  TraceBuilder builder(2);
  builder.add_send(0, "m", 1);
  builder.add_receive(1, "m");
  CHECK_THROWS_WITH(builder.add_receive(1, "m"), "process 1, event 1: message \"m\" received twice (first by process 1, event 0)");
  CHECK_THROWS_WITH(builder.add_checkpoint(5), Catch::Matchers::Contains("process 5 does not exist"));
}
