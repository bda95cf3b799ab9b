// The multi-host reload handshake, through files in the shared run directory
// (docs/operations.md "Many hosts"; no network port is opened for control).
//
//   <run>/reload.json                  written by the trainer (rank 0) only:
//     {"format_version": 1, "iteration": N, "weights": PATH, "generation": G, "announced_at": unix s}
//   <run>/status/{host}/reload_ack.json written by that host's infer_server only, every server.heartbeat_s:
//     {"format_version": 1, "host": H, "pid": P, "seq": S, "updated_at": unix s,
//      "serving_generation": g (-1 = none yet), "serving_weights": PATH,
//      "announcement": {"generation": G, "ok": bool, "reason": "...", "at": unix s} | null}
//
// Both are rewritten atomically (temp name in the same directory, fsync,
// rename), so a reader sees a whole old or a whole new document, on NFS too.
// Liveness is never judged from the writers' clocks: `seq` grows with every
// rewrite, and the trainer notes when it saw it change on its own clock.
// Thread-safety: free functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gz {

struct ReloadAnnouncement {
  int64_t iteration = 0;   // the trained iteration whose weights these are
  std::string weights;     // checkpoint path (on the shared filesystem)
  int64_t generation = 0;  // the checkpoint's model_generation
  double announced_at = 0;
};

struct HostAck {
  std::string host;
  int64_t pid = 0;
  int64_t seq = 0;
  double updated_at = 0;
  int64_t serving_generation = -1;
  std::string serving_weights;
  // The newest announcement this server acted on.
  bool has_announcement = false;
  int64_t announced_generation = -1;
  bool announcement_ok = false;
  std::string announcement_reason;  // why the weights were refused ("" when ok)
  double announcement_at = 0;
};

void WriteReloadAnnouncement(const std::string& path, const ReloadAnnouncement& a);
// nullopt when the file does not exist; IoError when it is unreadable or malformed.
std::optional<ReloadAnnouncement> ReadReloadAnnouncement(const std::string& path);

void WriteHostAck(const std::string& path, const HostAck& a);
// nullopt when the file does not exist; IoError when it is unreadable or malformed.
std::optional<HostAck> ReadHostAck(const std::string& path);

// The host names that have a status/{host}/reload_ack.json under `status_dir`, sorted.
std::vector<std::string> ListAckingHosts(const std::string& status_dir);

}  // namespace gz
