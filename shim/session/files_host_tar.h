// A host file or tree as a tar stream (GNU format: long names that busybox's and GNU tar both
// read), for `session cp HOST ID:PATH`. Links are stored as links, never followed.
#pragma once

#include <filesystem>
#include <string>

#include "shim/core/result.h"

namespace sandshim::session {

// src (a file or a directory) written to fd as "./<top>/..." entries.
Status WriteHostTar(const std::filesystem::path& src, const std::string& top, int fd);

}  // namespace sandshim::session
