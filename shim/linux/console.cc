#include "shim/linux/console.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>

#include "shim/core/unique_fd.h"

namespace sandshim::native {

Result<int> ConnectConsoleSocket(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoError("socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return MakeError("console socket path too long", ENAMETOOLONG);
  std::memcpy(addr.sun_path, path.c_str(), path.size());
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    ::close(fd);
    return ErrnoError("connect console socket " + path, e);
  }
  return fd;
}

Result<int> OpenPtySendingMaster(int socket_fd) {
  UniqueFd master(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (!master.valid()) return ErrnoError("open /dev/ptmx");
  if (::unlockpt(master.get()) != 0) return ErrnoError("unlockpt");
  char name[64];
  if (::ptsname_r(master.get(), name, sizeof name) != 0) return ErrnoError("ptsname");
  int slave = ::open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) return ErrnoError(std::string("open ") + name);
  // Send the master, named like runc does, to whoever listens on the console socket.
  char dummy = 0;
  iovec iov{&dummy, 1};
  char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  int m = master.get();
  std::memcpy(CMSG_DATA(c), &m, sizeof(int));
  if (::sendmsg(socket_fd, &msg, 0) < 0) {
    int e = errno;
    ::close(slave);
    return ErrnoError("send pty master", e);
  }
  return slave;
}

Status SetupConsole(int socket_fd) {
  int slave = TRY(OpenPtySendingMaster(socket_fd));
  ::setsid();
  if (::ioctl(slave, TIOCSCTTY, 0) != 0) return ErrnoError("set controlling tty");
  for (int fd = 0; fd < 3; ++fd)
    if (::dup2(slave, fd) < 0) return ErrnoError("dup2 pty");
  if (slave > 2) ::close(slave);
  return Ok();
}

}  // namespace sandshim::native
