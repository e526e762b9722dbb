#include "shim/session/store/host.h"

#include <fcntl.h>
#include <stdio.h>

namespace sandshim::session {

Status HostMkdir(native::Sys& sys, const std::filesystem::path& dir, mode_t mode) {
  if (sys.Mkdirat(AT_FDCWD, dir.c_str(), mode) != 0 && errno != EEXIST) return ErrnoError("mkdir " + dir.string());
  return Ok();
}

Status HostRenameNoReplace(native::Sys& sys, const std::filesystem::path& from, const std::filesystem::path& to) {
  if (sys.Renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) != 0)
    return ErrnoError("rename " + from.string() + " to " + to.string());
  return Ok();
}

Status HostUnlink(native::Sys& sys, const std::filesystem::path& file) {
  if (sys.Unlinkat(AT_FDCWD, file.c_str(), 0) != 0 && errno != ENOENT) return ErrnoError("unlink " + file.string());
  return Ok();
}

}  // namespace sandshim::session
