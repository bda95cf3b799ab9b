#include "infer_server/socket_setup.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "common/base/errors.h"
#include "common/base/fileio.h"
#include "common/wire/unix_address.h"

namespace gz {
namespace {

void PrepareDirectory(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) return;
  if (!FileExists(dir.string())) {
    MakeDirs(dir.string());
    if (::chmod(dir.c_str(), 0700) != 0)
      GOMOKU_THROW(IoError, "cannot chmod 0700 '" << dir.string() << "': " << std::strerror(errno));
    return;
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    GOMOKU_THROW(IoError, "socket directory '" << dir.string() << "' is not a directory");
  if (st.st_mode & 077)
    spdlog::warn("socket directory {} has mode {:o}; other users can reach it (the socket itself is 0600)",
                 dir.string(), st.st_mode & 0777);
}

// True when something accepts connections at `path`.
bool SomeoneListens(const sockaddr_un& addr, const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) GOMOKU_THROW(IoError, "socket(): " << std::strerror(errno));
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  int e = errno;
  ::close(fd);
  if (rc == 0) return true;
  if (e == ECONNREFUSED || e == ENOENT) return false;
  if (e == EAGAIN) return true;  // backlog full: it is alive
  GOMOKU_THROW(IoError, "cannot probe existing socket '" << path << "': " << std::strerror(e));
}

}  // namespace

ListeningSocket OpenListeningSocket(const std::string& path) {
  ListeningSocket s;
  s.path = path;
  const sockaddr_un addr = UnixSocketAddress(path);
  PrepareDirectory(path);

  const std::string lock_path = path + ".lock";
  s.lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (s.lock_fd < 0) GOMOKU_THROW(IoError, "cannot open lock file '" << lock_path << "': " << std::strerror(errno));
  if (::flock(s.lock_fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    ::close(s.lock_fd);
    if (e == EWOULDBLOCK)
      GOMOKU_THROW(GomokuError, "another infer_server is already running for " << path << " (it holds "
                                                                             << lock_path << "); refusing to start");
    GOMOKU_THROW(IoError, "cannot lock '" << lock_path << "': " << std::strerror(e));
  }
  auto fail = [&s]() {
    if (s.fd >= 0) ::close(s.fd);
    ::close(s.lock_fd);
  };

  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      fail();
      GOMOKU_THROW(GomokuError, "'" << path << "' exists and is not a socket; refusing to remove it");
    }
    bool alive;
    try {
      alive = SomeoneListens(addr, path);
    } catch (...) {
      fail();
      throw;
    }
    if (alive) {
      fail();
      GOMOKU_THROW(GomokuError, "another infer_server is already listening on " << path << "; refusing to start");
    }
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      int e = errno;
      fail();
      GOMOKU_THROW(IoError, "cannot remove stale socket '" << path << "': " << std::strerror(e));
    }
    spdlog::warn("removed stale socket {} (no server was listening on it)", path);
  }

  s.fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s.fd < 0) {
    int e = errno;
    fail();
    GOMOKU_THROW(IoError, "socket(): " << std::strerror(e));
  }
  mode_t old_mask = ::umask(0177);
  int rc = ::bind(s.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
  int e = errno;
  ::umask(old_mask);
  if (rc != 0) {
    fail();
    GOMOKU_THROW(IoError, "cannot bind '" << path << "': " << std::strerror(e));
  }
  if (::chmod(path.c_str(), 0600) != 0 || ::lstat(path.c_str(), &st) != 0 || ::listen(s.fd, SOMAXCONN) != 0) {
    e = errno;
    ::unlink(path.c_str());
    fail();
    GOMOKU_THROW(IoError, "cannot set up socket '" << path << "': " << std::strerror(e));
  }
  s.inode = st.st_ino;
  return s;
}

PeerCredentials ReadPeerCredentials(int fd) {
  PeerCredentials p;
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    p.error = std::strerror(errno);
    return p;
  }
  if (len != sizeof(cred)) {
    p.error = "short SO_PEERCRED answer";
    return p;
  }
  p.known = true;
  p.pid = cred.pid;
  p.uid = cred.uid;
  p.gid = cred.gid;
  return p;
}

std::string PeerRefusal(const PeerCredentials& peer, uid_t server_uid) {
  if (!peer.known) return "its credentials cannot be read (SO_PEERCRED: " + peer.error + ")";
  if (peer.uid != server_uid)
    return "only uid " + std::to_string(server_uid) + " (the server's own) may use this server (SO_PEERCRED)";
  return "";
}

void RemoveSocketFile(const ListeningSocket& s) {
  struct stat st {};
  if (s.path.empty() || ::lstat(s.path.c_str(), &st) != 0) return;
  if (S_ISSOCK(st.st_mode) && st.st_ino == s.inode) ::unlink(s.path.c_str());
}

}  // namespace gz
