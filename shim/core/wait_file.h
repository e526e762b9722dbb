// Waiting for a file that another process will write (runsc's pid files), without sleeping:
// inotify on its directory, polled together with a descriptor that becomes readable when the
// writer is gone (a pidfd, or a proc::Running's wait fd).
#pragma once

#include <chrono>
#include <filesystem>

#include "shim/core/result.h"

namespace sandshim::fs {

// true once `file` exists; false when `gone_fd` (-1: none) became readable first and the file
// is still not there; an error (ETIMEDOUT) when the deadline passes.
Result<bool> WaitForFile(const std::filesystem::path& file, int gone_fd,
                         std::chrono::steady_clock::time_point deadline);

}  // namespace sandshim::fs
