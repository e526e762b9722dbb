// Sys: the system calls the native runtime's apply code makes (mounts, rootfs, devices,
// pivot_root, namespaces, hostname, sysctl), behind one narrow interface so the order of
// calls and every error path are unit-tested without root (tests/fakes/recording_sys.h).
//
// The methods mirror the syscalls exactly: 0 (or an fd / byte count) on success, -1 with
// errno set on failure. The callers add the context ("mount /proc: ..."), as before. They
// run in the container's init between clone and exec, so the real implementation
// allocates nothing and throws nothing: a virtual call on an object built before clone.
#pragma once

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace sandshim::native {

class Sys {
 public:
  virtual ~Sys() = default;

  // Files and directories.
  virtual int Open(const char* path, int flags, mode_t mode) = 0;
  virtual int Openat(int dirfd, const char* path, int flags, mode_t mode) = 0;
  // openat2(2) with RESOLVE_* flags: how every path inside the rootfs is resolved.
  virtual int Openat2(int dirfd, const char* path, uint64_t flags, uint64_t resolve) = 0;
  virtual int Mkdirat(int dirfd, const char* name, mode_t mode) = 0;
  virtual int Mknodat(int dirfd, const char* name, mode_t mode, dev_t dev) = 0;
  virtual int Fchownat(int dirfd, const char* name, uid_t uid, gid_t gid, int flags) = 0;
  virtual int Fchmodat(int dirfd, const char* name, mode_t mode, int flags) = 0;
  virtual int Symlinkat(const char* target, int dirfd, const char* name) = 0;
  virtual ssize_t Write(int fd, const void* buf, size_t len) = 0;
  virtual int Stat(const char* path, struct stat* st) = 0;
  virtual int Lstat(const char* path, struct stat* st) = 0;
  virtual int Access(const char* path, int mode) = 0;
  virtual int Statvfs(const char* path, struct statvfs* st) = 0;
  virtual int Fstat(int fd, struct stat* st) = 0;
  // The session layer's too (shim/session: its host effects in the state root): a pool
  // claim's RENAME_NOREPLACE move, a name link's removal, last-used's mtime.
  virtual int Renameat2(int olddirfd, const char* oldpath, int newdirfd, const char* newpath, unsigned flags) = 0;
  virtual int Unlinkat(int dirfd, const char* path, int flags) = 0;
  virtual int Utimensat(int dirfd, const char* path, const struct timespec* times, int flags) = 0;

  // The mount namespace and the root.
  virtual int Mount(const char* source, const char* target, const char* type, unsigned long flags,
                    const void* data) = 0;
  virtual int Umount2(const char* target, int flags) = 0;
  // mount_setattr(2) (5.12+): the only way to make a whole tree of mounts read-only
  // (MS_REC is ignored on a bind remount). attr_set/attr_clr are MOUNT_ATTR_* bits.
  virtual int MountSetattr(int dirfd, const char* path, unsigned flags, uint64_t attr_set, uint64_t attr_clr) = 0;
  virtual int PivotRoot(const char* new_root, const char* put_old) = 0;
  virtual int Chroot(const char* path) = 0;
  virtual int Chdir(const char* path) = 0;
  virtual int Fchdir(int fd) = 0;
  // open_tree(2) (5.2+): with OPEN_TREE_CLONE, a detached copy of a mount tree (see
  // EnterDetachedRoot, a container without a mount namespace of its own).
  virtual int OpenTree(int dirfd, const char* path, unsigned flags) = 0;
  // move_mount(2) (5.2+): attaches such a copy (the session's nosuid workspace guard).
  virtual int MoveMount(int from_dirfd, const char* from_path, int to_dirfd, const char* to_path, unsigned flags) = 0;

  // Namespaces, identity, UTS.
  virtual int Setns(int fd, int nstype) = 0;
  virtual int Unshare(int flags) = 0;
  virtual int Setresuid(uid_t r, uid_t e, uid_t s) = 0;
  virtual int Setresgid(gid_t r, gid_t e, gid_t s) = 0;
  virtual int Sethostname(const char* name, size_t len) = 0;
  virtual int Setdomainname(const char* name, size_t len) = 0;
  // SIOCGIFFLAGS + SIOCSIFFLAGS(|IFF_UP) on a socket made in the current network namespace
  // (`ip link set IFNAME up` without netlink); -1 with errno on failure.
  virtual int SetLinkUp(const char* ifname) = 0;

  // bpf(2), for the cgroup v2 device filter (load, attach); attr is a union bpf_attr.
  virtual long Bpf(int cmd, void* attr, unsigned size) = 0;
};

// The real calls: a constant-initialized object, so taking it in the child allocates nothing.
Sys& LinuxSys();

}  // namespace sandshim::native
