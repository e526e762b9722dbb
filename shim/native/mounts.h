// The mount namespace, applied in the container's init before pivot_root: the spec's mounts
// with every destination resolved *inside* the rootfs (openat2 RESOLVE_IN_ROOT: a symlink in
// the image pointing at /etc lands on <rootfs>/etc, never the host's), devices, then
// pivot_root, masked and read-only paths, and a read-only root.
#pragma once

#include "shim/core/unique_fd.h"
#include "shim/native/plan.h"

namespace sandshim::native {

// Opens path inside root_fd with O_PATH, never resolving outside it. With create, missing
// directories are made (and the last component as a file when as_file).
Result<UniqueFd> OpenInRoot(int root_fd, std::string_view path, bool create, bool as_file);

Status PrepareRootfs(const LaunchPlan& plan);     // propagation, rootfs bind
Status ApplyMounts(const LaunchPlan& plan);       // spec mounts, in order
Status CreateDevices(const LaunchPlan& plan, bool in_userns);
Status PivotRoot(const std::filesystem::path& rootfs);
Status MaskPaths(const std::vector<std::string>& paths);
Status ReadonlyPaths(const std::vector<std::string>& paths);
Status ReadonlyRoot();

}  // namespace sandshim::native
