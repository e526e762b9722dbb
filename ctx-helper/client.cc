// `sandshim-ctx run --uid U --gid G [--groups G,..] --cwd DIR -- CMD...`: what a session exec
// into a gVisor context runs (root, with the exec's capabilities). The sandbox's exec lands in
// the sandbox's root network namespace, so the command cannot start here: the context's broker,
// which lives in the context's own namespace, forks it with our stdio. We stand in for it:
// signals sent to us go to it (through the broker), and we end as it ended (its exit code, or its fatal signal
// raised on ourselves), so the host sees what a direct exec would show.
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>

#include "ctx-helper/fdpass.h"
#include "ctx-helper/helper.h"
#include "ctx-helper/wire.h"

extern char** environ;

namespace sandshim::ctx {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT, SIGTSTP};
int g_signal_pipe[2] = {-1, -1};

void OnSignal(int sig) {
  int saved = errno;
  unsigned char b = static_cast<unsigned char>(sig);
  (void)!::write(g_signal_pipe[1], &b, 1);
  errno = saved;
}

bool ParseU32(const char* s, uint32_t& out) {
  char* end = nullptr;
  errno = 0;
  unsigned long v = std::strtoul(s, &end, 10);
  if (errno || *s == '\0' || *end != '\0' || v > 0xffffffffUL) return false;
  out = static_cast<uint32_t>(v);
  return true;
}

bool ParseArgs(int argc, char** argv, Request& r) {
  int i = 0;
  bool have_cwd = false;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") break;
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    if (a == "--uid") {
      if (!ParseU32(v, r.uid)) return false;
    } else if (a == "--gid") {
      if (!ParseU32(v, r.gid)) return false;
    } else if (a == "--groups") {
      std::string list = v;
      for (size_t at = 0; at < list.size();) {
        auto comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        uint32_t g;
        if (!ParseU32(list.substr(at, comma - at).c_str(), g)) return false;
        r.groups.push_back(g);
        at = comma + 1;
      }
    } else if (a == "--cwd") {
      r.cwd = v;
      have_cwd = true;
    } else {
      return false;
    }
  }
  for (++i; i < argc; ++i) r.argv.push_back(argv[i]);
  return have_cwd && !r.argv.empty();
}

// Our credentials are the ones the exec asked for, but for the user: the broker gives the
// command the same capability sets and no_new_privs.
void OwnCredentials(Request& r) {
  __user_cap_header_struct h{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct d[2] = {};
  if (::syscall(SYS_capget, &h, d) == 0) {
    r.cap_eff = d[0].effective | (uint64_t{d[1].effective} << 32);
    r.cap_perm = d[0].permitted | (uint64_t{d[1].permitted} << 32);
    r.cap_inh = d[0].inheritable | (uint64_t{d[1].inheritable} << 32);
  }
  r.cap_bound = 0;
  r.cap_amb = 0;
  for (int c = 0; c < 64; ++c) {
    int b = ::prctl(PR_CAPBSET_READ, c, 0, 0, 0);
    if (b < 0) break;
    if (b) r.cap_bound |= uint64_t{1} << c;
    if (::prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) == 1) r.cap_amb |= uint64_t{1} << c;
  }
  r.no_new_privs = ::prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

int Connect() {
  int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  strncpy(a.sun_path, kBrokerSocket, sizeof(a.sun_path) - 1);
  if (s < 0 || ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    Say(std::string("the context's broker at ") + kBrokerSocket, errno);
    return -1;
  }
  return s;
}

// As the command ended: its code, or its signal (no core file of ours).
[[noreturn]] void EndAs(int status) {
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  int sig = WTERMSIG(status);
  rlimit none{0, 0};
  ::setrlimit(RLIMIT_CORE, &none);
  ::signal(sig, SIG_DFL);
  sigset_t all;
  sigemptyset(&all);
  sigaddset(&all, sig);
  ::sigprocmask(SIG_UNBLOCK, &all, nullptr);
  ::kill(::getpid(), sig);
  ::_exit(128 + sig);
}

}  // namespace

int RunClient(int argc, char** argv) {
  Request r;
  if (!ParseArgs(argc, argv, r)) {
    Say("usage: sandshim-ctx run --uid U --gid G [--groups G,...] --cwd DIR -- CMD [ARG]...");
    return 125;
  }
  for (char** e = environ; *e; ++e) r.env.push_back(*e);
  // The exec's fd 3, when sandshim gave it one (--shell's state report): the command gets it
  // too. Asked before this process opens anything, which would take the number.
  bool fd3 = ::fcntl(3, F_GETFD) >= 0;
  OwnCredentials(r);
  // A terminal: the command's session takes it as its controlling terminal, which a terminal
  // can be for one session only; ours lets go of it (the hangup that sends us is ignored).
  r.tty = ::isatty(0);
  if (r.tty) {
    ::signal(SIGHUP, SIG_IGN);
    (void)::ioctl(0, TIOCNOTTY);
    ::signal(SIGHUP, SIG_DFL);
  }
  if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return 125;
  struct sigaction sa{};
  sa.sa_handler = OnSignal;
  sa.sa_flags = SA_RESTART;
  for (int s : kForwarded) ::sigaction(s, &sa, nullptr);
  int sock = Connect();
  if (sock < 0) return 125;
  auto body = Encode(r);
  uint32_t len = static_cast<uint32_t>(body.size());
  int fds[] = {0, 1, 2, 3};
  if (!SendWithFds(sock, &len, sizeof(len), fds, fd3 ? 4 : 3) || !WriteAll(sock, body.data(), body.size())) {
    Say("sending the request to the broker", errno);
    return 125;
  }
  pid_t pid = 0;
  for (;;) {
    // Signals wait in their pipe until the command has a pid to forward them to.
    pollfd p[2] = {{sock, POLLIN, 0}, {g_signal_pipe[0], POLLIN, 0}};
    if (::poll(p, pid > 0 ? 2 : 1, -1) < 0) {
      if (errno == EINTR) continue;
      return 125;
    }
    if (p[1].revents & POLLIN) {
      unsigned char sigs[64];
      ssize_t n = ::read(g_signal_pipe[0], sigs, sizeof(sigs));
      if (n > 0) (void)WriteAll(sock, sigs, n);  // the broker sends them on
    }
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    ReplyMsg m;
    if (!ReadAll(sock, &m, sizeof(m))) {
      Say("the context's broker went away before the command ended");
      return 255;
    }
    if (m.kind == Reply::kPid) pid = m.value;
    else if (m.kind == Reply::kStatus) EndAs(m.value);
    else if (m.kind == Reply::kError) {
      Say("the broker could not start the command", m.value);
      return 125;
    }
  }
}

}  // namespace sandshim::ctx
