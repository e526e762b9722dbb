// Which processes belong to one exec: the exec's process and everything below it, found
// from a (pid, ppid) table in the pid space the backend signals in. Pure, so the tree logic
// is tested without a sandbox.
#pragma once

#include <sys/types.h>

#include <vector>

#include "shim/runtime/backend.h"

namespace sandshim::session {

// root and its descendants present in table (root itself only if present). A pid never
// appears twice; `never` (the container's init) is left out even if it were reachable.
std::vector<pid_t> Subtree(const std::vector<runtime::ProcEntry>& table, pid_t root, pid_t never);

}  // namespace sandshim::session
