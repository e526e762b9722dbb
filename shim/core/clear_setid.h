// Set-user-ID and set-group-ID bits taken off every regular file of a tree the host will go
// on holding after an untrusted writer is gone (a session's workspace, issue #34 red team):
// a tenant who owns a file may chmod it 4755, and a workspace made by root is written as
// root (workspace_owner.h), so the bit would make a root program for any local user.
// Never follows a symlink and never leaves the tree's filesystem.
#pragma once

#include <cstddef>
#include <filesystem>

#include "shim/core/result.h"

namespace sandshim::fs {

// The number of files whose bits were cleared.
Result<size_t> ClearSetIdBits(const std::filesystem::path& root);

}  // namespace sandshim::fs
