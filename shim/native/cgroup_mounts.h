// What a container sees at its `cgroup` mount (/sys/fs/cgroup), made as runc makes it on a
// v1 or hybrid host without a cgroup namespace: a tmpfs holding one read-only bind per
// hierarchy of the container's *own* cgroup directory (plus cpu/cpuacct links), never a
// hierarchy's root. Mounting cgroupfs itself would show the host's whole tree, with
// writable cgroup.procs and release_agent files (review C2). On a v2-only host the one
// directory is the mount. The plan is pure and computed before clone; the init applies it
// through Sys, and anything that cannot be made read-only fails the create.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "shim/linux/cgroups.h"
#include "shim/native/plan.h"
#include "shim/linux/sys.h"

namespace sandshim::native {

// Pure. made[i]: the container has its own directory dirs[i] in hs[i]; elsewhere the init
// stays in the runtime's cgroup (own: /proc/self/cgroup as cgroupfs::Own reads it).
// Hierarchies outside `root` are left out.
std::vector<CgroupBind> PlanCgroupBinds(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                                        const std::vector<bool>& made, const std::map<std::string, std::string>& own,
                                        const std::filesystem::path& root = "/sys/fs/cgroup");
// The same for this host and container (reads mountinfo and /proc/self/cgroup).
std::vector<CgroupBind> CgroupBindsFor(const std::vector<std::filesystem::path>& dirs, const boost::json::object* resources);

// In the init, before pivot_root: the cgroup mount m at its destination (resolved in root_fd).
Status MountCgroups(Sys& sys, int root_fd, const MountStep& m, const std::vector<CgroupBind>& binds);

// Makes the mount tree at fd (O_PATH, its top) read-only, nosuid, nodev, noexec, all of it
// (mount_setattr AT_RECURSIVE), and checks the top took it. Used for the sysfs fallback.
Status LockTreeReadonly(Sys& sys, int fd, std::string_view what);

}  // namespace sandshim::native
