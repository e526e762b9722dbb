#include "shim/core/sealed_exe.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <string>

#include "shim/core/fs.h"

namespace sandshim {
namespace {

constexpr int kBaseSeals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;

// overlayfs splits lowerdir on ':' and unescapes '\'.
std::string EscapeLowerDir(const std::string& dir) {
  std::string out;
  for (char c : dir) {
    if (c == ':' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

Result<UniqueFd> OverlaySealedExe(const char* empty_dir, UniqueFd* mount_out) {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ErrnoError("readlink /proc/self/exe");
  std::string path(buf, static_cast<size_t>(n));
  // Replaced or removed since we started: the name no longer leads to our binary.
  if (path.ends_with(" (deleted)")) return MakeError("the sandshim binary was replaced", ENOENT);
  auto slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return MakeError("no directory for " + path, EINVAL);
  std::string dir = path.substr(0, slash), name = path.substr(slash + 1);
  // 0711 as the state root under /run/sandshim would get: it may be created here first.
  TRY(fs::MkdirAll(empty_dir, 0711));

  UniqueFd ctx(::fsopen("overlay", FSOPEN_CLOEXEC));
  if (!ctx.valid()) return ErrnoError("fsopen overlay");
  // Two lower layers and no upper: overlayfs then refuses every write at the superblock.
  // Ours comes first, so a file of the same name in the empty directory could not mask it.
  std::string lower = EscapeLowerDir(dir) + ":" + EscapeLowerDir(empty_dir);
  if (::fsconfig(ctx.get(), FSCONFIG_SET_STRING, "lowerdir", lower.c_str(), 0) != 0)
    return ErrnoError("overlay lowerdir=" + lower);
  // Only to keep dmesg quiet when the layers are on different filesystems.
  (void)::fsconfig(ctx.get(), FSCONFIG_SET_STRING, "xino", "off", 0);
  if (::fsconfig(ctx.get(), FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0) return ErrnoError("create overlay");
  UniqueFd mnt(::fsmount(ctx.get(), FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID));
  if (!mnt.valid()) return ErrnoError("fsmount overlay");
  UniqueFd exe(::openat(mnt.get(), name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  if (!exe.valid()) return ErrnoError("open " + name + " in the sealed overlay");
  // The same binary as the one running (a new one may have been written over the name):
  // overlayfs changes device and inode numbers, but not size and mtime.
  struct stat ours, seen;
  if (::stat("/proc/self/exe", &ours) != 0 || ::fstat(exe.get(), &seen) != 0) return ErrnoError("stat sandshim");
  if (ours.st_size != seen.st_size || ours.st_mtim.tv_sec != seen.st_mtim.tv_sec ||
      ours.st_mtim.tv_nsec != seen.st_mtim.tv_nsec || !S_ISREG(seen.st_mode))
    return MakeError(path + " is not the running sandshim binary any more", ESTALE);
  if (mount_out) *mount_out = std::move(mnt);
  return exe;
}

Result<UniqueFd> MemfdSealedExe() {
  UniqueFd self(::open("/proc/self/exe", O_RDONLY | O_CLOEXEC));
  if (!self.valid()) return ErrnoError("open /proc/self/exe");
  struct stat st;
  if (::fstat(self.get(), &st) != 0) return ErrnoError("stat /proc/self/exe");
  UniqueFd copy(::memfd_create("sandshim", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!copy.valid()) return ErrnoError("memfd_create");
  off_t off = 0;
  while (off < st.st_size)
    if (::sendfile(copy.get(), self.get(), &off, static_cast<size_t>(st.st_size - off)) <= 0)
      return ErrnoError("copy sandshim into a memfd");
  if (::fcntl(copy.get(), F_ADD_SEALS, kBaseSeals) != 0) return ErrnoError("seal the memfd");
  return copy;
}

bool IsSealedExe(int fd) {
  int seals = ::fcntl(fd, F_GET_SEALS);
  if (seals >= 0 && (seals & kBaseSeals) == kBaseSeals) return true;
  struct statfs s;
  return ::fstatfs(fd, &s) == 0 && (s.f_flags & ST_RDONLY);
}

}  // namespace sandshim
