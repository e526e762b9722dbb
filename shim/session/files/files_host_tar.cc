#include "shim/session/files/files_host_tar.h"

namespace sandshim::session {

Result<process::Child> StartHostTar(const std::filesystem::path& src, int fd) {
  std::filesystem::path parent = src.parent_path();
  process::ProcessSpec spec;
  spec.exe = process::FindOnHost("tar");
  if (spec.exe.empty()) return MakeError("cp: no tar on the host", ENOENT);
  // "./NAME": a name starting with "-" is never an option.
  spec.argv = {"tar", "--format=gnu", "--numeric-owner", "-C", parent.empty() ? "." : parent.string(), "-cf", "-",
               "./" + src.filename().string()};
  spec.Dup(fd, 1);
  return process::Spawn(spec);
}

}  // namespace sandshim::session
