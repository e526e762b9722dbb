// Running a helper program (runsc, probes, debootstrap, docker, hooks) to its end. Output
// that sandshim needs is captured into memory files rather than pipes: runsc's sandbox and
// gofer inherit the stdio of the runsc that started them and would hold a pipe open for the
// container's whole life.
#pragma once

#include <signal.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "shim/core/process.h"
#include "shim/core/result.h"

namespace sandshim::process {

struct Command {
  std::vector<std::string> argv;
  bool capture = true;  // stdout/stderr into Outcome; false: the child inherits ours
  // Its stdin, from a memory file; nullopt: /dev/null when capturing, else ours.
  std::optional<std::string> input;
  bool forward_signals = false;  // relay SIGINT/TERM/HUP/QUIT/USR1/USR2/WINCH to the child
  std::optional<std::chrono::milliseconds> timeout;  // then SIGKILL, timed_out = true
  // The child leads a new session (and process group): what it leaves running, such as a
  // runsc sandbox and gofer, no longer dies with our caller's job (Ctrl-C, timeout(1), a
  // service manager signalling the group).
  bool new_session = false;
  std::optional<std::vector<std::string>> env;  // exactly these; nullopt: ours
  Reap reap = Reap::kOnlyThis;                  // see process.h
  std::string exe;                              // the path to run; empty: Resolve(argv[0])
  std::optional<sigset_t> sigmask;              // the child's signal mask; nullopt: the caller's
};

struct Outcome {
  ExitStatus status;
  bool timed_out = false;
  std::string out, err;
  int Status() const { return status.Shell(); }
  bool Success() const { return !timed_out && status.Success(); }
  // "exit status 1: <last line of stderr>" — the text an Error carries.
  std::string Describe() const;
};

Result<Outcome> Run(const Command& cmd);

}  // namespace sandshim::process
