// flock(2) on a file of a pool's directory: the pool lock (claims pick a member, gc) and
// the fill lock (one refill at a time). Released when the fd closes.
#pragma once

#include <filesystem>
#include <optional>

#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::session {

// Waits for the lock.
Result<UniqueFd> LockFile(const std::filesystem::path& file);
// nullopt: someone else holds it.
Result<std::optional<UniqueFd>> TryLockFile(const std::filesystem::path& file);

}  // namespace sandshim::session
