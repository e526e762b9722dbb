// Running helper programs (runsc, probes) through Boost.Process. Output that sandshim needs is
// captured into memory files rather than pipes: runsc's sandbox and gofer inherit the stdio of
// the runsc that started them and would hold a pipe open for the container's whole life.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::spawn {

struct Command {
  std::vector<std::string> argv;
  bool capture = true;           // false: the child inherits our stdin/stdout/stderr
  bool forward_signals = false;  // relay SIGINT/TERM/HUP/QUIT/USR1/USR2/WINCH to the child
  std::optional<std::chrono::milliseconds> timeout;  // then SIGKILL, timed_out = true
  // The child leads a new session (and process group): what it leaves running, such as a
  // runsc sandbox and gofer, no longer dies with our caller's job (Ctrl-C, timeout(1), a
  // service manager signalling the group).
  bool new_session = false;
};

struct Outcome {
  int exit_code = 0;    // valid when term_signal == 0
  int term_signal = 0;  // the signal that ended the child, if any
  bool timed_out = false;
  std::string out, err;
  // Shell convention: exit code, or 128 + signal.
  int Status() const { return term_signal ? 128 + term_signal : exit_code; }
  bool Success() const { return !timed_out && term_signal == 0 && exit_code == 0; }
  // "exit status 1: <last line of stderr>" — the text an Error carries.
  std::string Describe() const;
};

Result<Outcome> Run(const Command& cmd);

// While it lives, INT/TERM/HUP/QUIT/USR1/USR2/WINCH sent to this process go to pid instead:
// what a process that only waits for a foreground command of its own should do with them.
// One at a time per process (the handler is process-wide).
class SignalForwarder {
 public:
  explicit SignalForwarder(pid_t pid);
  ~SignalForwarder();
  SignalForwarder(const SignalForwarder&) = delete;
  SignalForwarder& operator=(const SignalForwarder&) = delete;

 private:
  struct sigaction old_[7];
};
// The path a bare program name runs from, searched like a shell would (Boost.Process does not
// search PATH for bp::exe), then in Debian's directories: callers such as podman's cleanup
// run us with a bare PATH. Names with a '/' are returned as they are.
std::string Resolve(const std::string& name);
// Replaces this process with argv (execv): for verbs whose whole remaining job is one
// program, so it gets our stdio, signals and exit status with no process in between.
// Returns only on failure.
Error Replace(const std::vector<std::string>& argv);
// Starts argv in the background and does not wait for it; the caller (or the subreaper above
// us) reaps it. Inherits our stdio.
Result<pid_t> Start(const std::vector<std::string>& argv);

}  // namespace sandshim::spawn
