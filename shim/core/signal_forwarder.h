// While a SignalForwarder lives, INT/TERM/HUP/QUIT/USR1/USR2/WINCH sent to this process go to
// one pid instead: what a process that only waits for a foreground command of its own should
// do with them. One at a time per process (the handler is process-wide).
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace sandshim::process {

// INT/TERM/HUP/QUIT/USR1/USR2/WINCH: what a process standing for a foreground command
// passes on to it (SignalForwarder here, proc::WaitForwardingSignals with a signalfd).
sigset_t ForwardedSignals();

// Keeps ForwardedSignals() pending from construction until Release (or the end of scope).
// Hold them from before the command starts, and release once the forwarder is in place: a
// caller that knows our pid (a shim, a terminal's ^C, the CLI's handle) may signal at once,
// and one that came before would end us by its default action with the command unwatched
// (CI: the gVisor exec keeper). A child started meanwhile sets before() as its mask.
class HeldSignals {
 public:
  HeldSignals();
  ~HeldSignals() { Release(); }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
  void Release();
  const sigset_t& before() const { return old_; }

 private:
  sigset_t old_;
  bool held_ = true;
};

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
