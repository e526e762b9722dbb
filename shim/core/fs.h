// Small filesystem helpers with Result errors. WriteFileAtomic is the crash-safety primitive
// of the state store and journal: write a temp file, fsync it, rename it over the target,
// fsync the directory, so a reader sees the old or the new content, never a torn one.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::fs {

Result<std::string> ReadFile(const std::filesystem::path& path);
// sync=false skips both fsyncs: still atomic for readers, but not durable across a power
// loss — for files that do not outlive the process that wrote them (exec process files).
Status WriteFileAtomic(const std::filesystem::path& path, std::string_view data, mode_t mode = 0644,
                       bool sync = true);
// Creates path and missing parents with mode (umask applied to none of them).
Status MkdirAll(const std::filesystem::path& path, mode_t mode = 0755);
// Removes path and everything below it; a missing path counts as done.
Status RemoveAll(const std::filesystem::path& path);
bool Exists(const std::filesystem::path& path);

}  // namespace sandshim::fs
