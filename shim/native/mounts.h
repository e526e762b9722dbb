// The mount namespace, applied in the container's init before pivot_root: the spec's mounts
// with every destination resolved *inside* the rootfs (openat2 RESOLVE_IN_ROOT: a symlink in
// the image pointing at /etc lands on <rootfs>/etc, never the host's), devices, then
// pivot_root (or, with --no-pivot, MS_MOVE + chroot), masked and read-only paths, and a
// read-only root. Every call goes through Sys, so tests see the order and fail any step.
#pragma once

#include "shim/core/unique_fd.h"
#include "shim/native/plan.h"
#include "shim/native/sys.h"

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
Status MaskPaths(Sys& sys, const std::vector<std::string>& paths);
Status ReadonlyPaths(Sys& sys, const std::vector<std::string>& paths);
Status ReadonlyRoot(Sys& sys);

}  // namespace sandshim::native
