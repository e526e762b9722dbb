#include "shim/session/tty_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "shim/core/scope_exit.h"
#include "shim/core/unique_fd.h"

namespace sandshim::session {
namespace {

using Clock = std::chrono::steady_clock;

Result<UniqueFd> Listen(const std::filesystem::path& path) {
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

// The pty master sent over SCM_RIGHTS on a connection of the listener.
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

void CopyWindowSize(int from, int to) {
  winsize ws{};
  if (::ioctl(from, TIOCGWINSZ, &ws) == 0) ::ioctl(to, TIOCSWINSZ, &ws);
}

bool Copy(int from, int to, uint64_t* count) {
  std::array<char, 16384> buf;
  ssize_t n = ::read(from, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;  // EIO on the master: the terminal's last holder is gone
  if (count) *count += static_cast<uint64_t>(n);
  for (ssize_t off = 0; off < n;) {
    ssize_t w = ::write(to, buf.data() + off, static_cast<size_t>(n - off));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return true;
    off += w;
  }
  return true;
}

}  // namespace

Result<RunnerOutcome> RunChildWithTty(const std::function<int()>& child,
                                      const std::optional<std::filesystem::path>& console_socket,
                                      const RunnerOptions& o, const std::function<void(pid_t)>& on_timeout) {
  UniqueFd listener, master;
  std::string slave_path;
  if (console_socket) {
    listener = TRY(Listen(*console_socket));
  } else {
    master.Reset(::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!master.valid() || ::grantpt(master.get()) != 0 || ::unlockpt(master.get()) != 0) return ErrnoError("open pty");
    const char* name = ::ptsname(master.get());
    if (!name) return ErrnoError("ptsname");
    slave_path = name;
    CopyWindowSize(0, master.get());
  }
  ScopeExit unlink_socket([&] {
    if (console_socket) ::unlink(console_socket->c_str());
  });
  sigset_t mask, old;
  sigemptyset(&mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH}) sigaddset(&mask, s);
  ::sigprocmask(SIG_BLOCK, &mask, &old);
  ScopeExit restore_mask([&] { ::sigprocmask(SIG_SETMASK, &old, nullptr); });
  UniqueFd sigfd(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));

  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork");
  if (pid == 0) {
    ::sigprocmask(SIG_SETMASK, &old, nullptr);
    if (!slave_path.empty()) {
      ::setsid();  // the pty becomes the controlling terminal of the command's side
      int slave = ::open(slave_path.c_str(), O_RDWR);
      if (slave < 0) ::_exit(125);
      ::ioctl(slave, TIOCSCTTY, 0);
      for (int fd : {0, 1, 2}) ::dup2(slave, fd);
      if (slave > 2) ::close(slave);
    }
    ::_exit(child());
  }
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return ErrnoError("pidfd_open");

  // Our terminal in raw mode while the command owns the keyboard; restored on every path.
  termios saved{};
  bool raw = ::isatty(0) && ::tcgetattr(0, &saved) == 0;
  if (raw) {
    termios t = saved;
    ::cfmakeraw(&t);
    ::tcsetattr(0, TCSANOW, &t);
  }
  ScopeExit restore_tty([&] {
    if (raw) ::tcsetattr(0, TCSANOW, &saved);
  });

  RunnerOutcome r;
  bool exited = false, master_open = true, stdin_open = true;
  constexpr auto kNever = Clock::time_point::max();
  auto deadline = o.timeout.count() > 0 ? start + o.timeout : kNever;
  auto drain_until = kNever;
  int wstatus = 0;
  while (!exited || (master.valid() && master_open)) {
    auto now = Clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      on_timeout(pid);
      deadline = kNever;
    }
    if (exited && drain_until == kNever) drain_until = now + o.drain;
    if (now >= drain_until) break;
    auto until = std::min({deadline, drain_until, now + std::chrono::hours(1)});
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    std::array<pollfd, 5> fds{{{master.valid() ? -1 : listener.get(), POLLIN, 0},
                               {master.valid() && master_open ? master.get() : -1, POLLIN, 0},
                               {master.valid() && stdin_open ? 0 : -1, POLLIN, 0},
                               {exited ? -1 : pidfd.get(), POLLIN, 0},
                               {sigfd.get(), POLLIN, 0}}};
    int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0 && errno != EINTR) return ErrnoError("poll");
    if (n <= 0) continue;
    if (fds[0].revents) {
      master = TRY(ReceiveMaster(listener.get()));
      CopyWindowSize(0, master.get());
    }
    if (fds[1].revents) master_open = Copy(master.get(), 1, &r.bytes_out);
    if (fds[2].revents) stdin_open = Copy(0, master.get(), nullptr);
    if (fds[4].revents) {
      signalfd_siginfo si;
      if (::read(sigfd.get(), &si, sizeof si) == sizeof si) {
        if (si.ssi_signo == SIGWINCH) {
          if (master.valid()) CopyWindowSize(0, master.get());
        } else {
          ::kill(pid, static_cast<int>(si.ssi_signo));
        }
      }
    }
    if (fds[3].revents && !exited) {
      while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
      exited = true;
    }
  }
  if (!exited)
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  r.status = r.timed_out ? 124 : WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  return r;
}

}  // namespace sandshim::session
