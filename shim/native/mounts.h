// The mount namespace, applied in the container's init before pivot_root: the spec's mounts
// with every destination resolved *inside* the rootfs (openat2 RESOLVE_IN_ROOT: a symlink in
// the image pointing at /etc lands on <rootfs>/etc, never the host's), devices, then
// pivot_root (or, with --no-pivot, MS_MOVE + chroot), masked and read-only paths, and a
// read-only root. Every call goes through Sys, so tests see the order and fail any step.
#pragma once

#include "shim/core/unique_fd.h"
#include "shim/native/plan.h"
#include "shim/linux/sys.h"

namespace sandshim::native {

// Opens path inside root_fd with O_PATH, never resolving outside it. With create, missing
// directories are made (and the last component as a file when as_file).
Result<UniqueFd> OpenInRoot(Sys& sys, int root_fd, std::string_view path, bool create, bool as_file);

// "/proc/self/fd/N": how a mount names what a descriptor resolved.
std::string FdPath(int fd);
// Remounts the mount on top of dest (resolved in root_fd) with flags, keeping the flags the
// kernel will not let us drop.
Status BindRemount(Sys& sys, int root_fd, const std::string& dest, unsigned long flags, std::string_view what);
// Fails unless the mount at path has every MS_RDONLY/NOSUID/NODEV/NOEXEC bit of want.
Status VerifyMountFlags(Sys& sys, const std::string& path, unsigned long want, std::string_view what);

Status PrepareRootfs(Sys& sys, const LaunchPlan& plan);  // propagation, rootfs bind
Status ApplyRootPropagation(Sys& sys, unsigned long propagation);  // after pivot_root
Status ApplyMounts(Sys& sys, const LaunchPlan& plan);    // spec mounts, in order
Status CreateDevices(Sys& sys, const LaunchPlan& plan, bool in_userns);
Status PivotRoot(Sys& sys, const std::filesystem::path& rootfs);
Status MoveRoot(Sys& sys, const std::filesystem::path& rootfs);  // --no-pivot
// A spec without a mount namespace (LaunchPlan::host_mount_ns): the setup runs in a mount
// namespace of its own that LeaveHostMountNs makes (returning the runtime's, to come back
// to); once the root is complete, EnterDetachedRoot returns to the runtime's namespace with
// a detached clone of that root as the process's root, and the setup namespace dies with
// nobody in it. The host's mount table is never changed; what that means for isolation is
// what the spec asks for: the container's mount namespace is the host's, so a process in it
// with CAP_SYS_ADMIN acts on the host's mount table for any host path it can name (e.g.
// through /proc/<pid>/root without a pid namespace).
Result<UniqueFd> LeaveHostMountNs(Sys& sys);
Status EnterDetachedRoot(Sys& sys, int host_mnt_ns);
Status MaskPaths(Sys& sys, const std::vector<std::string>& paths);
Status ReadonlyPaths(Sys& sys, const std::vector<std::string>& paths);
Status ReadonlyRoot(Sys& sys);

}  // namespace sandshim::native
