#include "shim/core/exec_keeper.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace sandshim::proc {
namespace {

// Every signal a process can catch, but SIGCHLD (the guardian's, not the command's).
sigset_t Forwarded() {
  sigset_t set;
  sigfillset(&set);
  for (int s : {SIGKILL, SIGSTOP, SIGCHLD}) sigdelset(&set, s);
  return set;
}

// Nothing of the caller's but cmd's wait descriptor: the caller's stdio (containerd's
// fifos) must not stay open for as long as the command runs, nor any lock it holds.
void KeepOnly(int keep) {
  int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int i = 0; i < 3; ++i)
    if (null >= 0) ::dup2(null, i);
  if (keep > 3) ::syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u);
  ::syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u);
}

// Reads until the keeper is gone: EOF without a byte means it died without ending normally
// (SIGKILL), and the command goes the same way.
[[noreturn]] void RunGuardian(Running& cmd, int read_end) {
  sigset_t all;
  sigfillset(&all);
  ::sigprocmask(SIG_SETMASK, &all, nullptr);  // a signal to the keeper's group is not for us
  char b;
  ssize_t n;
  while ((n = ::read(read_end, &b, 1)) < 0 && errno == EINTR) {
  }
  if (n == 0) (void)cmd.Signal(SIGKILL);
  ::_exit(0);
}

// "0" moves the writer (v1 and v2). A cgroup that refuses (gone, full) leaves the keeper
// where it was: it still stands for the command.
void JoinCgroups(const std::vector<std::filesystem::path>& dirs) {
  for (const auto& d : dirs) {
    int fd = ::open((d / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) continue;
    (void)!::write(fd, "0", 1);
    ::close(fd);
  }
}

[[noreturn]] void RunKeeper(Running& cmd, const std::vector<std::filesystem::path>& cgroup_dirs) {
  JoinCgroups(cgroup_dirs);
  KeepOnly(cmd.WaitFd());
  ::setsid();  // a signal to the caller's process group is not one to the command
  // Born with the forwarded signals blocked (StartExecKeeper): one sent before the signalfd
  // below exists stays pending for it, instead of ending the keeper by its default action.
  sigset_t forwarded = Forwarded();
  ::sigprocmask(SIG_SETMASK, &forwarded, nullptr);
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::signal(s, SIG_DFL);
  int p[2];
  pid_t guardian = -1;
  if (::pipe2(p, O_CLOEXEC) == 0) {
    guardian = ::fork();
    if (guardian == 0) {
      ::close(p[1]);
      RunGuardian(cmd, p[0]);
    }
    ::close(p[0]);
  }
  auto code = WaitForwardingSignals(cmd, Forwarded());
  ::signal(SIGPIPE, SIG_IGN);  // a guardian already gone must not change our status
  if (guardian > 0) {
    (void)!::write(p[1], "x", 1);  // ended normally: the guardian leaves the command be
    ::close(p[1]);
    while (::waitpid(guardian, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  // No answer from the sandbox: it is gone, and the command with it, as with SIGKILL.
  ::_exit(code ? *code : 128 + SIGKILL);
}

}  // namespace

Result<pid_t> StartExecKeeper(std::unique_ptr<Running> cmd, const std::vector<std::filesystem::path>& cgroup_dirs) {
  // The command already runs, and the caller learns the keeper's pid as soon as we return: a
  // `kill --exec-id -s USR1` may come while the keeper still joins cgroups (slow on v1 under
  // load; CI saw USR1's default action end the keeper, and the guardian then killed the
  // command). Blocked from the fork on, it waits for the forwarding loop.
  sigset_t forwarded = Forwarded(), old;
  ::sigprocmask(SIG_BLOCK, &forwarded, &old);
  pid_t pid = ::fork();
  if (pid == 0) RunKeeper(*cmd, cgroup_dirs);
  int fork_errno = errno;
  ::sigprocmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) return MakeError("fork the exec's keeper: " + std::string(strerror(fork_errno)), fork_errno);
  return pid;
}

}  // namespace sandshim::proc
