#include "shim/runtime/exec_terminal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "shim/linux/console.h"

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

namespace sandshim::runtime {

Result<HostPty> OpenHostPty() {
  HostPty p;
  p.master.Reset(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!p.master.valid() || ::grantpt(p.master.get()) != 0 || ::unlockpt(p.master.get()) != 0)
    return ErrnoError("open pty");
  const char* name = ::ptsname(p.master.get());
  if (!name) return ErrnoError("ptsname");
  p.slave_path = name;
  return p;
}

Result<UniqueFd> ListenConsole(const std::filesystem::path& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof addr.sun_path) return MakeError("console socket path too long: " + path.string());
  std::strcpy(addr.sun_path, path.c_str());
  UniqueFd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!s.valid()) return ErrnoError("socket");
  ::unlink(path.c_str());
  if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return ErrnoError("bind " + path.string());
  if (::listen(s.get(), 1) != 0) return ErrnoError("listen");
  return s;
}

Result<UniqueFd> ReceiveMaster(int listener) {
  UniqueFd conn(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn.valid()) return ErrnoError("accept console");
  char byte[256];
  iovec iov{byte, sizeof byte};
  alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = ctl;
  msg.msg_controllen = sizeof ctl;
  if (::recvmsg(conn.get(), &msg, MSG_CMSG_CLOEXEC) < 0) return ErrnoError("receive console");
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
      return UniqueFd(fd);
    }
  return MakeError("console socket: no pty master received", EPROTO);
}

}  // namespace sandshim::runtime
