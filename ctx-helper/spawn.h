// The broker's fork: a command of the context started as a session exec asked (its user,
// groups, capabilities, directory, environment, stdio, terminal), in the broker's namespaces.
#pragma once

#include <sys/types.h>

#include "ctx-helper/wire.h"

namespace sandshim::ctx {

// The descriptors a command gets from its client: 0, 1, 2, and 3 when the client had one (a
// `session exec --shell` reports its state there, docs/SESSIONS.md).
inline constexpr int kMaxClientFds = 4;
// Once, after the broker has set its signal dispositions and bounding set: what each Spawn's
// child has to undo (few syscalls per exec, each a trip through the Sentry).
void SpawnSetup();
// Returns the command's pid, or -errno. fds: the client's nfds descriptors, which become the
// command's 0..nfds-1 (closed here).
pid_t Spawn(const Request& r, const int* fds, int nfds);
// SIGKILL to every process descended from the command or in its session (a double fork's
// orphan, which a direct exec's tree kill loses), then to its process group and itself. A
// process that left the session (setsid) after its parent went escapes, as from a direct exec.
void KillTree(pid_t root);

}  // namespace sandshim::ctx
