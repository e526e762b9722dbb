// Removing trees without ever following a symlink: whiteouts and cache removal run over
// directories an untrusted image filled, where a symlink must be removed, never walked.
#pragma once

#include <filesystem>
#include <string>

#include "shim/core/result.h"

namespace sandshim::rootfs {

// Removes dirfd/name and, for a directory, everything below it. A missing name is done.
// Read-only directories (an image may ship 0555 ones) are made writable first.
Status RemoveTreeAt(int dirfd, const std::string& name);
Status RemoveTree(const std::filesystem::path& path);

}  // namespace sandshim::rootfs
