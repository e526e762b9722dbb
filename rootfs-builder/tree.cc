#include "rootfs-builder/tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "shim/core/unique_fd.h"

namespace sandshim::rootfs {

Status RemoveTreeAt(int dirfd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Ok() : ErrnoError("stat " + name);
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT) return ErrnoError("unlink " + name);
    return Ok();
  }
  if ((st.st_mode & 0700) != 0700) ::fchmodat(dirfd, name.c_str(), (st.st_mode & 07777) | 0700, 0);
  UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + name);
  DIR* d = ::fdopendir(::dup(fd.get()));
  if (!d) return ErrnoError("opendir " + name);
  std::vector<std::string> children;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") children.push_back(std::move(n));
  }
  ::closedir(d);
  for (const auto& c : children) TRY_CTX(RemoveTreeAt(fd.get(), c), name);
  if (::unlinkat(dirfd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) return ErrnoError("rmdir " + name);
  return Ok();
}

Status RemoveTree(const std::filesystem::path& path) {
  auto parent = path.parent_path();
  UniqueFd fd(::open(parent.empty() ? "." : parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return errno == ENOENT ? Ok() : ErrnoError("open " + parent.string());
  return RemoveTreeAt(fd.get(), path.filename().string());
}

}  // namespace sandshim::rootfs
