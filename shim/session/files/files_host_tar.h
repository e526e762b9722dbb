// A host file or tree as a tar stream, for `session cp HOST ID:PATH`: the host's GNU tar
// (Debian's essential tar), GNU format, links stored as links, never followed. (libarchive's
// writer would pull every format's encoder into the static binary: lzma, bzip2, xml2, nettle.)
#pragma once

#include <filesystem>

#include "shim/core/process.h"

namespace sandshim::session {

// Starts tar writing src (a file or directory) to fd as "./<its name>/...".
Result<process::Child> StartHostTar(const std::filesystem::path& src, int fd);

}  // namespace sandshim::session
