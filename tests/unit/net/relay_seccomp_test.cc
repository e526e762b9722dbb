// The relay's seccomp allow-list (review M12), loaded in a forked child: what a relay does
// still works (a thread through clone, an IPv4 socket, a pipe), what an attacker in a relay
// would try fails (signalling another process, creating files, namespaces, clone3's hidden
// flags). Each blocked call is first made without the filter, where it succeeds.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>
#include <thread>

#include "shim/net/relay_seccomp.h"

namespace {

// One line per probe: "name=0" on success, "name=<errno>" on failure.
std::string Probe(const std::string& scratch) {
  std::string out;
  auto note = [&](const char* name, long rc) { out += std::string(name) + "=" + std::to_string(rc < 0 ? errno : 0) + "\n"; };
  int fds[2];
  long rc = ::pipe2(fds, O_CLOEXEC);
  note("pipe", rc);
  if (rc == 0) note("pipe-io", ::write(fds[1], "x", 1) == 1 && ::read(fds[0], fds, 1) == 1 ? 0 : -1);
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  note("socket-inet", s);
  if (s >= 0) ::close(s);
  bool ran = false;
  std::thread([&] { ran = true; }).join();
  note("thread", ran ? 0 : (errno = EIO, -1));
  note("kill-parent", ::kill(::getppid(), 0));
  int f = ::open(scratch.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  note("create-file", f);
  if (f >= 0) ::close(f), ::unlink(scratch.c_str());
  note("clone3", ::syscall(SYS_clone3, nullptr, 0));
  char* const no_args[] = {nullptr};
  note("execve", ::execve("/nonexistent", no_args, no_args));
  return out;
}

std::string InChild(bool filtered) {
  int p[2];
  REQUIRE(::pipe(p) == 0);
  std::string scratch = "/tmp/sandshim-relay-seccomp-" + std::to_string(::getpid());
  pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(p[0]);
    std::string out;
    if (filtered) {
      if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) ::_exit(2);
      if (auto s = sandshim::net::LoadRelaySeccomp(); !s) out = "load failed: " + s.error().msg + "\n";
    }
    out += Probe(scratch);
    (void)!::write(p[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(p[1]);
  std::string out;
  char buf[512];
  for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(p[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  return out;
}

bool Has(const std::string& hay, const std::string& line) { return hay.find(line + "\n") != std::string::npos; }

}  // namespace

TEST_CASE("relay seccomp: a relay's calls work, an attacker's fail (control: the same calls unfiltered)") {
  auto open = InChild(false);
  INFO("unfiltered:\n" << open);
  CHECK(Has(open, "kill-parent=0"));  // another process of the same uid: reachable without the filter
  CHECK(Has(open, "create-file=0"));
  CHECK_FALSE(Has(open, "clone3=" + std::to_string(ENOSYS)));  // the kernel has clone3 (EFAULT on nullptr)
  auto shut = InChild(true);
  INFO("filtered:\n" << shut);
  REQUIRE(shut.find("load failed") == std::string::npos);
  for (const char* ok : {"pipe=0", "pipe-io=0", "socket-inet=0", "thread=0"}) CHECK(Has(shut, ok));
  CHECK(Has(shut, "kill-parent=" + std::to_string(EPERM)));
  CHECK(Has(shut, "create-file=" + std::to_string(EPERM)));
  CHECK(Has(shut, "clone3=" + std::to_string(ENOSYS)));  // glibc then uses clone, whose flags are checked
  CHECK(Has(shut, "execve=" + std::to_string(EPERM)));
}
