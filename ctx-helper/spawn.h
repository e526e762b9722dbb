// The broker's fork: a command of the context started as a session exec asked (its user,
// groups, capabilities, directory, environment, stdio, terminal), in the broker's namespaces.
#pragma once

#include <sys/types.h>

#include "ctx-helper/wire.h"

namespace sandshim::ctx {

// Returns the command's pid, or -errno. stdio: the client's three descriptors (closed here).
pid_t Spawn(const Request& r, const int stdio[3]);
// SIGKILL to the command's process group and to every process descended from it (what a
// session exec's timeout does to a direct exec's tree).
void KillTree(pid_t root);

}  // namespace sandshim::ctx
