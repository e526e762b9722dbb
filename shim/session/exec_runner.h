// Runs one session command and stays with it: stdout and stderr come back through two pipes
// and are copied to ours unmixed (and counted, for the audit log), stdin is passed through,
// INT/TERM/HUP/QUIT are forwarded, and a deadline ends the command's whole process tree. The
// command starts inside the sandbox directly (gVisor), as a prepared `runsc exec`, or in a
// forked child that does the backend's part (native).
#pragma once

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "shim/core/launch.h"
#include "shim/core/running.h"
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

// The command's side, the first way that applies: started inside the sandbox directly with
// the given stdin/stdout/stderr (gVisor's control server: no host process at all), a
// prepared program started with posix_spawn (nothing runs between its fork and exec), or a
// function run in a forked child (backends that need a process of ours, and tests). direct
// and launch return nothing when they do not apply.
struct CommandSide {
  std::function<Result<std::unique_ptr<proc::Running>>(const std::array<int, 3>& stdio)> direct;
  std::function<Result<std::optional<spawn::Launch>>()> launch;
  std::function<int()> child;
};

// Runs the command's side with stdout/stderr on the pipes. on_timeout gets the started
// command and must end its tree.
Result<RunnerOutcome> RunChild(CommandSide side, const RunnerOptions& o,
                               const std::function<void(proc::Running&)>& on_timeout);

}  // namespace sandshim::session
