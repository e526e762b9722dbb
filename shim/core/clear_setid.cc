#include "shim/core/clear_setid.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "shim/core/unique_fd.h"

namespace sandshim::fs {

static std::vector<std::string> Entries(int dirfd) {
  std::vector<std::string> names;
  DIR* d = ::fdopendir(::dup(dirfd));
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  return names;
}

// Every chmod goes to an fd opened with O_NOFOLLOW: a name swapped for a link between the
// look and the change is refused by the open, never followed.
static void ClearBelow(int dirfd, dev_t dev, size_t& cleared) {
  for (const auto& n : Entries(dirfd)) {
    struct stat st {};
    if (::fstatat(dirfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_dev != dev) continue;
    if (S_ISDIR(st.st_mode)) {
      UniqueFd sub(::openat(dirfd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (sub.valid()) ClearBelow(sub.get(), dev, cleared);
      continue;
    }
    if (!S_ISREG(st.st_mode) || !(st.st_mode & (S_ISUID | S_ISGID))) continue;
    UniqueFd f(::openat(dirfd, n.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat now {};
    if (!f.valid() || ::fstat(f.get(), &now) != 0 || !S_ISREG(now.st_mode)) continue;
    // fchmod does not take an O_PATH fd; its /proc link names that very inode.
    auto link = "/proc/self/fd/" + std::to_string(f.get());
    if (::chmod(link.c_str(), now.st_mode & 01777) == 0) ++cleared;
  }
}

Result<size_t> ClearSetIdBits(const std::filesystem::path& root) {
  UniqueFd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid() && errno == ENOENT) return size_t{0};
  if (!fd.valid()) return ErrnoError("open " + root.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return ErrnoError("stat " + root.string());
  size_t cleared = 0;
  ClearBelow(fd.get(), st.st_dev, cleared);
  return cleared;
}

}  // namespace sandshim::fs
