// The shrink's machine room (sim/world/shrink.hpp): the placement rule and the shared cores.
#include <catch2/catch.hpp>

#include "sim/world/shrink.hpp"

using ftsim::core::MachineCores;
using ftsim::core::ShrinkPlacement;

TEST_CASE("shrink: the rule takes the least loaded machine, then the next one after the failed rank's", "[shrink]") {
  ShrinkPlacement placement(4, 0);
  CHECK(placement.machines_up() == 4);
  CHECK(placement.machine_failed(1) == std::vector<ftsim::core::NodeId>{1});
  CHECK(placement.machines_up() == 3);
  // Every machine up runs one rank: the first after machine 1.
  CHECK(placement.choose_machine(1) == 2);
  placement.host(1, 2);
  CHECK(placement.rehosted(1));
  CHECK(placement.machines_up() == 3);
  // Rank 3 fails: machines 0 (one rank) and 2 (two ranks) are up; the least loaded wins.
  placement.machine_failed(3);
  CHECK(placement.choose_machine(3) == 0);
  placement.host(3, 0);
  // Machine 2 fails with both its ranks; machine 0 is the last one.
  const auto gone = placement.machine_failed(2);
  CHECK(gone == std::vector<ftsim::core::NodeId>{2, 1});
  CHECK(placement.machines_up() == 1);
  CHECK(placement.choose_machine(2) == 0);
  placement.host(2, 0);
  placement.host(1, 0);
  CHECK(placement.ranks_on(0).size() == 4);
  placement.machine_failed(0);
  CHECK(placement.choose_machine(0) == ShrinkPlacement::kNoMachine);
}

TEST_CASE("shrink: spares are taken first and are a rank's own machine", "[shrink]") {
  ShrinkPlacement placement(2, 1);
  placement.machine_failed(0);
  placement.take_spare(0);
  CHECK(placement.machine_of(0) == 2);
  CHECK_FALSE(placement.rehosted(0));
  CHECK(placement.machines_up() == 2);
}

TEST_CASE("shrink: the ranks of one machine share its cores in the order asked", "[shrink]") {
  MachineCores cores(1, 2);
  CHECK(cores.request(0, {0, 10, 1.0}));
  CHECK(cores.request(0, {1, 20, 1.0}));
  CHECK_FALSE(cores.request(0, {0, 11, 1.0}));  // both cores busy: it waits
  CHECK_FALSE(cores.request(0, {1, 21, 1.0}));
  MachineCores::Start next{};
  CHECK(cores.release(0, 0, 10, next));
  CHECK((next.rank == 0 && next.task == 11));
  CHECK(cores.withdraw(0, 1, 21));              // cancelled while waiting
  CHECK_FALSE(cores.release(0, 1, 20, next));   // nothing waits any more
  // A rank that dies frees its cores for the others.
  CHECK(cores.request(0, {1, 22, 1.0}));
  CHECK_FALSE(cores.request(0, {1, 23, 1.0}));
  std::vector<MachineCores::Start> started;
  cores.drop_rank(0, 0, started);
  REQUIRE(started.size() == 1);
  CHECK(started[0].task == 23);
}
