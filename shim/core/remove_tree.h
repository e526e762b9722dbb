// Removing trees without ever following a symlink. Whiteouts, cache removal and session
// teardown run over directories that an untrusted image or a local user filled and may still
// be changing: a symlink is removed, never walked, and nothing is chmod'ed through a name
// that could be swapped for a link between a check and a use (every chmod goes to an fd
// opened with O_NOFOLLOW).
#pragma once

#include <filesystem>
#include <string>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::fs {

// Removes dirfd/name and, for a directory, everything below it. A missing name is done.
// Read-only directories (an image may ship 0555 ones) are made writable first.
Status RemoveTreeAt(int dirfd, const std::string& name);
Status RemoveTree(const std::filesystem::path& path);
// The step that runs once name looked like a directory: opens it without following a link
// (ELOOP/ENOTDIR when name is, by now, a symlink) and gives the owner rwx through the fd so
// its entries can be listed and unlinked. Exposed for the race test.
Result<UniqueFd> OpenDirForRemoval(int dirfd, const std::string& name);

}  // namespace sandshim::fs
