#include "shim/runtime/exec_terminal.h"

#include <fcntl.h>
#include <unistd.h>

#include "shim/native/console.h"

namespace sandshim::runtime {

Result<std::unique_ptr<TerminalStdio>> TerminalStdio::Open(const std::filesystem::path& console_socket) {
  UniqueFd sock(TRY(native::ConnectConsoleSocket(console_socket.string())));
  UniqueFd slave(TRY(native::OpenPtySendingMaster(sock.get())));
  std::unique_ptr<TerminalStdio> t(new TerminalStdio());
  for (int fd = 0; fd < 3; ++fd) {
    // A closed stdio fd is saved as "none" and closed again on restore.
    t->saved_[fd] = UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
    if (::dup2(slave.get(), fd) < 0) return ErrnoError("dup2 pty slave");  // ~ restores
  }
  return t;
}

TerminalStdio::~TerminalStdio() {
  for (int fd = 0; fd < 3; ++fd) {
    if (saved_[fd].valid()) ::dup2(saved_[fd].get(), fd);
    else ::close(fd);
  }
}

}  // namespace sandshim::runtime
