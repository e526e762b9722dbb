// Spec changes that make runsc do what runc would. Pure, on the JSON document.
//  - linux.resources.pids.limit: on the host, the sandbox's own threads and the ptrace
//    platform's stubs count against it (an idle sandbox is ~25 tasks), so a small docker
//    --pids-limit stops the sandbox from starting at all. gVisor enforces RLIMIT_NPROC inside
//    the sandbox instead, for root without CAP_SYS_RESOURCE too: the limit goes there. The
//    host cgroup keeps a limit too (HostPidsLimit), as a backstop rather than the enforcer.
//  - /tmp: runsc mounts a tmpfs of its own over an empty image /tmp that the spec does not
//    mount, so `docker cp` into /tmp is invisible inside and files written there never reach
//    the container's rootfs (`docker cp` out, `docker commit`), where runc keeps them. A bind
//    of the image's own /tmp keeps runc's behaviour.
//  - seccomp's errnoRet: runsc (2022) answers every SCMP_ACT_ERRNO rule with EPERM, whatever
//    errnoRet says (measured: a getppid rule with errnoRet 22 gives EPERM). Docker's profile
//    and ours answer clone3 with ENOSYS (its flags are in memory, out of a filter's reach), on
//    which glibc (2.34+) falls back to clone; on EPERM it gives up instead, so posix_spawn,
//    system() and popen() failed in every gVisor container's init and its children (not in
//    execs: runsc gives exec'd processes no filter). So clone3's ENOSYS rule becomes an allow:
//    this runsc has no clone3 and answers ENOSYS itself (measured), and a Sentry that had one
//    would make a namespace only with CAP_SYS_ADMIN, which it checks itself.
#pragma once

#include <cstdint>
#include <filesystem>

#include <boost/json.hpp>

namespace sandshim::runtime {

// Host tasks of an idle sandbox (Sentry threads, gofer; measured 21 here) with room for the
// Go runtime to add threads under load.
inline constexpr int64_t kSandboxOwnTasks = 64;
// Host tasks per guest process under the ptrace platform: a stub process per address space
// plus a stub thread for each Sentry thread that ran it. Idle: 62 guest processes, 509 host
// tasks (~8 each); a fork bomb against --pids 64 on 2 cores: 3522 host tasks (~55 each), so
// 16 per process killed the sandbox (red team, 2026-11-28) where 64 holds.
inline constexpr int64_t kHostTasksPerProcess = 64;
// The backstop never claims more than half the host's pid space (pid_max is 32768 on many
// hosts: two sessions must not exhaust it) unless the old 16 per process needs more.
inline constexpr int64_t kMinHostTasksPerProcess = 16;
// pids.max for the sandbox's host cgroup given the container's limit and the host's
// kernel.pid_max (pure). Raw runsc writes the container's limit itself, which kills its
// sandbox at a handful of guest processes.
int64_t HostPidsLimitFor(int64_t container_limit, int64_t host_pid_max);
// The same with this host's kernel.pid_max.
int64_t HostPidsLimit(int64_t container_limit);

// Returns true when doc changed.
bool FixupSpec(boost::json::object& doc);

// linux.resources.blockIO's weights (weight, leafWeight, weightDevice), taken out of doc and
// returned as a blockIO object (empty: none). runsc (2022) writes them to blkio.weight only,
// which a kernel with the BFQ scheduler does not have (it has blkio.bfq.weight), so create
// failed with ENOENT; sandshim writes them into the sandbox's cgroup itself after create.
boost::json::object TakeBlkioWeights(boost::json::object& doc);

// Whether the spec mounts something at /tmp itself.
bool MountsTmp(const boost::json::object& doc);
// Adds a bind of image_tmp (the rootfs's own /tmp, which the caller has checked is a real
// directory inside the rootfs) at /tmp, read-only when the rootfs is. Only for a rootfs the
// sandbox writes through to: under runsc's --overlay the writes would reach the image itself.
void BindImageTmp(boost::json::object& doc, const std::filesystem::path& image_tmp);

}  // namespace sandshim::runtime
