#include <catch2/catch.hpp>

#include <string>

#include "sim/config/config_error.hpp"
#include "sim/config/failure_log.hpp"
#include "sim/config/log_dates.hpp"
#include "sim/config/perfmodel_file.hpp"

using namespace ftsim::config;

namespace {
const std::string kData = std::string(FTSIM_SOURCE_DIR) + "/tests/data/";
}

TEST_CASE("log dates are read as UTC epoch seconds", "[config][logs]") {
  CHECK(*parse_iso_date("2005-01-01") == 1104537600.0);
  CHECK(*parse_iso_date("2005-01-01 01:02:03") == 1104537600.0 + 3723);
  CHECK(*parse_iso_date("2005-01-01T01:02") == 1104537600.0 + 3720);
  CHECK(*parse_iso_date("1104537600") == 1104537600.0);
  CHECK(*parse_us_date("1/1/2005 0:02") == 1104537600.0 + 120);
  CHECK(*parse_us_date("2/29/2004 23:59:59") == 1078099199.0);
  CHECK_FALSE(parse_iso_date("2005-02-30"));
  CHECK_FALSE(parse_iso_date("01/01/2005"));
  CHECK_FALSE(parse_us_date("1/1/05 0:02"));
  CHECK_FALSE(parse_us_date("2/29/2005"));
  CHECK_FALSE(parse_us_date("1/1/2005 24:00"));
}

TEST_CASE("an FTA event trace gives its unavailability events", "[config][logs]") {
  const auto log = read_fta_log(kData + "logs/fta-sample.tab");
  REQUIRE(log.size() == 4);  // event_type 0 only
  CHECK(log[1].node == 5);
  CHECK(log[1].system == 7);
  CHECK(log[1].start == 1104537602.0);
  CHECK(log[1].repair == 3600.0);
  CHECK(log[1].line == 4);
}

TEST_CASE("LANL data give start dates and Down Time in minutes", "[config][logs]") {
  // The sample carries the header of the data as published (26 columns, nodenumz included).
  const auto log = read_lanl_log(kData + "logs/lanl-sample.csv");
  REQUIRE(log.size() == 5);
  CHECK(log[4].system == 17);
  CHECK(log[4].node == LogFailure::kNoNode);  // an empty nodenum, as in 126 records of system 17
  LogWindow window;
  window.start = 1104537600.0;
  LogCounts counts;
  window.system = 17;
  CHECK(map_log_failures(log, window, 4, 1, "log", counts).empty());
  CHECK(counts.no_node == 1);
  window.system = 20;
  CHECK(map_log_failures(log, window, 4, 1, "log", counts).size() == 3);
  CHECK(counts.no_node == 0);
  CHECK(counts.other_system == 2);
  CHECK(log[1].system == 20);
  CHECK(log[1].node == 7);
  CHECK(log[1].start == 1104537600.0 + 120);
  CHECK(log[1].repair == 7200.0);
  CHECK(log[3].repair < 0);  // neither Prob Fixed nor Down Time
}

TEST_CASE("log failures are mapped onto the simulated nodes", "[config][logs]") {
  std::vector<LogFailure> log = {{1, 10, 100, 5, 2}, {1, 11, 50, 5, 3}, {1, 12, 200, -1, 4}, {2, 3, 150, 5, 5}};
  LogWindow window;
  window.system = 1;
  window.start = 60;
  window.time_scale = 0.5;
  LogCounts counts;
  SECTION("modulo") {
    auto events = map_log_failures(log, window, 4, 1, "log", counts);
    REQUIRE(events.size() == 2);
    CHECK(events[0].node == 2);  // 10 mod 4
    CHECK(events[0].time == 20);
    CHECK(events[0].downtime < 0);
    CHECK(counts.before_start == 1);
    CHECK(counts.other_system == 1);
  }
  SECTION("first") {
    window.nodes = NodeMapping::first;
    auto events = map_log_failures(log, window, 2, 1, "log", counts);
    REQUIRE(events.size() == 1);  // node 12 is the third machine node: dropped
    CHECK(events[0].node == 0);
    CHECK(counts.unmapped == 1);
  }
  SECTION("random is a function of the seed") {
    window.nodes = NodeMapping::random;
    auto a = map_log_failures(log, window, 3, 9, "log", counts);
    auto b = map_log_failures(log, window, 3, 9, "log", counts);
    REQUIRE(a.size() == 2);
    CHECK(a[0].node == b[0].node);
    CHECK(a[1].node == b[1].node);
    CHECK(a[0].node != a[1].node);
  }
  SECTION("repair times as downtimes, and one missing") {
    window.repair_as_downtime = true;
    CHECK_THROWS_AS(map_log_failures(log, window, 4, 1, "log", counts), ConfigError);
    log[2].repair = 8;
    auto events = map_log_failures(log, window, 4, 1, "log", counts);
    CHECK(events[0].downtime == 2.5);
  }
  SECTION("several systems need a choice") {
    window.system.reset();
    CHECK_THROWS_AS(map_log_failures(log, window, 4, 1, "log", counts), ConfigError);
  }
}

TEST_CASE("a StarPU history model gives the table of one device", "[config][perfmodel]") {
  const auto cpu = read_perfmodel(kData + "perfmodels/gemm_model.handmade", PerfmodelDevice::cpu);
  REQUIRE(cpu.size() == 2);
  CHECK(cpu[0].size == 1572864);
  CHECK(cpu[0].flops == 33554432.0);
  CHECK(cpu[0].mean_us == 1250.0);
  CHECK(cpu[0].count == 100);
  const auto cuda = read_perfmodel(kData + "perfmodels/gemm_model.handmade", PerfmodelDevice::cuda);
  REQUIRE(cuda.size() == 1);
  CHECK(cuda[0].mean_us == 90.0);
  CHECK_THROWS_AS(read_perfmodel(kData + "perfmodels/gemm_model.handmade", PerfmodelDevice::opencl), ConfigError);
  CHECK_THROWS_AS(read_perfmodel(kData + "bad/perfmodel/version.handmade", PerfmodelDevice::cpu), ConfigError);
}
