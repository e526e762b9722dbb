// The pty sandshim makes for a gVisor exec with a console socket: the master reaches the
// socket, fds 0-2 are the slave while it lives, and are ours again after. In a forked child:
// the test swaps the child's own stdio.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "shim/runtime/exec_terminal.h"
#include "tests/unit/test_helpers.h"

using namespace sandshim;

namespace {

int ReceiveFd(int conn) {
  char byte;
  iovec iov{&byte, 1};
  char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (::recvmsg(conn, &msg, 0) <= 0) return -1;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (!c || c->cmsg_type != SCM_RIGHTS) return -1;
  int fd;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

// Exit code: 0 ok, otherwise the step that failed.
int Child(const std::filesystem::path& sock_path) {
  int l = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, sock_path.c_str(), sizeof addr.sun_path - 1);
  if (::bind(l, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(l, 1) != 0) return 2;
  bool was_tty = ::isatty(1);
  {
    auto t = runtime::TerminalStdio::Open(sock_path);
    if (!t) return 3;
    int master = ReceiveFd(::accept(l, nullptr, nullptr));
    if (master < 0) return 4;
    if (!::isatty(0) || !::isatty(1) || !::isatty(2)) return 5;
    if (::write(1, "ping", 4) != 4) return 6;
    char buf[16] = {};
    if (::read(master, buf, sizeof buf) < 4 || std::strncmp(buf, "ping", 4) != 0) return 7;
  }
  return ::isatty(1) == was_tty ? 0 : 8;
}

}  // namespace

TEST_CASE("exec terminal: the master goes to the console socket, stdio is the slave until restored") {
  testing::TempDir t;
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) ::_exit(Child(t.path() / "console.sock"));
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
