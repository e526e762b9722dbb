// A detached gVisor exec with a terminal (`docker exec -t`). runsc honours --console-socket
// only in its own --detach path, which sandshim cannot use (this runsc drops arguments that
// contain "detach"); the foreground `runsc exec` that sandshim runs in the background ignores
// the socket and serves the stdio it was given. Nobody ever connected to the socket, and the
// containerd shim waited on it forever (docker exec -t hung, and docker rm -f after it).
// So sandshim does what runsc's --detach path does: makes the pty, sends the master to the
// console socket, and hands runsc exec the slave as its stdin, stdout and stderr.
#pragma once

#include <array>
#include <filesystem>
#include <memory>
#include <string>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::runtime {

// While alive, this process's fds 0-2 are the slave of a pty whose master went to the
// console socket (a child started meanwhile inherits it); the destructor restores them.
class TerminalStdio {
 public:
  static Result<std::unique_ptr<TerminalStdio>> Open(const std::filesystem::path& console_socket);
  ~TerminalStdio();
  TerminalStdio(const TerminalStdio&) = delete;
  TerminalStdio& operator=(const TerminalStdio&) = delete;

 private:
  TerminalStdio() = default;
  std::array<UniqueFd, 3> saved_;
};

}  // namespace sandshim::runtime

namespace sandshim::runtime {

// A pty of the host: the master, and the slave's path (open it without O_NOCTTY in a new
// session and it becomes that session's controlling terminal).
struct HostPty {
  UniqueFd master;
  std::string slave_path;
};
Result<HostPty> OpenHostPty();

// The listening end of a console socket of our own at path (runc's protocol: whoever makes
// the pty sends its master over one connection), and the master received on it.
Result<UniqueFd> ListenConsole(const std::filesystem::path& path);
Result<UniqueFd> ReceiveMaster(int listener);

}  // namespace sandshim::runtime
