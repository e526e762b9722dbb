// Terminals: a pty made inside the container (its own devpts), the master sent to the
// caller's --console-socket over SCM_RIGHTS, the slave made our stdio and controlling tty.
#pragma once

#include "shim/core/result.h"

namespace sandshim::native {

// A new pty whose master goes to socket_fd (a connected console socket); returns the slave
// (O_CLOEXEC). The pty belongs to the devpts this process sees.
Result<int> OpenPtySendingMaster(int socket_fd);
// socket_fd: connected AF_UNIX stream socket. Call after pivot_root.
Status SetupConsole(int socket_fd);
// Connects to the console socket path (host side, before entering the container).
Result<int> ConnectConsoleSocket(const std::string& path);

}  // namespace sandshim::native
