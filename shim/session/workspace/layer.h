// The per-session writable layer for the native backend: an overlayfs whose lower layer is
// the shared base rootfs (never written) and whose upper layer lives in the session's
// directory. gVisor gets the same from its own in-sandbox overlay (--overlay2=root:memory).
#pragma once

#include <filesystem>

#include "shim/core/result.h"
#include "shim/linux/sys.h"

namespace sandshim::session {

// Mounts base + <layer_dir>/{upper,work} on target (made if missing).
Status MountLayer(const std::filesystem::path& base, const std::filesystem::path& layer_dir,
                  const std::filesystem::path& target, native::Sys& sys = native::LinuxSys());
// Idempotent: a target that is not mounted (or gone) counts as done.
Status UnmountLayer(const std::filesystem::path& target, native::Sys& sys = native::LinuxSys());

}  // namespace sandshim::session
