#include "shim/core/running.h"

#include "shim/core/signal_forwarder.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "shim/core/scope_exit.h"
#include "shim/core/unique_fd.h"

namespace sandshim::proc {
namespace {

class HostRunning : public Running {
 public:
  HostRunning(pid_t pid, UniqueFd pidfd) : pid_(pid), pidfd_(std::move(pidfd)) {}
  pid_t Pid() const override { return pid_; }
  int WaitFd() const override { return pidfd_.get(); }
  Result<int> Reap() override {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0)
      if (errno != EINTR) return ErrnoError("waitpid");
    return status;
  }
  Status Signal(int sig) override {
    if (::kill(pid_, sig) != 0) return ErrnoError("kill");
    return Ok();
  }

 private:
  pid_t pid_;
  UniqueFd pidfd_;
};

class DetachedRunning : public Running {
 public:
  explicit DetachedRunning(pid_t pid) : pid_(pid) {}
  pid_t Pid() const override { return pid_; }
  int WaitFd() const override { return -1; }
  Result<int> Reap() override { return MakeError("a detached process is not waited for here", ECHILD); }
  Status Signal(int sig) override {
    if (::kill(pid_, sig) != 0) return ErrnoError("kill");
    return Ok();
  }

 private:
  pid_t pid_;
};

}  // namespace

std::unique_ptr<Running> Detached(pid_t pid) { return std::make_unique<DetachedRunning>(pid); }

Result<std::unique_ptr<Running>> HostChild(pid_t pid) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return ErrnoError("pidfd_open");
  return std::unique_ptr<Running>(std::make_unique<HostRunning>(pid, std::move(pidfd)));
}

int ExitCode(int ws) {
  if (WIFEXITED(ws)) return WEXITSTATUS(ws);
  if (WIFSIGNALED(ws)) return 128 + WTERMSIG(ws);
  return 255;
}

Result<int> WaitForwardingSignals(Running& cmd) { return WaitForwardingSignals(cmd, process::ForwardedSignals()); }

Result<int> WaitForwardingSignals(Running& cmd, const sigset_t& mask) {
  sigset_t old;
  ::sigprocmask(SIG_BLOCK, &mask, &old);
  ScopeExit restore([&] { ::sigprocmask(SIG_SETMASK, &old, nullptr); });
  UniqueFd sigfd(::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
  for (;;) {
    pollfd fds[2] = {{cmd.WaitFd(), POLLIN, 0}, {sigfd.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("poll");
    }
    if (fds[1].revents) {
      signalfd_siginfo si;
      if (::read(sigfd.get(), &si, sizeof si) == sizeof si) (void)cmd.Signal(static_cast<int>(si.ssi_signo));
    }
    if (fds[0].revents) return ExitCode(TRY(cmd.Reap()));
  }
}

}  // namespace sandshim::proc
