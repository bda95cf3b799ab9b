// Creating the server's listening Unix socket safely.
//
// OpenListeningSocket(path):
//  1. creates the socket's directory if missing, mode 0700 (an existing
//     directory is left as it is; a warning is logged if others can enter it);
//  2. takes an exclusive flock on "<path>.lock" (kept for the server's life, the
//     file is never deleted) so two servers can never race for one path;
//  3. if "<path>" exists: refuses when it is not a socket (never removes other
//     files), refuses when a server answers a connect() probe ("another
//     infer_server is already listening"), and removes it only when the probe
//     is refused (a stale socket of a dead server);
//  4. binds with umask 0177 and chmods the socket to 0600, then listens.
// Throws GomokuError with a message naming the path and the reason.
//
// RemoveSocketFile unlinks the socket only if the file at the path is still
// the one this server bound (same inode).  Neither function is thread-safe
// with respect to umask (call at start-up / shutdown).
//
// The connection policy (checked on every accepted connection, server.cc):
// the file modes keep other users out (EACCES at connect), and behind them
// SO_PEERCRED admits only peers running as the server's own effective uid
// (root included: a root peer of a non-root server is refused).  A peer
// whose credentials cannot be read is refused too.  There is no option to
// widen it.
#pragma once

#include <sys/types.h>

#include <string>

namespace gz {

struct ListeningSocket {
  int fd = -1;       // listening socket, CLOEXEC; the caller owns it
  int lock_fd = -1;  // held open for the server's life
  std::string path;
  ino_t inode = 0;
};

ListeningSocket OpenListeningSocket(const std::string& path);
void RemoveSocketFile(const ListeningSocket& s);

struct PeerCredentials {
  bool known = false;  // SO_PEERCRED could be read
  pid_t pid = -1;
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
  std::string error;  // why not, when !known
};
// The credentials of the process at the other end of a connected Unix socket.
PeerCredentials ReadPeerCredentials(int fd);
// "" when the policy admits `peer` on a server running as `server_uid`, else
// the reason it is refused.
std::string PeerRefusal(const PeerCredentials& peer, uid_t server_uid);

}  // namespace gz
