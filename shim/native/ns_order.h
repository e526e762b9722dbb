// Which namespaces the init joins where. A namespace given by path is normally joined by the
// init itself (init.cc), but two kinds cannot be joined from inside the container:
//  - a pid namespace: setns(CLONE_NEWPID) only moves later children, so the clone is made in it;
//  - with a new user namespace, any namespace owned by another user namespace (a session's
//    proxy netns, docker's netns path): once the init is in its own userns it has no
//    capability over them (setns needs CAP_SYS_ADMIN in the namespace's owner). runc joins
//    those first, while still privileged, and only then creates the user namespace; so do
//    we: the launcher joins them around the clone (CLONE_NEWUSER then gives the init a new
//    userns *inside* the joined netns), and the init skips them.
// A mount namespace by path stays with the init: setns(CLONE_NEWNS) needs an unshared
// fs_struct, which the (possibly threaded) runtime does not have.
#pragma once

#include <sched.h>

#include "shim/native/plan.h"

namespace sandshim::native {

// True when the launcher joins plan's namespace `flag` (given by path) around the clone.
bool JoinedAroundClone(const LaunchPlan& plan, int flag);

// The order `exec` joins a running container's namespaces in: the user namespace last, so
// every other setns is still done with the runtime's (host root's) privileges, including
// those owned by the host userns (a host or proxy netns of a session in a userns).
inline constexpr int kExecJoinOrder[] = {CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWNET, CLONE_NEWPID,
                                         CLONE_NEWCGROUP, CLONE_NEWNS, CLONE_NEWUSER};

}  // namespace sandshim::native
