#include <catch2/catch.hpp>

#include "sim/config/units.hpp"

using namespace ftsim::config;

TEST_CASE("sizes accept plain bytes and decimal and binary units", "[config][units]") {
  CHECK(*parse_size_bytes("1024") == 1024.0);
  CHECK(*parse_size_bytes("320KiB") == 320.0 * 1024);
  CHECK(*parse_size_bytes("4MB") == 4e6);
  CHECK(*parse_size_bytes("1.5 GiB") == 1.5 * 1024 * 1024 * 1024);
  CHECK_FALSE(parse_size_bytes("12 parsecs"));
  CHECK_FALSE(parse_size_bytes(""));
  CHECK_FALSE(parse_size_bytes("KiB"));
}

TEST_CASE("durations accept ns to days", "[config][units]") {
  CHECK(*parse_duration_seconds("1us") == Approx(1e-6));
  CHECK(*parse_duration_seconds("20ms") == Approx(0.02));
  CHECK(*parse_duration_seconds("2h") == 7200.0);
  CHECK(*parse_duration_seconds("1.5min") == 90.0);
  CHECK(*parse_duration_seconds("3") == 3.0);
  CHECK_FALSE(parse_duration_seconds("3 fortnights"));
}

TEST_CASE("bandwidths distinguish bits and bytes", "[config][units]") {
  CHECK(*parse_bandwidth_bytes_per_second("40Gbps") == Approx(5e9));
  CHECK(*parse_bandwidth_bytes_per_second("10Gb/s") == Approx(1.25e9));
  CHECK(*parse_bandwidth_bytes_per_second("5GB/s") == Approx(5e9));
  CHECK(*parse_bandwidth_bytes_per_second("100MiB/s") == Approx(100.0 * 1024 * 1024));
  CHECK_FALSE(parse_bandwidth_bytes_per_second("fast"));
}
