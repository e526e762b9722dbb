// One exec's process tree: the exec's process and everything below it, found from a
// (pid, ppid) table in the pid space the backend signals in (the host's, or a sandbox's).
// Subtree is pure, so the tree logic is tested without a sandbox; StopAndKillTree is the one
// way every backend ends such a tree (a session exec's --timeout).
#pragma once

#include <sys/types.h>

#include <functional>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::proc {

struct ProcEntry {
  pid_t pid = 0, ppid = 0;
};

// root and its descendants present in table (root itself only if present). A pid never
// appears twice; `never` (the container's init) is left out even if it were reachable.
std::vector<pid_t> Subtree(const std::vector<ProcEntry>& table, pid_t root, pid_t never);

// Sends sig to root's subtree as read by table(). For SIGKILL the tree is SIGSTOPped first,
// round after round until no new process shows up, so nothing forks away while we look.
// Returns how many processes were signalled; an unreadable table signals nothing.
size_t SignalTree(const std::function<Result<std::vector<ProcEntry>>()>& table,
                  const std::function<void(pid_t, int)>& signal, pid_t root, pid_t never, int sig);

}  // namespace sandshim::proc
