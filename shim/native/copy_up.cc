#include "shim/native/copy_up.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "shim/core/unique_fd.h"

namespace sandshim::native {
namespace {

Status CopyFile(int from_dir, int to_dir, const char* name, const struct stat& st) {
  UniqueFd in(::openat(from_dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!in.valid()) return ErrnoError("tmpcopyup: open " + std::string(name));
  UniqueFd out(::openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777));
  if (!out.valid()) return ErrnoError("tmpcopyup: create " + std::string(name));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ErrnoError("tmpcopyup: read " + std::string(name));
    if (n == 0) break;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = ::write(out.get(), buf + off, n - off);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return ErrnoError("tmpcopyup: write " + std::string(name));
      off += w;
    }
  }
  if (::fchown(out.get(), st.st_uid, st.st_gid) != 0 || ::fchmod(out.get(), st.st_mode & 07777) != 0)
    return ErrnoError("tmpcopyup: owner of " + std::string(name));
  return Ok();
}

Status CopyEntry(int from_dir, int to_dir, const char* name) {
  struct stat st;
  if (::fstatat(from_dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return ErrnoError("tmpcopyup: stat " + std::string(name));
  if (S_ISREG(st.st_mode)) return CopyFile(from_dir, to_dir, name, st);
  if (S_ISLNK(st.st_mode)) {
    std::string target(st.st_size > 0 ? st.st_size + 1 : 4096, '\0');
    ssize_t n = ::readlinkat(from_dir, name, target.data(), target.size());
    if (n < 0) return ErrnoError("tmpcopyup: readlink " + std::string(name));
    target.resize(n);
    if (::symlinkat(target.c_str(), to_dir, name) != 0) return ErrnoError("tmpcopyup: symlink " + std::string(name));
    if (::fchownat(to_dir, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) != 0)
      return ErrnoError("tmpcopyup: owner of " + std::string(name));
    return Ok();
  }
  if (!S_ISDIR(st.st_mode)) return Ok();  // see copy_up.h
  if (::mkdirat(to_dir, name, 0700) != 0) return ErrnoError("tmpcopyup: mkdir " + std::string(name));
  UniqueFd sub_from(::openat(from_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  UniqueFd sub_to(::openat(to_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!sub_from.valid() || !sub_to.valid()) return ErrnoError("tmpcopyup: open directory " + std::string(name));
  TRY(CopyTree(sub_from.get(), sub_to.get()));
  if (::fchown(sub_to.get(), st.st_uid, st.st_gid) != 0 || ::fchmod(sub_to.get(), st.st_mode & 07777) != 0)
    return ErrnoError("tmpcopyup: owner of " + std::string(name));
  return Ok();
}

}  // namespace

Status CopyTree(int from, int to) {
  // fdopendir takes the fd it is given: read from a duplicate, and keep from for openat.
  int dup = ::fcntl(from, F_DUPFD_CLOEXEC, 0);
  if (dup < 0) return ErrnoError("tmpcopyup: dup");
  DIR* d = ::fdopendir(dup);
  if (!d) {
    ::close(dup);
    return ErrnoError("tmpcopyup: read directory");
  }
  ::rewinddir(d);
  Status result = Ok();
  while (struct dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    if (auto s = CopyEntry(from, to, name.c_str()); !s) {
      result = s;
      break;
    }
  }
  ::closedir(d);
  return result;
}

}  // namespace sandshim::native
