// What extraction drops from untrusted images (setuid/setgid bits on files, security.capability
// xattrs, device nodes: review H3), applied to a tree a tool built instead (debootstrap), so
// every source kind lands in the cache the same way unless --keep-privileged.
#pragma once

#include <cstdint>
#include <filesystem>

#include "shim/core/result.h"

namespace sandshim::rootfs {

// Walks root through fds, never following a link. Returns how many things were dropped.
Result<uint64_t> StripPrivileged(const std::filesystem::path& root);

}  // namespace sandshim::rootfs
