// The context container's init, and its outside half. It stays in the sandbox's root network
// namespace, which reaches nothing but the relay link, and it is the context's PID 1 (signals
// from inside the context's PID namespace reach it only where it handles them: TERM, which
// ends the context). It forks the broker (broker.cc), then serves it: for each byte the broker
// sends, a connection to the forward's target, handed over with SCM_RIGHTS. The broker's end
// is the context's end: user code that kills it breaks its own context, nothing more.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "ctx-helper/fdpass.h"
#include "ctx-helper/helper.h"
#include "ctx-helper/wire.h"

namespace sandshim::ctx {
namespace {

int g_signal_pipe[2] = {-1, -1};
void OnSignal(int sig) {
  int saved = errno;
  char b = static_cast<char>(sig);
  (void)!::write(g_signal_pipe[1], &b, 1);
  errno = saved;
}

// A connection to the target, started with the path line when there is one; -1 (the broker
// closes its client's connection then).
int Upstream(const sockaddr_in& target, const std::string& path_line) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval t{10, 0};
  ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &t, sizeof(t));
  if (s >= 0 && ::connect(s, reinterpret_cast<const sockaddr*>(&target), sizeof(target)) == 0 &&
      (path_line.empty() || WriteAll(s, path_line.data(), path_line.size())))
    return s;
  if (s >= 0) ::close(s);
  return -1;
}

// The path line from kPathFile ("" without one: a session whose relay reads none). The file
// is unmounted where the Sentry lets us (this one keeps it: root in the context can read its
// own key, which gets it nothing: every connection of the context's starts with our line).
std::string LoadPathLine() {
  int fd = ::open(kPathFile, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[128];
  ssize_t n = ::read(fd, buf, sizeof(buf));
  ::close(fd);
  (void)::umount2(kPathFile, MNT_DETACH);
  std::string key(buf, n > 0 ? static_cast<size_t>(n) : 0);
  while (!key.empty() && (key.back() == '\n' || key.back() == ' ')) key.pop_back();
  if (key.size() != 64 || key.find_first_not_of("0123456789abcdef") != std::string::npos) {
    Say("init: the path file is malformed; egress goes without it");
    return "";
  }
  return std::string(kPathLinePrefix) + key + "\r\n";
}

}  // namespace

bool DropCaps(uint64_t mask) {
  for (int c = 63; c >= 0; --c)  // (CAP_SETPCAP, 8, after every higher one; nothing below needs it)
    if (((mask >> c) & 1) && c != CAP_SETPCAP && ::prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0) return false;
  if (((mask >> CAP_SETPCAP) & 1) && ::prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0) != 0) return false;
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct d[2] = {};
  if (::syscall(SYS_capget, &h, d) != 0) return false;
  for (int i = 0; i < 2; ++i) {
    uint32_t keep = ~static_cast<uint32_t>(mask >> (32 * i));
    d[i].effective &= keep;
    d[i].permitted &= keep;
    d[i].inheritable &= keep;
  }
  return ::syscall(SYS_capset, &h, d) == 0;
}

int RunInit(const Forward& f, uint64_t init_caps) {
  std::string path_line = f.listen_port ? LoadPathLine() : "";
  // Neither half's memory (the path key) nor /proc files are for the context's processes,
  // root's included, which share this PID namespace (commands are dumpable again after execve).
  (void)::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  int link[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link) != 0 || ::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    Say("init: socketpair", errno);
    return 1;
  }
  struct sigaction sa{};
  sa.sa_handler = OnSignal;
  sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  for (int s : {SIGCHLD, SIGTERM, SIGINT}) ::sigaction(s, &sa, nullptr);
  ::signal(SIGPIPE, SIG_IGN);
  pid_t broker = ::fork();
  if (broker < 0) return 1;
  if (broker == 0) {
    ::close(link[0]);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    RunBroker(f, link[1], init_caps);
  }
  ::close(link[1]);
  if (!DropCaps(init_caps)) {
    Say("init: dropping the broker's capabilities", errno);
    return 1;
  }
  for (;;) {
    pollfd p[2] = {{g_signal_pipe[0], POLLIN, 0}, {link[0], POLLIN, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (p[0].revents) {
      char sigs[64];
      ssize_t n = ::read(g_signal_pipe[0], sigs, sizeof(sigs));
      for (ssize_t i = 0; i < n; ++i)
        if (sigs[i] == SIGTERM || sigs[i] == SIGINT) return 0;  // the context ends (its PID namespace with us)
      int status;
      pid_t pid;
      // Orphans of the context's commands land here: reaped. The broker's end is the context's.
      while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0)
        if (pid == broker) {
          Say("init: the context's broker ended (" +
              (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status)) : "exit " + std::to_string(WEXITSTATUS(status))) +
              "); the context ends with it");
          return 1;
        }
    }
    if (p[1].revents) {
      char want;
      if (::read(link[0], &want, 1) != 1) continue;  // (its end is seen as SIGCHLD)
      int up = Upstream(f.target, path_line);
      (void)SendWithFds(link[0], "u", 1, &up, up >= 0 ? 1 : 0);
      if (up >= 0) ::close(up);
    }
  }
}

}  // namespace sandshim::ctx
