// Runs one session command as a child of this process and stays with it: stdout and stderr
// come back through two pipes and are copied to ours unmixed (and counted, for the audit
// log), stdin is passed through, INT/TERM/HUP are forwarded, and a deadline ends the
// command's whole process tree. The child does the backend-specific part (for gVisor it
// becomes `runsc exec`).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "shim/core/result.h"

namespace sandshim::session {

struct RunnerOptions {
  std::chrono::milliseconds timeout{0};  // 0: none
  // After the child exits, how long output still in flight (from its background
  // processes) is copied before we stop waiting for the pipes to close.
  std::chrono::milliseconds drain{200};
  // Keep the output (up to this many bytes per stream) instead of copying it to ours:
  // for `--json`, where the caller prints one document.
  size_t capture_limit = 0;
};

struct RunnerOutcome {
  int status = 0;  // exit code, 128 + signal, or 124 after the deadline
  bool timed_out = false;
  uint64_t bytes_out = 0, bytes_err = 0;
  std::string out, err;  // with capture_limit
  std::chrono::milliseconds duration{0};
};

// child runs in the forked process with stdout/stderr on the pipes and returns its exit
// status (or never returns). on_timeout gets the child's pid and must end the tree.
Result<RunnerOutcome> RunChild(const std::function<int()>& child, const RunnerOptions& o,
                               const std::function<void(pid_t)>& on_timeout);

}  // namespace sandshim::session
