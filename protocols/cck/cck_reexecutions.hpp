#pragma once
// After a CCK restart round: the tasks of T^p a survivor re-executes, and the DONE it owes the
// coordinator for the round (Besseron 2006 §3.5.5 step 7): once T^p has run (a replacement: once
// restored). A newer round supersedes a DONE not yet sent; the re-executions still pending are
// planned again in it.
#include <cstdint>
#include <optional>
#include <unordered_set>

#include "protocols/cck/cck_post.hpp"

namespace ftsim::protocols::cck {

class Reexecutions {
public:
  explicit Reexecutions(Post& post) : post_(post) {}

  void add(TaskId task) { pending_.insert(task); }
  // The round is applied: DONE is owed (|T^p| and |C_total^p|; or that it restored checkpoint K).
  void owe(std::uint64_t round, std::uint64_t tasks, std::uint64_t resends, bool restored);
  // A newer round: the DONE owed for an older one is not sent.
  void supersede() { owed_.reset(); }
  void report_if_done(node::ProtocolContext& ctx);
  // A task completed: one of T^p (a re-execution that repairs `cause`), or not.
  void on_completed(node::ProtocolContext& ctx, TaskId task, const node::FailureNotice& cause);
  std::size_t pending() const { return pending_.size(); }

private:
  struct Done {
    std::uint64_t round = 0;  // the round it is owed for
    std::uint64_t tasks = 0;  // |T^p| of the plan in force
    std::uint64_t resends = 0;
    bool restored = false;    // it restarted from K
  };

  Post& post_;
  std::unordered_set<TaskId> pending_;  // re-executions of T^p not yet completed
  std::optional<Done> owed_;  // the DONE it owes, until sent
};

}  // namespace ftsim::protocols::cck
