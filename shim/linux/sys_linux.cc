// The real Sys: each method is the syscall it is named after, nothing more.
#include <fcntl.h>
#include <linux/openat2.h>
#include <net/if.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "shim/linux/sys.h"

namespace sandshim::native {
namespace {

class LinuxSysImpl final : public Sys {
 public:
  constexpr LinuxSysImpl() = default;

  int Open(const char* path, int flags, mode_t mode) override { return ::open(path, flags, mode); }
  int Openat(int dirfd, const char* path, int flags, mode_t mode) override {
    return ::openat(dirfd, path, flags, mode);
  }
  int Openat2(int dirfd, const char* path, uint64_t flags, uint64_t resolve) override {
    struct open_how how {};
    how.flags = flags;
    how.resolve = resolve;
    return static_cast<int>(::syscall(SYS_openat2, dirfd, path, &how, sizeof how));
  }
  int Mkdirat(int dirfd, const char* name, mode_t mode) override { return ::mkdirat(dirfd, name, mode); }
  int Mknodat(int dirfd, const char* name, mode_t mode, dev_t dev) override {
    return ::mknodat(dirfd, name, mode, dev);
  }
  int Fchownat(int dirfd, const char* name, uid_t uid, gid_t gid, int flags) override {
    return ::fchownat(dirfd, name, uid, gid, flags);
  }
  int Fchmodat(int dirfd, const char* name, mode_t mode, int flags) override {
    return ::fchmodat(dirfd, name, mode, flags);
  }
  int Symlinkat(const char* target, int dirfd, const char* name) override {
    return ::symlinkat(target, dirfd, name);
  }
  ssize_t Write(int fd, const void* buf, size_t len) override { return ::write(fd, buf, len); }
  int Stat(const char* path, struct stat* st) override { return ::stat(path, st); }
  int Lstat(const char* path, struct stat* st) override { return ::lstat(path, st); }
  int Access(const char* path, int mode) override { return ::access(path, mode); }
  int Statvfs(const char* path, struct statvfs* st) override { return ::statvfs(path, st); }
  int Fstat(int fd, struct stat* st) override { return ::fstat(fd, st); }
  int Renameat2(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags) override {
    return ::renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
  }
  int Unlinkat(int dirfd, const char* path, int flags) override { return ::unlinkat(dirfd, path, flags); }
  int Utimensat(int dirfd, const char* path, const struct timespec* times, int flags) override {
    return ::utimensat(dirfd, path, times, flags);
  }

  int Mount(const char* source, const char* target, const char* type, unsigned long flags,
            const void* data) override {
    return ::mount(source, target, type, flags, data);
  }
  int Umount2(const char* target, int flags) override { return ::umount2(target, flags); }
  int MountSetattr(int dirfd, const char* path, unsigned flags, uint64_t attr_set, uint64_t attr_clr) override {
    struct mount_attr attr {};
    attr.attr_set = attr_set;
    attr.attr_clr = attr_clr;
    return static_cast<int>(::syscall(SYS_mount_setattr, dirfd, path, flags, &attr, sizeof attr));
  }
  int PivotRoot(const char* new_root, const char* put_old) override {
    return static_cast<int>(::syscall(SYS_pivot_root, new_root, put_old));
  }
  int Chroot(const char* path) override { return ::chroot(path); }
  int Chdir(const char* path) override { return ::chdir(path); }
  int Fchdir(int fd) override { return ::fchdir(fd); }
  int OpenTree(int dirfd, const char* path, unsigned flags) override {
    return static_cast<int>(::syscall(SYS_open_tree, dirfd, path, flags));
  }
  int MoveMount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags) override {
    return static_cast<int>(::syscall(SYS_move_mount, from_dirfd, from_path, to_dirfd, to_path, flags));
  }

  int Setns(int fd, int nstype) override { return ::setns(fd, nstype); }
  int Unshare(int flags) override { return ::unshare(flags); }
  int Setresuid(uid_t r, uid_t e, uid_t s) override { return ::setresuid(r, e, s); }
  int Setresgid(gid_t r, gid_t e, gid_t s) override { return ::setresgid(r, e, s); }
  int Sethostname(const char* name, size_t len) override { return ::sethostname(name, len); }
  int SetLinkUp(const char* ifname) override {
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return -1;
    ifreq ifr{};
    std::strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
    int rc = ::ioctl(s, SIOCGIFFLAGS, &ifr);
    if (rc == 0) {
      ifr.ifr_flags |= IFF_UP;
      rc = ::ioctl(s, SIOCSIFFLAGS, &ifr);
    }
    int saved = errno;
    ::close(s);
    errno = saved;
    return rc;
  }
  int Setdomainname(const char* name, size_t len) override { return ::setdomainname(name, len); }
  long Bpf(int cmd, void* attr, unsigned size) override { return ::syscall(SYS_bpf, cmd, attr, size); }
};

// Constant-initialized: no guard, no allocation, ready before main and in any child.
constinit LinuxSysImpl g_linux_sys;

}  // namespace

Sys& LinuxSys() { return g_linux_sys; }

}  // namespace sandshim::native
