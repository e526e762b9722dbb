#include "shim/core/running.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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

}  // namespace

Result<std::unique_ptr<Running>> HostChild(pid_t pid) {
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
  if (!pidfd.valid()) return ErrnoError("pidfd_open");
  return std::unique_ptr<Running>(std::make_unique<HostRunning>(pid, std::move(pidfd)));
}

}  // namespace sandshim::proc
