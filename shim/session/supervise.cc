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

RunnerOutcome NotFound(const std::string& msg, const RunnerOptions& o, Clock::time_point start) {
  RunnerOutcome r;
  r.status = 127;
  std::string line = msg + "\n";
  r.bytes_err = line.size();
  if (o.capture_limit > 0) r.err = line.substr(0, o.capture_limit);
  else WriteAll(2, line.data(), line.size());
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  return r;
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

Result<RunnerOutcome> Supervise(CommandSide& side, Streams& io, const RunnerOptions& o,
                                const std::function<void(proc::Running&)>& on_timeout) {
  sigset_t mask, old;
  sigemptyset(&mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&mask, s);
  for (int s : io.Signals()) sigaddset(&mask, s);
  ::sigprocmask(SIG_BLOCK, &mask, &old);
  ScopeExit restore([&] { ::sigprocmask(SIG_SETMASK, &old, nullptr); });
  UniqueFd sigfd(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));

  auto start = Clock::now();
  std::unique_ptr<proc::Running> cmd;
  if (auto stdio = io.ChildStdio(); stdio && side.direct) {
    auto started = side.direct(*stdio);
    // A command that is not there is the command's failure, as in a shell: 127, its message
    // on the command's stderr, not sandshim's error.
    if (!started && started.error().err_no == ENOENT) return NotFound(started.error().msg, o, start);
    cmd = TRY(std::move(started));
  }
  std::optional<spawn::Launch> launch;
  if (!cmd && side.launch) launch = TRY(side.launch());
  if (!cmd) {
    pid_t pid = -1;
    if (launch) {
      io.AddStdio(*launch);
      launch->sigmask = old;  // exec keeps the mask: runsc must see signals
      pid = TRY(process::Spawn(*launch)).Release();  // HostChild below owns it
      launch->owned.clear();
    } else {
      pid = ::fork();
      if (pid < 0) return ErrnoError("fork");
      if (pid == 0) {
        ::sigprocmask(SIG_SETMASK, &old, nullptr);
        // Out of the caller's session (its terminal, its ^C): we forward the signals meant
        // for the command, and nothing started from here may reach the caller's terminal.
        ::setsid();
        io.InChild();
        ::_exit(side.child());
      }
    }
    cmd = TRY(proc::HostChild(pid));
  }
  io.AfterFork();

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
      on_timeout(*cmd);
      deadline = kNever;
    }
    if (exited && drain_until == kNever) drain_until = now + o.drain;
    if (now >= drain_until) break;  // background processes hold the streams
    auto until = std::min({deadline, drain_until, now + std::chrono::hours(1)});
    int wait_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count()) + 1;
    fds = {{exited ? -1 : cmd->WaitFd(), POLLIN, 0}, {sigfd.get(), POLLIN, 0}};
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
        else (void)cmd->Signal(sig);
      }
    }
    if (fds[0].revents && !exited) {
      wstatus = TRY(cmd->Reap());
      exited = true;
    }
  }
  if (!exited) wstatus = TRY(cmd->Reap());
  r.duration = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  if (r.timed_out) r.status = 124;
  else if (WIFEXITED(wstatus)) r.status = WEXITSTATUS(wstatus);
  else if (WIFSIGNALED(wstatus)) r.status = 128 + WTERMSIG(wstatus);
  else r.status = 255;
  return r;
}

}  // namespace sandshim::session
