#include "shim/session/supervise.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>

#include "shim/core/scope_exit.h"
#include "shim/core/unique_fd.h"

namespace sandshim::session {
namespace {

using Clock = std::chrono::steady_clock;

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

bool Pump(int from, int to, uint64_t* count, std::string* keep, size_t limit) {
  std::array<char, 65536> buf;
  ssize_t n = ::read(from, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  if (count) *count += static_cast<uint64_t>(n);
  if (keep && limit > 0) {
    if (keep->size() < limit) keep->append(buf.data(), std::min(static_cast<size_t>(n), limit - keep->size()));
    return true;
  }
  WriteAll(to, buf.data(), static_cast<size_t>(n));  // a closed stdout of ours must not stop the command
  return true;
}

Result<RunnerOutcome> Supervise(const std::function<int()>& child, Streams& io, const RunnerOptions& o,
                                const std::function<void(pid_t)>& on_timeout) {
  sigset_t mask, old;
  sigemptyset(&mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, s);
  for (int s : io.Signals()) sigaddset(&mask, s);
  ::sigprocmask(SIG_BLOCK, &mask, &old);
  ScopeExit restore([&] { ::sigprocmask(SIG_SETMASK, &old, nullptr); });
  UniqueFd sigfd(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));

  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork");
  if (pid == 0) {
    ::sigprocmask(SIG_SETMASK, &old, nullptr);  // exec keeps the mask: runsc must see signals
    io.InChild();
    ::_exit(child());
  }
  io.AfterFork();
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return ErrnoError("pidfd_open");

  RunnerOutcome r;
  bool exited = false;
  int wstatus = 0;
  // Clock::time_point::max() stands for "not set" (GCC misreads optionals here).
  constexpr auto kNever = Clock::time_point::max();
  auto deadline = o.timeout.count() > 0 ? start + o.timeout : kNever;
  auto drain_until = kNever;
  std::vector<pollfd> fds;
  while (!exited || io.Open()) {
    auto now = Clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      on_timeout(pid);
      deadline = kNever;
    }
    if (exited && drain_until == kNever) drain_until = now + o.drain;
    if (now >= drain_until) break;  // background processes hold the streams
    auto until = std::min({deadline, drain_until, now + std::chrono::hours(1)});
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    fds = {{exited ? -1 : pidfd.get(), POLLIN, 0}, {sigfd.get(), POLLIN, 0}};
    io.Fill(fds);
    int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0 && errno != EINTR) return ErrnoError("poll");
    if (n <= 0) continue;
    TRY(io.Ready(fds.data() + 2, r));
    if (fds[1].revents) {
      signalfd_siginfo si;
      if (::read(sigfd.get(), &si, sizeof si) == sizeof si) {
        int sig = static_cast<int>(si.ssi_signo);
        auto own = io.Signals();
        if (std::find(own.begin(), own.end(), sig) != own.end()) io.OnSignal(sig);
        else ::kill(pid, sig);
      }
    }
    if (fds[0].revents && !exited) {
      while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
      exited = true;
    }
  }
  if (!exited)
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  if (r.timed_out) r.status = 124;
  else if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  else if (WIFSIGNALED(wstatus)) r.status = 128 + WTERMSIG(wstatus);
  else r.status = 255;
  return r;
}

}  // namespace sandshim::session
