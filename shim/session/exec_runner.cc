#include "shim/session/exec_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <optional>

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

// Copies what is readable from `from` to `to` (or into keep, up to limit); false at EOF.
bool Pump(int from, int to, uint64_t* count, std::string* keep, size_t limit) {
  std::array<char, 65536> buf;
  ssize_t n = ::read(from, buf.data(), buf.size());
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  *count += static_cast<uint64_t>(n);
  if (limit > 0) {
    if (keep->size() < limit) keep->append(buf.data(), std::min(static_cast<size_t>(n), limit - keep->size()));
    return true;
  }
  WriteAll(to, buf.data(), static_cast<size_t>(n));  // a closed stdout of ours must not stop the child
  return true;
}

int StatusOf(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 255;
}

}  // namespace

Result<RunnerOutcome> RunChild(const std::function<int()>& child, const RunnerOptions& o,
                               const std::function<void(pid_t)>& on_timeout) {
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) return ErrnoError("pipe");
  UniqueFd out_r(out[0]), out_w(out[1]), err_r(err[0]), err_w(err[1]);

  sigset_t fwd, old;
  sigemptyset(&fwd);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&fwd, s);
  ::sigprocmask(SIG_BLOCK, &fwd, &old);
  ScopeExit restore([&] { ::sigprocmask(SIG_SETMASK, &old, nullptr); });
  UniqueFd sigfd(::signalfd(-1, &fwd, SFD_CLOEXEC | SFD_NONBLOCK));

  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return ErrnoError("fork");
  if (pid == 0) {
    ::sigprocmask(SIG_SETMASK, &old, nullptr);  // exec keeps the mask: runsc must see signals
    ::dup2(out[1], 1);  // dup2 leaves the copies inheritable
    ::dup2(err[1], 2);
    ::_exit(child());
  }
  out_w.Reset();
  err_w.Reset();
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return ErrnoError("pidfd_open");

  RunnerOutcome r;
  bool exited = false, out_open = true, err_open = true;
  // Clock::time_point::max() stands for "not set" (GCC misreads optionals here).
  constexpr auto kNever = Clock::time_point::max();
  auto deadline = o.timeout.count() > 0 ? start + o.timeout : kNever;
  auto drain_until = kNever;
  int wstatus = 0;
  while (!exited || out_open || err_open) {
    auto now = Clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      on_timeout(pid);
      deadline = kNever;
    }
    if (exited && drain_until == kNever) drain_until = now + o.drain;
    if (now >= drain_until) break;  // background processes hold the pipes
    auto until = std::min({deadline, drain_until, now + std::chrono::hours(1)});
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    std::array<pollfd, 4> fds{{{out_open ? out_r.get() : -1, POLLIN, 0},
                               {err_open ? err_r.get() : -1, POLLIN, 0},
                               {exited ? -1 : pidfd.get(), POLLIN, 0},
                               {sigfd.get(), POLLIN, 0}}};
    int n = ::poll(fds.data(), fds.size(), wait_ms);
    if (n < 0 && errno != EINTR) return ErrnoError("poll");
    if (n <= 0) continue;
    if (fds[0].revents) out_open = Pump(out_r.get(), 1, &r.bytes_out, &r.out, o.capture_limit);
    if (fds[1].revents) err_open = Pump(err_r.get(), 2, &r.bytes_err, &r.err, o.capture_limit);
    if (fds[3].revents) {
      signalfd_siginfo si;
      if (::read(sigfd.get(), &si, sizeof si) == sizeof si) ::kill(pid, static_cast<int>(si.ssi_signo));
    }
    if (fds[2].revents && !exited) {
      while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
      }
      exited = true;
    }
  }
  if (!exited)
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  r.status = r.timed_out ? 124 : StatusOf(wstatus);
  return r;
}

}  // namespace sandshim::session
