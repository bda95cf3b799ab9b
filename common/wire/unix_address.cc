#include "common/wire/unix_address.h"

#include <sys/socket.h>

#include <cstring>

#include "common/base/errors.h"

namespace gz {

sockaddr_un UnixSocketAddress(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path))
    GOMOKU_THROW(ConfigError, "socket path '" << path << "' is empty or longer than " << sizeof(addr.sun_path) - 1
                                              << " bytes (the Unix socket limit); choose a shorter server.socket");
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

}  // namespace gz
