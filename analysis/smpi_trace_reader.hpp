#pragma once
// Reads a SimGrid SMPI time-independent trace (the text format smpirun -trace-ti writes and
// smpi_replay reads; docs/trace-format.md#smpi) into a Trace without checkpoints: one process
// per rank, one send or receive event per point-to-point message.
//
// Input: either an index file listing one action file per rank (one path a line, relative to
// the index's folder), or one action file holding every rank's lines. An action line is
// "RANK ACTION ARGS...", e.g. "0 send 1 0 1e6" (partner, tag, size; the older form without a
// tag has tag 0). What becomes events:
//   send, isend               a send, when issued
//   recv                      a receive
//   irecv                     a receive when its request completes: at the wait naming it
//                             ("wait SRC DST TAG"; a bare "wait" completes the latest request),
//                             at a waitall, or at the end of the rank's actions
//   barrier, bcast, reduce, allreduce, gather(v), scatter(v), allgather(v), alltoall(v),
//   reducescatter             expanded into point-to-point messages as SimGrid's "default"
//                             collective selector does (smpi/coll-selector, docs/trace-format.md)
//   init, finalize, compute, sleep, test, comm_size, comm_split, comm_dup, location: no event.
// Point-to-point messages match in MPI order: the k-th send from s to d with tag t is received
// by the k-th receive of d from s with tag t. A send never received is in transit at the end.
// Bad input throws TraceError naming the file and the line.
#include <string>
#include <vector>

#include "analysis/trace.hpp"
#include "analysis/trace_error.hpp"

namespace ftsim::analysis {

Trace read_smpi_trace(const std::string& path);

// The same from texts in memory: one action text per rank (`names` name them in messages), or
// a single text holding every rank's lines.
Trace parse_smpi_actions(const std::vector<std::string>& texts, const std::vector<std::string>& names);

// Whether a text looks like SMPI actions (its first action line's second word is an action).
bool looks_like_smpi_actions(const std::string& text);

}  // namespace ftsim::analysis
