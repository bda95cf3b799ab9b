// The sockaddr_un of a Unix socket path, shared by the server and its clients.
#pragma once

#include <sys/un.h>

#include <string>

namespace gz {

// Throws ConfigError naming the path when it is empty or longer than the
// Unix socket limit (sizeof sun_path - 1 bytes); the message tells the user
// to choose a shorter server.socket.
sockaddr_un UnixSocketAddress(const std::string& path);

}  // namespace gz
