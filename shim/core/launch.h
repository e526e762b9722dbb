// A program ready to start with nothing left to do between fork and exec: its resolved path,
// argv, and what the child's descriptors and session must be. Everything else was done by
// the parent, so the start is posix_spawn (a vfork: no page-table copy and no copy-on-write
// faults in either process). Session exec starts `runsc exec` this way: forking sandshim and
// doing the backend's work in the child cost about 6 ms per exec.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::spawn {

struct Launch {
  std::string exe;  // the path to run (spawn::Resolve of argv[0])
  std::vector<std::string> argv;
  // Applied in order in the child: open `path` (flags) as fd `target`, or dup2 `source`
  // onto `target` (which clears close-on-exec, also when source == target).
  struct FdAction {
    int target = -1;
    int source = -1;
    std::string path;
    int flags = 0;
  };
  std::vector<FdAction> fds;
  // A new session; a terminal opened (without O_NOCTTY) by one of the actions then becomes
  // its controlling terminal.
  bool new_session = false;
  // Non-empty: the network namespace the child starts in (runsc verbs run in their
  // sandbox's private control namespace: see shim/runsc/control_netns.h).
  std::filesystem::path netns;
  // Descriptors the actions read from, closed when the Launch goes away.
  std::vector<UniqueFd> owned;

  void Dup(int source, int target) { fds.push_back({.target = target, .source = source}); }
  void Open(const std::string& p, int flags, int target) { fds.push_back({.target = target, .path = p, .flags = flags}); }
};

// Starts l with mask as the child's signal mask and our environment. Returns the child's pid.
Result<pid_t> Start(const Launch& l, const sigset_t& mask);

}  // namespace sandshim::spawn
