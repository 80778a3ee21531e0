#pragma once
// Where a version that node p needs again comes from (Besseron et al. 2006 §3.5.2 and §3.5.4,
// with §3.7.1): the one rule that both the Ḡ^p walk (cck_restricted_graph.cpp) and the T^p walk
// (cck_planning.cpp) follow, so that the two can never disagree on what a version depends on.
//
// A version is produced again by re-executing its writer if that writer ran on p since checkpoint
// K; read back from p's copy of K if K holds it; received again (a receive task executed since K:
// its send must be replayed) if it came from another node. With §3.7.1 (`keep_in_memory`) a
// version still in memory needs nothing.
#include <cstdint>

#include "protocols/cck/cck_planning.hpp"

namespace ftsim::protocols::cck {

struct VersionSource {
  enum class Kind : std::uint8_t {
    nothing,    // in memory, and either §3.7.1 stops the walk there or no other rule applies
    reexecute,  // its writer (`id`, a TaskId) ran on p since K: the walk goes on through its inputs
    reload,     // p's copy of K holds it and memory does not
    receive,    // it came from another node since K (`id`: the transfer to p to replay)
    missing,    // no rule provides it (an inconsistent state: a bug)
  };
  Kind kind = Kind::nothing;
  std::uint32_t id = 0;
};

// Task t (of p) has run in this process and is not done in checkpoint K.
bool executed_since_checkpoint(const PlanningContext& context, const LocalState& state, TaskId t);

// The source of the version with VersionStore key `key` on `node`.
VersionSource version_source(const PlanningContext& context, NodeId node, const LocalState& state, std::uint64_t key);

}  // namespace ftsim::protocols::cck
