#pragma once
// What an application process keeps of its messages (Fig. 3's NonAck, Logs, RPP and SPE) and what
// a checkpoint holds besides the node's state (l. 42). The message log owns the tables; the store
// reads them back (Tables::read, the counterpart of MessageLog::write_tables) and the recovery
// hands them to the restore.
#include <cstdint>
#include <utility>
#include <vector>

#include "protocols/uncoordinated/unco_messages.hpp"

namespace ftsim::protocols::uncoordinated {

// A data message this process sent and keeps: unacknowledged (NonAck, l. 16), or logged (l. 37),
// or, under the classic protocol, the channel state it must be able to send again. By
// reference: the version stays pinned in memory.
struct Sent {
  std::uint32_t date = 0, epoch = 0, phase = 0;
  std::uint32_t receiver_epoch = messages::kNoEpoch;  // from the acknowledgement
  bool acked = false;
  bool lost = false;      // unacknowledged when its receiver rolled back: its ack may never come
  bool confirmed = true;  // false: restored after a failure, its receive epoch may be stale (kept)
  std::uint64_t store_key = 0;  // its entry in the log store (0: none)
};
using SentKey = std::pair<node::NodeId, std::uint64_t>;  // the other node, version key

// A data message it received first-time (RPP, l. 26): kept for the orphans and the receive table.
struct Receipt {
  node::NodeId source;
  std::uint64_t version;
  std::uint32_t date, send_epoch, phase, epoch;  // sender's date and epoch; its phase and epoch then
  std::uint32_t send_phase;                      // the sender's phase (a suppressed re-send keeps it)
};

using SpeKey = std::pair<std::uint32_t, node::NodeId>;  // (send epoch, destination)

// The tables of a checkpoint: the values it restarts with and its messages.
struct Tables {
  std::uint32_t epoch = 0, phase = 0, date = 0;
  std::vector<std::uint32_t> epoch_dates;
  std::vector<std::pair<SentKey, Sent>> log;
  std::vector<Receipt> receipts;
  std::vector<std::pair<SpeKey, std::uint32_t>> spe;

  static Tables read(node::WireReader& r);  // what MessageLog::write_tables wrote
  // The job's input: no message yet.
  static Tables start(std::uint32_t first_epoch) {
    Tables t;
    t.epoch = first_epoch;
    t.phase = 1;
    t.date = 1;
    t.epoch_dates = {1};
    return t;
  }
};

struct Saved {
  node::NodeSnapshot snapshot;
  Tables tables;
};

}  // namespace ftsim::protocols::uncoordinated
