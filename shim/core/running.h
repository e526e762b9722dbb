// A started command that is waited on through a descriptor: a host child of ours (its pidfd),
// or a process inside a sandbox (a control-socket call that answers when it exits). Session
// exec supervises either the same way: poll the descriptor, forward signals, reap the status.
#pragma once

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
};

// A child of this process (not yet reaped).
Result<std::unique_ptr<Running>> HostChild(pid_t pid);

}  // namespace sandshim::proc
