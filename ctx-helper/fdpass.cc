#include "ctx-helper/fdpass.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sandshim::ctx {

bool SendWithFds(int sock, const void* data, size_t len, const int* fds, int nfds) {
  char control[CMSG_SPACE(sizeof(int) * 8)] = {};
  if (nfds > 8) return false;
  iovec iov{const_cast<void*>(data), len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (nfds > 0) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
  }
  ssize_t n;
  do n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
  while (n < 0 && errno == EINTR);
  if (n < 0) return false;
  return WriteAll(sock, static_cast<const char*>(data) + n, len - n);
}

long RecvWithFds(int sock, void* data, size_t len, int* fds, int max_fds, int* nfds, int flags) {
  char control[CMSG_SPACE(sizeof(int) * 8)] = {};
  iovec iov{data, len};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  ssize_t n;
  do n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags);
  while (n < 0 && errno == EINTR);
  *nfds = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    int count = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    int got[8];
    if (count > 8) count = 8;
    memcpy(got, CMSG_DATA(c), sizeof(int) * count);
    for (int i = 0; i < count; ++i) {
      if (*nfds < max_fds) fds[(*nfds)++] = got[i];
      else ::close(got[i]);
    }
  }
  return n;
}

bool WriteAll(int fd, const void* data, size_t len) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = ::send(fd, p, len, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= n;
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t len) {
  char* p = static_cast<char*>(data);
  while (len > 0) {
    ssize_t n = ::read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    len -= n;
  }
  return true;
}

void Say(const std::string& what, int err) {
  std::string line = "sandshim-ctx: " + what;
  if (err) line += std::string(": ") + strerror(err);
  line += "\n";
  (void)!::write(2, line.data(), line.size());
}

}  // namespace sandshim::ctx
