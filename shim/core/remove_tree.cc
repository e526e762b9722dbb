#include "shim/core/remove_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

namespace sandshim::fs {

Result<UniqueFd> OpenDirForRemoval(int dirfd, const std::string& name) {
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  UniqueFd fd(::openat(dirfd, name.c_str(), kFlags));
  // A 0000 directory its (non-root) owner cannot open: chmod it by name, but never through a
  // link (glibc pins the inode with O_PATH|O_NOFOLLOW and refuses symlinks).
  if (!fd.valid() && errno == EACCES && ::fchmodat(dirfd, name.c_str(), 0700, AT_SYMLINK_NOFOLLOW) == 0)
    fd.Reset(::openat(dirfd, name.c_str(), kFlags));
  if (!fd.valid()) return ErrnoError("open " + name);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + name);
  if ((st.st_mode & 0700) != 0700) ::fchmod(fd.get(), (st.st_mode & 07777) | 0700);
  return fd;
}

Status RemoveTreeAt(int dirfd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Ok() : ErrnoError("stat " + name);
  if (!S_ISDIR(st.st_mode)) {
    if (::unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT) return ErrnoError("unlink " + name);
    return Ok();
  }
  UniqueFd fd = TRY(OpenDirForRemoval(dirfd, name));
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

}  // namespace sandshim::fs
