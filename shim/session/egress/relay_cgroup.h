// Review M12: a session's egress relay is charged to the session. The relay starts before the
// sandbox (the sandbox joins its namespace), so once the sandbox runs the relay is moved into
// a child cgroup "relay" of the sandbox's own memory and pids cgroups (v1) and of its unified
// cgroup (v2): its memory and tasks then count against the session's limits (both
// controllers are hierarchical), and a child never upsets the no-internal-process rule of v2
// (no controller is enabled below the sandbox's cgroup). The child directories are recorded
// in <session dir>/relay-cgroups first, so a crash leaves nothing unnamed; they are removed
// (after the relay stopped: rmdir refuses a cgroup with processes) before the sandbox's own
// cgroups are, which rmdir would refuse while a child exists.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

// The relay children for a process whose /proc/<pid>/cgroup reads `proc_cgroup`, given the
// host's cgroup mounts (mountinfo text). Pure.
std::vector<std::filesystem::path> RelayCgroupDirs(const std::string& proc_cgroup, const std::string& mountinfo);

// Every cgroup of its own a process whose /proc/<pid>/cgroup reads `proc_cgroup` is in (each
// v1 hierarchy and the unified one where its path is not the root), given the host's cgroup
// mounts. Pure. A session's background helpers (the spare refill, context_spare.h) join the
// sandbox's: charged to the session, and out of their caller's cgroup, which may be torn
// down or frozen with the caller.
std::vector<std::filesystem::path> SessionCgroupDirs(const std::string& proc_cgroup, const std::string& mountinfo);
// Moves the calling process into SessionCgroupDirs of `sandbox`.
Status JoinSessionCgroups(pid_t sandbox);

// Moves `relay` into the relay children of `sandbox`'s cgroups, recording them in `record`.
Status ChargeRelay(pid_t relay, pid_t sandbox, const std::filesystem::path& record);
// Removes the recorded children (the relay must have exited) and the record. Idempotent.
Status UnchargeRelay(const std::filesystem::path& record);

}  // namespace sandshim::session
