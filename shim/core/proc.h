// Process identity that survives pid reuse: a pid is ours only while its start time (field 22
// of /proc/<pid>/stat, in clock ticks since boot) still matches the one we recorded.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::proc {

struct ProcessId {
  pid_t pid = 0;
  uint64_t start = 0;  // 0 = unknown: liveness falls back to kill(pid, 0)
};

Result<uint64_t> StartTime(pid_t pid);
// Parses the start time out of the text of /proc/<pid>/stat (pure; unit-tested).
Result<uint64_t> ParseStartTime(const std::string& stat_text);
// True while pid runs and is still the process recorded (same start time). Zombies count as dead.
bool IsAlive(const ProcessId& p);
ProcessId Self();
// The argv of a live process, or empty.
std::vector<std::string> Cmdline(pid_t pid);
// Every pid currently in /proc.
std::vector<pid_t> AllPids();
// Makes this process a child subreaper: orphans of children we spawn (runsc's sandbox and
// gofer) are reparented to us rather than to PID 1, which reaps them slowly on this host.
void BecomeSubreaper();
// Opens /dev/null on whichever of fds 0, 1, 2 is closed (a caller's `<&-`), first thing in
// main: otherwise the next file we open (the --log file, a state lock, a session exec's
// pipe) takes a stdio number and is handed on as a container's or command's stdio.
void OpenMissingStdio();

// While alive, fds 0-2 are /dev/null and every other inherited fd is close-on-exec, so what
// is started meanwhile and outlives this call (a session's sandbox, its gofer, its init)
// keeps none of the caller's pipes or terminal: `session create --json | jq` and Python's
// capture_output would otherwise wait for EOF forever. The caller's stdio comes back after.
class DetachedStdio {
 public:
  DetachedStdio();
  ~DetachedStdio();
  DetachedStdio(const DetachedStdio&) = delete;
  DetachedStdio& operator=(const DetachedStdio&) = delete;

 private:
  int saved_[3] = {-1, -1, -1};
};

}  // namespace sandshim::proc
