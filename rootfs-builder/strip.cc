#include "rootfs-builder/strip.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "shim/core/unique_fd.h"

namespace sandshim::rootfs {

static Status StripFile(int dirfd, const std::string& name, const struct stat& st, uint64_t& n) {
  // O_NONBLOCK|O_NOFOLLOW: a regular file by the stat, and the fd proves it is still one.
  UniqueFd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + name);
  struct stat now {};
  if (::fstat(fd.get(), &now) != 0 || !S_ISREG(now.st_mode) || now.st_ino != st.st_ino) return Ok();
  if (now.st_mode & (S_ISUID | S_ISGID)) {
    if (::fchmod(fd.get(), now.st_mode & 01777) != 0) return ErrnoError("chmod " + name);
    ++n;
  }
  if (::fremovexattr(fd.get(), "security.capability") == 0) ++n;
  return Ok();
}

static Status StripDir(int fd, uint64_t& n) {
  DIR* d = ::fdopendir(::dup(fd));
  if (!d) return ErrnoError("opendir");
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string s = e->d_name;
    if (s != "." && s != "..") names.push_back(std::move(s));
  }
  ::closedir(d);
  for (const auto& name : names) {
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
      if (::unlinkat(fd, name.c_str(), 0) != 0) return ErrnoError("unlink " + name);
      ++n;
    } else if (S_ISREG(st.st_mode)) {
      TRY_CTX(StripFile(fd, name, st, n), name);
    } else if (S_ISDIR(st.st_mode)) {
      UniqueFd sub(::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!sub.valid()) return ErrnoError("open " + name);
      TRY_CTX(StripDir(sub.get(), n), name);
    }
  }
  return Ok();
}

Result<uint64_t> StripPrivileged(const std::filesystem::path& root) {
  UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + root.string());
  uint64_t n = 0;
  TRY_CTX(StripDir(fd.get(), n), root.string());
  return n;
}

}  // namespace sandshim::rootfs
