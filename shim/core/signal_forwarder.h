// While a SignalForwarder lives, INT/TERM/HUP/QUIT/USR1/USR2/WINCH sent to this process go to
// one pid instead: what a process that only waits for a foreground command of its own should
// do with them. One at a time per process (the handler is process-wide).
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace sandshim::process {

class SignalForwarder {
 public:
  explicit SignalForwarder(pid_t pid);
  ~SignalForwarder();
  SignalForwarder(const SignalForwarder&) = delete;
  SignalForwarder& operator=(const SignalForwarder&) = delete;

 private:
  struct sigaction old_[7];
};

}  // namespace sandshim::process
