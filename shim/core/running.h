// A started command that is waited on through a descriptor: a host child of ours (its pidfd),
// or a process inside a sandbox (a control-socket call that answers when it exits). This is
// the handle Backend::StartExec returns: whoever started an exec waits, signals and ends its
// tree through it, whatever mechanism started it.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <memory>

#include "shim/core/result.h"

namespace sandshim::proc {

class Running {
 public:
  virtual ~Running() = default;
  // In its own pid space (the host's, or the sandbox's).
  virtual pid_t Pid() const = 0;
  // Readable once the command has exited.
  virtual int WaitFd() const = 0;
  // Its wait status (waitpid's encoding); blocks until it has exited.
  virtual Result<int> Reap() = 0;
  virtual Status Signal(int sig) = 0;
  // sig to the command and everything it started (a deadline's end); the default knows of
  // no tree and signals the command alone.
  virtual Status KillTree(int sig) { return Signal(sig); }
  // The master of the command's terminal, when it was started with one whose master stays
  // with us (-1 otherwise). Owned by this handle.
  virtual int TerminalMaster() const { return -1; }
};

// A child of this process (not yet reaped).
Result<std::unique_ptr<Running>> HostChild(pid_t pid);

// A process started in the background that nobody here waits for (runc's exec --detach):
// Pid and Signal only.
std::unique_ptr<Running> Detached(pid_t pid);

// An exit code from a wait status: the code, or 128 + the signal.
int ExitCode(int wait_status);

// Waits for cmd while passing process::ForwardedSignals() that reach us on to it (the
// foreground `exec` verb); returns its exit code. Hold them from before the command starts
// (process::HeldSignals): one that comes before the wait would end us by its default action.
Result<int> WaitForwardingSignals(Running& cmd);
// The same with the signals in set (blocked while waiting; the caller's mask comes back).
Result<int> WaitForwardingSignals(Running& cmd, const sigset_t& set);

}  // namespace sandshim::proc
