// Cgroups of containers (the native runtime's, and the host cgroups a gVisor sandbox runs in, for
// update and blockIO weights) on v1, v2 and the hybrid layout this host has (v1
// controllers plus an empty unified mount). A container's cgroup is the spec's cgroupsPath
// (absolute: from each hierarchy's root); its directory in every hierarchy is recorded, but
// only made in the hierarchies it needs (HierarchyNeeded), so the others are paths that do
// not exist, which every function here takes as empty. Limits are written before the init
// joins, so it is never unlimited for an instant.
#pragma once

#include <sys/types.h>

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/cgroupfs.h"
#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::native {

// Which hierarchies there are, and where a path lives in each: core/cgroupfs, shared with
// the runsc leftovers sweep.
using cgroupfs::Hierarchies;
using cgroupfs::Hierarchy;

// The container's directories, one per hierarchy ("/<default_name>" if cgroups_path is empty).
std::vector<std::filesystem::path> CgroupDirs(const std::string& cgroups_path, const std::string& default_name);
// "sandshim-<tag>-<id>", tag a hash of the state root: two roots (two platforms, two tools)
// may use the same container id, and must not share, or refuse over, one cgroup (review N1).
std::string DefaultCgroupName(const std::filesystem::path& state_root, const std::string& id);
// Refuses dirs of which one already holds processes: someone else's cgroup (review L7). Called
// before the cgroups are journaled, so a refused create never kills or removes them (N1).
Status CheckCgroupsFree(const std::vector<std::filesystem::path>& dirs);

// Whether a container with these linux.resources gets a cgroup in h (pure): every v1
// controller that limits, accounts or freezes, cpuset only when cpus/mems are given, no
// named or never-configured hierarchy; on v2 the one hierarchy.
bool HierarchyNeeded(const Hierarchy& h, const boost::json::object* resources);
// Where the container gets a directory at create: the needed ones plus the cgroup2
// hierarchy (its device filter), even when that offers no controller (hybrid).
bool HierarchyMade(const Hierarchy& h, const boost::json::object* resources);
// Refuses a cgroupsPath that names a hierarchy's root ("/") or climbs out ("..").
Status CheckCgroupsPath(const std::string& cgroups_path);
// Refuses limits no mounted controller would enforce (blockIO, network classID/priorities).
Status CheckControllersFor(const std::vector<Hierarchy>& hs, const boost::json::object* resources);
// MakeCgroups creates the needed directories and applies linux.resources; JoinCgroups moves
// pid in (the native runtime makes them before its clone, and joins the init after it).
Status MakeCgroups(const std::vector<std::filesystem::path>& dirs, const boost::json::object* resources);
// A single-threaded process moving itself: each made v1 hierarchy's `tasks` file, opened for
// writing here (by the runtime: the kernel judges the opener's credentials, so a user-
// namespaced init may use it), for the init to write "0" into (JoinSelf). A thread that moves
// itself skips the global cgroup_threadgroup_rwsem a cgroup.procs write takes for writing, and
// with it the RCU grace period the first such write after a quiet spell sleeps through (5-15
// ms here; kernel 6.0's "cgroup: Optimize single thread migration"; older kernels take the
// lock, same result). `self[i]`: dirs[i] is joined that way; JoinCgroups' skip leaves it out.
// cgroup2 (a domain cgroup takes no single thread) has clone3's CLONE_INTO_CGROUP instead:
// cgroup2_dir (O_PATH) is the made cgroup2 directory, dirs[cgroup2_index], or -1.
struct SelfJoin {
  std::vector<UniqueFd> fds;
  std::vector<bool> self;
  UniqueFd cgroup2_dir;
  size_t cgroup2_index = 0;
};
Result<SelfJoin> OpenSelfJoin(const std::vector<std::filesystem::path>& dirs, const boost::json::object* resources);
Status JoinSelf(const std::vector<int>& fds);
Status JoinCgroups(const std::vector<std::filesystem::path>& dirs, const boost::json::object* resources, pid_t pid,
                   const std::vector<bool>& skip = {});
// Applies resources; makes (and moves every process into) a hierarchy's cgroup that they
// newly need.
Status UpdateCgroups(const std::vector<std::filesystem::path>& dirs, const boost::json::object& resources);
// The same over the hierarchies given instead of this host's (dirs[i] lives in hs[i]): the
// seam that lets the unit tests apply and update against hierarchies in a temp directory,
// where every control file is a plain file, without root. SetupCgroups: both, one after the other.
Status SetupCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                    const boost::json::object* resources, pid_t pid);
Status MakeCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                   const boost::json::object* resources);
Status JoinCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                   const boost::json::object* resources, pid_t pid, const std::vector<bool>& skip = {});
Result<SelfJoin> OpenSelfJoin(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                              const boost::json::object* resources);
Status UpdateCgroups(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                     const boost::json::object& resources);
// Every pid in the container's cgroup (read from the first hierarchy that lists any).
std::vector<pid_t> CgroupPids(const std::vector<std::filesystem::path>& dirs);
// Freezes or thaws (v1 freezer.state, v2 cgroup.freeze).
Status Freeze(const std::vector<std::filesystem::path>& dirs, bool frozen);
// SIGKILLs everything left inside, then removes the directories (missing = done).
Status DestroyCgroups(const std::vector<std::filesystem::path>& dirs);

}  // namespace sandshim::native
