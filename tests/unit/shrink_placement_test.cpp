// The shrink's machine room (sim/world/shrink.hpp): the placement rule and the shared cores.
#include <catch2/catch.hpp>

#include "sim/world/shrink.hpp"

using ftsim::world::MachineCores;
using ftsim::world::ShrinkPlacement;

TEST_CASE("shrink: the rule takes the least loaded machine, then the next one after the failed rank's", "[shrink]") {
  ShrinkPlacement placement(4, 1, 0);
  CHECK(placement.machines_up() == 4);
  CHECK(placement.machine_failed(1) == std::vector<ftsim::node::NodeId>{1});
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
  CHECK(gone == std::vector<ftsim::node::NodeId>{2, 1});
  CHECK(placement.machines_up() == 1);
  CHECK(placement.choose_machine(2) == 0);
  placement.host(2, 0);
  placement.host(1, 0);
  CHECK(placement.ranks_on(0).size() == 4);
  placement.machine_failed(0);
  CHECK(placement.choose_machine(0) == ShrinkPlacement::kNoMachine);
}

TEST_CASE("shrink: spares are taken first and are a rank's own machine", "[shrink]") {
  ShrinkPlacement placement(2, 1, 1);
  placement.machine_failed(0);
  placement.take_spare(0);
  CHECK(placement.machine_of(0) == 2);
  CHECK_FALSE(placement.rehosted(0));
  CHECK(placement.machines_up() == 2);
}

TEST_CASE("shrink: with two ranks per machine a failed machine's ranks spread over two survivors", "[shrink]") {
  // 8 ranks on 4 machines: machine m runs ranks 2m and 2m + 1 (block placement).
  ShrinkPlacement placement(8, 2, 0);
  CHECK(placement.machines() == 4);
  CHECK(placement.machine_of(5) == 2);
  CHECK(placement.ranks_on(1) == std::vector<ftsim::node::NodeId>{2, 3});
  const auto gone = placement.machine_failed(3);  // a failure naming rank 3 takes machine 1
  CHECK(gone == std::vector<ftsim::node::NodeId>{2, 3});
  CHECK(placement.machines_up() == 3);
  // Every survivor runs two ranks: rank 2 goes to the first after machine 1; machine 2 then runs
  // three, so rank 3 goes to machine 3.
  CHECK(placement.choose_machine(2) == 2);
  placement.host(2, 2);
  CHECK(placement.choose_machine(3) == 3);
  placement.host(3, 3);
  CHECK(placement.rehosted(2));
  CHECK(placement.machines_up() == 3);
}

TEST_CASE("shrink: buddies on the next machine keep a spread rank away from them", "[shrink]") {
  ShrinkPlacement placement(8, 2, 0);
  std::vector<std::vector<ftsim::node::NodeId>> buddies(8);
  for (ftsim::node::NodeId n = 0; n < 8; ++n) buddies[n] = {(n + 2) % 8};  // "next" with k = 2
  placement.set_buddies(buddies);
  placement.machine_failed(2);
  // Machine 2 runs rank 2's buddy 4, machine 0 runs rank 0 whose buddy is 2: machine 3.
  CHECK(placement.choose_machine(2) == 3);
  placement.host(2, 3);
  // Rank 3: machine 3 runs three ranks; machines 2 (its buddy 5) and 0 (rank 1, whose buddy is 3)
  // run two and both conflict: the load comes first, then the cyclic order after machine 1.
  CHECK(placement.choose_machine(3) == 2);
}

TEST_CASE("shrink: a spare machine takes every rank of a failed machine", "[shrink]") {
  ShrinkPlacement placement(4, 2, 2);
  placement.machine_failed(1);
  CHECK(placement.take_spare(3) == ShrinkPlacement::kNoRank);  // the first takes spare machine 2
  CHECK(placement.machine_of(3) == 2);
  CHECK(placement.take_spare(2) == 3);  // the other joins it
  CHECK(placement.machine_of(2) == 2);
  CHECK(placement.ranks_on(2) == std::vector<ftsim::node::NodeId>{3, 2});
  CHECK(placement.machines_up() == 2);
  // The next failed machine takes the next spare.
  placement.machine_failed(0);
  CHECK(placement.take_spare(0) == ShrinkPlacement::kNoRank);
  CHECK(placement.machine_of(0) == 3);
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
