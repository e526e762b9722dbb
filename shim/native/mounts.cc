#include "shim/native/mounts.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>

#include "shim/native/cgroup_mounts.h"
#include "shim/native/copy_up.h"

namespace sandshim::native {
namespace {

constexpr uint64_t kInRoot = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

// The flags a bind remount must keep (the kernel refuses to drop locked ones).
unsigned long KeptFlags(Sys& sys, const char* path) {
  struct statvfs s;
  if (sys.Statvfs(path, &s) != 0) return 0;
  unsigned long f = 0;
  if (s.f_flag & ST_NOSUID) f |= MS_NOSUID;
  if (s.f_flag & ST_NODEV) f |= MS_NODEV;
  if (s.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
  if (s.f_flag & ST_NOATIME) f |= MS_NOATIME;
  if (s.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
  if (s.f_flag & ST_RELATIME) f |= MS_RELATIME;
  return f;
}

Status Mount(Sys& sys, const std::string& src, const std::string& dst, const std::string& type,
             unsigned long flags, const std::string& data, std::string_view what) {
  if (sys.Mount(src.empty() ? nullptr : src.c_str(), dst.c_str(), type.empty() ? nullptr : type.c_str(), flags,
              data.empty() ? nullptr : data.c_str()) != 0)
    return ErrnoError("mount " + std::string(what));
  return Ok();
}

// The flags a bind mount can be asked for that the kernel only applies on a remount.
constexpr unsigned long kBindFlags = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

std::string FlagNames(unsigned long f) {
  std::string out;
  for (auto [bit, name] : {std::pair{MS_RDONLY, "ro"}, {MS_NOSUID, "nosuid"}, {MS_NODEV, "nodev"}, {MS_NOEXEC, "noexec"}})
    if (f & bit) out += (out.empty() ? "" : ",") + std::string(name);
  return out;
}

}  // namespace

std::string FdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

Status VerifyMountFlags(Sys& sys, const std::string& path, unsigned long want, std::string_view what) {
  struct statvfs s;
  if (sys.Statvfs(path.c_str(), &s) != 0) return ErrnoError("statvfs " + std::string(what));
  unsigned long have = 0;
  if (s.f_flag & ST_RDONLY) have |= MS_RDONLY;
  if (s.f_flag & ST_NOSUID) have |= MS_NOSUID;
  if (s.f_flag & ST_NODEV) have |= MS_NODEV;
  if (s.f_flag & ST_NOEXEC) have |= MS_NOEXEC;
  unsigned long missing = want & kBindFlags & ~have;
  if (missing) return MakeError(std::string(what) + ": mounted without " + FlagNames(missing), EPERM);
  return Ok();
}

// Makes rel's last component in its existing parent and opens it; nullopt (nothing done)
// when the parent is missing too or rel has a `..` (the walk below refuses it by name).
static std::optional<Result<UniqueFd>> CreateLast(Sys& sys, int root_fd, const std::string& rel, bool as_file) {
  if (("/" + rel + "/").find("/../") != std::string::npos) return std::nullopt;
  size_t slash = rel.rfind('/');
  std::string dir = slash == std::string::npos ? "." : rel.substr(0, slash);
  std::string name = slash == std::string::npos ? rel : rel.substr(slash + 1);
  if (name.empty() || name == "." || dir.empty()) return std::nullopt;
  UniqueFd parent(sys.Openat2(root_fd, dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC, kInRoot));
  if (!parent.valid()) return std::nullopt;
  if (as_file) {
    UniqueFd f(sys.Openat(parent.get(), name.c_str(), O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
    if (!f.valid() && errno != EEXIST) return ErrnoError("create " + rel + " in rootfs");
  } else if (sys.Mkdirat(parent.get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
    return ErrnoError("mkdir " + rel + " in rootfs");
  }
  UniqueFd fd(sys.Openat2(root_fd, rel.c_str(), O_PATH | O_CLOEXEC, kInRoot));
  if (!fd.valid()) return ErrnoError("open " + rel + " in rootfs");
  return Result<UniqueFd>(std::move(fd));
}

Result<UniqueFd> OpenInRoot(Sys& sys, int root_fd, std::string_view path, bool create, bool as_file) {
  std::string rel(path);
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  if (rel.empty()) return UniqueFd(sys.Openat2(root_fd, ".", O_PATH | O_CLOEXEC, kInRoot));
  int fd = sys.Openat2(root_fd, rel.c_str(), O_PATH | O_CLOEXEC, kInRoot);
  if (fd >= 0 || errno != ENOENT || !create) {
    if (fd < 0) return ErrnoError("open " + std::string(path) + " in rootfs");
    return UniqueFd(fd);
  }
  // Most often only the last component is missing (dev/pts, the cgroup binds): its parent,
  // resolved inside the root, gets it, in three calls instead of two per component.
  if (auto made = CreateLast(sys, root_fd, rel, as_file)) return std::move(*made);
  // Walk down, making what is missing; each parent is itself resolved inside the root.
  std::string done;
  size_t pos = 0;
  while (pos <= rel.size()) {
    size_t end = rel.find('/', pos);
    if (end == std::string::npos) end = rel.size();
    std::string name = rel.substr(pos, end - pos);
    bool last = end == rel.size();
    if (!name.empty() && name != ".") {
      if (name == "..") return MakeError("mount destination " + std::string(path) + " contains ..", EINVAL);
      UniqueFd parent(sys.Openat2(root_fd, done.empty() ? "." : done.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC, kInRoot));
      if (!parent.valid()) return ErrnoError("open " + done + " in rootfs");
      std::string next = done.empty() ? name : done + "/" + name;
      UniqueFd probe(sys.Openat2(root_fd, next.c_str(), O_PATH | O_CLOEXEC, kInRoot));
      if (!probe.valid()) {
        if (last && as_file) {
          UniqueFd f(sys.Openat(parent.get(), name.c_str(), O_CREAT | O_WRONLY | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644));
          if (!f.valid() && errno != EEXIST) return ErrnoError("create " + next + " in rootfs");
        } else if (sys.Mkdirat(parent.get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
          return ErrnoError("mkdir " + next + " in rootfs");
        }
      }
      done = next;
    }
    pos = end + 1;
  }
  fd = sys.Openat2(root_fd, rel.c_str(), O_PATH | O_CLOEXEC, kInRoot);
  if (fd < 0) return ErrnoError("open " + std::string(path) + " in rootfs");
  return UniqueFd(fd);
}

Status PrepareRootfs(Sys& sys, const LaunchPlan& plan) {
  // Nothing we mount may propagate back to the host. A shared root waits until after pivot_root, which refuses shared mounts
  // (ApplyRootPropagation); until then everything is a slave, so nothing leaks out.
  unsigned long prop = plan.rootfs_propagation ? plan.rootfs_propagation : (MS_SLAVE | MS_REC);
  if (prop & MS_SHARED) prop = MS_SLAVE | MS_REC;
  TRY(Mount(sys, "", "/", "", prop, "", "/ propagation"));
  TRY(Mount(sys, plan.rootfs.string(), plan.rootfs.string(), "", MS_BIND | MS_REC, "", "rootfs " + plan.rootfs.string()));
  return Ok();
}

Status ApplyRootPropagation(Sys& sys, unsigned long propagation) {
  return Mount(sys, "", "/", "", propagation, "", "/ propagation (rootfsPropagation)");
}

// Remounts (read-only, propagation) must name the new mount itself: the fd we mounted onto
// still points at the directory underneath, so the target is opened again.
Status BindRemount(Sys& sys, int root_fd, const std::string& dest, unsigned long flags, std::string_view what) {
  auto top = TRY(OpenInRoot(sys, root_fd, dest, false, false));
  std::string path = FdPath(top.get());
  if (flags & MS_REMOUNT) flags |= KeptFlags(sys, path.c_str());
  return Mount(sys, "", path, "", flags, "", std::string(dest) + " " + std::string(what));
}

// sysfs needs our own network namespace: where it cannot be mounted, the host's /sys is
// bound instead, and every mount under it (debugfs, tracefs, bpffs, securityfs, cgroupfs)
// made read-only with mount_setattr, or the create fails (review C2).
static Status SysfsFallback(Sys& sys, int root_fd, const MountStep& m, const std::string& dst) {
  TRY(Mount(sys, "/sys", dst, "", MS_BIND | MS_REC, "", m.destination + " (host /sys)"));
  auto top = TRY(OpenInRoot(sys, root_fd, m.destination, false, false));
  return LockTreeReadonly(sys, top.get(), m.destination + " (host /sys)");
}

// A bind: created with MS_BIND (| MS_REC), which ignores every other flag; then one remount
// with the flags asked for (plus those the kernel keeps locked), the recursive attributes
// on the whole tree, and a statvfs check that the top really has them (review M6).
static Status ApplyBind(Sys& sys, int root_fd, const MountStep& m, const std::string& dst) {
  TRY(Mount(sys, m.source, dst, "", m.flags & (MS_BIND | MS_REC), "", m.destination));
  if (m.remount)
    TRY(BindRemount(sys, root_fd, m.destination, MS_BIND | MS_REMOUNT | (m.flags & ~(MS_REC | MS_BIND)), "bind flags"));
  auto top = TRY(OpenInRoot(sys, root_fd, m.destination, false, false));
  if (m.recursive_attrs &&
      sys.MountSetattr(top.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, m.recursive_attrs, 0) != 0)
    return ErrnoError("mount " + m.destination + " recursive flags (mount_setattr)");
  unsigned long want = m.flags & kBindFlags;
  if (m.recursive_attrs & MOUNT_ATTR_RDONLY) want |= MS_RDONLY;
  if (m.recursive_attrs & MOUNT_ATTR_NOSUID) want |= MS_NOSUID;
  if (m.recursive_attrs & MOUNT_ATTR_NODEV) want |= MS_NODEV;
  if (m.recursive_attrs & MOUNT_ATTR_NOEXEC) want |= MS_NOEXEC;
  return VerifyMountFlags(sys, FdPath(top.get()), want, m.destination);
}

// tmpcopyup: what the image has at the mount point is read through a descriptor opened
// before the tmpfs covers it, then copied into the new tmpfs (opened again by path).
static Status MountTmpfsCopyUp(Sys& sys, int root_fd, const MountStep& m, const std::string& dst) {
  std::string rel = m.destination;
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  UniqueFd below(sys.Openat2(root_fd, rel.empty() ? "." : rel.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, kInRoot));
  if (!below.valid()) return ErrnoError("tmpcopyup: open " + m.destination + " in rootfs");
  TRY(Mount(sys, m.source, dst, m.type, m.flags, m.data, m.destination));
  auto top = TRY(OpenInRoot(sys, root_fd, m.destination, false, false));
  UniqueFd fresh(sys.Openat(top.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
  if (!fresh.valid()) return ErrnoError("tmpcopyup: open the tmpfs at " + m.destination);
  if (auto s = CopyTree(below.get(), fresh.get()); !s) return s.error().Wrap(m.destination);
  return Ok();
}

static Status ApplyOne(Sys& sys, int root_fd, const MountStep& m, const LaunchPlan& plan) {
  if (m.type == "cgroup" || m.type == "cgroup2") {
    TRY(MountCgroups(sys, root_fd, m, plan.cgroup_binds));
  } else {
    bool as_file = false;
    if (m.bind) {
      struct stat st;
      if (sys.Stat(m.source.c_str(), &st) != 0) return ErrnoError("bind source " + m.source);
      as_file = !S_ISDIR(st.st_mode);
    }
    auto target = TRY(OpenInRoot(sys, root_fd, m.destination, true, as_file));
    std::string dst = FdPath(target.get());
    if (m.copy_up && m.type == "tmpfs") {
      TRY(MountTmpfsCopyUp(sys, root_fd, m, dst));
    } else if (m.bind) {
      TRY(ApplyBind(sys, root_fd, m, dst));
    } else if (auto s = Mount(sys, m.source, dst, m.type, m.flags, m.data, m.destination); !s) {
      if (m.type != "sysfs") return s;
      TRY(SysfsFallback(sys, root_fd, m, dst));
    }
  }
  if (m.propagation) TRY(BindRemount(sys, root_fd, m.destination, m.propagation, "propagation"));
  return Ok();
}

Status ApplyMounts(Sys& sys, const LaunchPlan& plan) {
  UniqueFd root(sys.Open(plan.rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
  if (!root.valid()) return ErrnoError("open rootfs " + plan.rootfs.string());
  for (const auto& m : plan.mounts) TRY(ApplyOne(sys, root.get(), m, plan));
  return Ok();
}

Status CreateDevices(Sys& sys, const LaunchPlan& plan, bool in_userns) {
  UniqueFd root(sys.Open(plan.rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
  if (!root.valid()) return ErrnoError("open rootfs");
  for (const auto& d : plan.devices) {
    auto parent = std::filesystem::path(d.path).parent_path().string();
    auto dir = TRY(OpenInRoot(sys, root.get(), parent, true, false));
    std::string name = std::filesystem::path(d.path).filename().string();
    mode_t type = d.type == 'b' ? S_IFBLK : d.type == 'p' ? S_IFIFO : S_IFCHR;
    UniqueFd dirfd(sys.Openat(dir.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
    if (!dirfd.valid()) return ErrnoError("open " + parent);
    if (!in_userns &&
        sys.Mknodat(dirfd.get(), name.c_str(), type | (d.mode & 07777), makedev(d.major, d.minor)) == 0) {
      (void)sys.Fchownat(dirfd.get(), name.c_str(), d.uid, d.gid, AT_SYMLINK_NOFOLLOW);
      (void)sys.Fchmodat(dirfd.get(), name.c_str(), d.mode & 07777, 0);
      continue;
    }
    if (errno == EEXIST) continue;
    // In a user namespace mknod is not allowed: bind the host's node instead.
    auto target = TRY(OpenInRoot(sys, root.get(), d.path, true, true));
    TRY(Mount(sys, d.path, FdPath(target.get()), "", MS_BIND, "", "device " + d.path));
  }
  for (auto [link, to] : {std::pair{"dev/fd", "/proc/self/fd"}, std::pair{"dev/stdin", "/proc/self/fd/0"},
                          std::pair{"dev/stdout", "/proc/self/fd/1"}, std::pair{"dev/stderr", "/proc/self/fd/2"},
                          std::pair{"dev/ptmx", "pts/ptmx"}}) {
    auto dev = OpenInRoot(sys, root.get(), "/dev", false, false);
    if (!dev) continue;
    UniqueFd dirfd(sys.Openat(dev->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
    std::string name = std::filesystem::path(link).filename().string();
    if (dirfd.valid() && sys.Symlinkat(to, dirfd.get(), name.c_str()) != 0 && errno != EEXIST)
      return ErrnoError(std::string("symlink /") + link);
  }
  return Ok();
}

Status PivotRoot(Sys& sys, const std::filesystem::path& rootfs) {
  UniqueFd old_root(sys.Open("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC, 0));
  UniqueFd new_root(sys.Open(rootfs.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC, 0));
  if (!old_root.valid() || !new_root.valid()) return ErrnoError("open roots");
  // pivot_root(".", ".") stacks the old root on the new one; detaching it leaves only the
  // container's tree, without needing a directory for the old root inside the image.
  if (sys.Fchdir(new_root.get()) != 0) return ErrnoError("chdir rootfs");
  if (sys.PivotRoot(".", ".") != 0) return ErrnoError("pivot_root");
  if (sys.Fchdir(old_root.get()) != 0) return ErrnoError("chdir old root");
  TRY(Mount(sys, "", ".", "", MS_SLAVE | MS_REC, "", "old root"));
  if (sys.Umount2(".", MNT_DETACH) != 0) return ErrnoError("umount old root");
  if (sys.Chdir("/") != 0) return ErrnoError("chdir /");
  return Ok();
}

Status MoveRoot(Sys& sys, const std::filesystem::path& rootfs) {
  // runc's --no-pivot (for roots pivot_root refuses, e.g. on a ramfs): move the rootfs
  // mount over / and chroot into it. The host's tree stays in the mount namespace, below
  // the moved mount, which is why pivot_root is the default.
  if (sys.Chdir(rootfs.c_str()) != 0) return ErrnoError("chdir rootfs " + rootfs.string());
  TRY(Mount(sys, rootfs.string(), "/", "", MS_MOVE, "", "rootfs over / (--no-pivot)"));
  if (sys.Chroot(".") != 0) return ErrnoError("chroot into rootfs (--no-pivot)");
  if (sys.Chdir("/") != 0) return ErrnoError("chdir /");
  return Ok();
}

Result<UniqueFd> LeaveHostMountNs(Sys& sys) {
  UniqueFd host(sys.Open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC, 0));
  if (!host.valid()) return ErrnoError("open the runtime's mount namespace");
  if (sys.Unshare(CLONE_NEWNS) != 0) return ErrnoError("unshare a mount namespace for the setup");
  return host;
}

Status EnterDetachedRoot(Sys& sys, int host_mnt_ns) {
  // A clone of the whole set-up tree (mounts, flags, masks) that belongs to no namespace's
  // table: the host never sees it in its mountinfo, and it is freed with the last process
  // whose root or cwd it is. ".." at its top stays there: no chroot escape to the host's /.
  UniqueFd tree(sys.OpenTree(AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE));
  if (!tree.valid()) return ErrnoError("open_tree a detached copy of the root");
  if (sys.Setns(host_mnt_ns, CLONE_NEWNS) != 0) return ErrnoError("return to the runtime's mount namespace");
  if (sys.Fchdir(tree.get()) != 0) return ErrnoError("chdir into the detached root");
  if (sys.Chroot(".") != 0) return ErrnoError("chroot into the detached root");
  if (sys.Chdir("/") != 0) return ErrnoError("chdir /");
  return Ok();
}

// After pivot_root: "/" is the container's root, and every path is resolved inside it.
// /dev/null comes from the image or a bind when the spec has no /dev tmpfs, so it is opened
// once, without following symlinks, and must be the real 1:3 char device: otherwise an
// image's /dev/null -> /proc/sys/kernel/core_pattern would turn a masked path into a
// writable bind of that file (CVE-2025-31133, review M5). Every mount names fds.
Status MaskPaths(Sys& sys, const std::vector<std::string>& paths) {
  if (paths.empty()) return Ok();
  UniqueFd root(sys.Open("/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
  if (!root.valid()) return ErrnoError("open /");
  // SANDSHIM_TEST_TRUST_DEV_NULL=1 is the attack test's positive control, nothing else: the
  // path is followed as it was before this check, so the test can show what it guards.
  bool trust = std::getenv("SANDSHIM_TEST_TRUST_DEV_NULL") != nullptr;
  UniqueFd null(trust ? sys.Open("/dev/null", O_PATH | O_CLOEXEC, 0)
                      : sys.Openat2(root.get(), "dev/null", O_PATH | O_CLOEXEC, RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS));
  if (!null.valid() && errno == ELOOP)
    return MakeError("/dev/null is a symlink: refusing to mask paths with it", EPERM);
  if (!null.valid()) return ErrnoError("open /dev/null to mask paths with");
  struct stat st;
  if (sys.Fstat(null.get(), &st) != 0) return ErrnoError("stat /dev/null");
  if (!trust && (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3)))
    return MakeError("/dev/null is not the null device (char 1:3): refusing to mask paths with it", EPERM);
  for (const auto& p : paths) {
    auto target = OpenInRoot(sys, root.get(), p, false, false);
    if (!target) {
      if (target.error().err_no == ENOENT) continue;  // nothing there: nothing to hide
      return target.error();
    }
    if (sys.Fstat(target->get(), &st) != 0) return ErrnoError("stat " + p);
    std::string dst = FdPath(target->get());
    if (S_ISDIR(st.st_mode)) TRY(Mount(sys, "tmpfs", dst, "tmpfs", MS_RDONLY, "size=0", "mask " + p));
    else TRY(Mount(sys, FdPath(null.get()), dst, "", MS_BIND, "", "mask " + p));
  }
  return Ok();
}

Status ReadonlyPaths(Sys& sys, const std::vector<std::string>& paths) {
  if (paths.empty()) return Ok();
  UniqueFd root(sys.Open("/", O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
  if (!root.valid()) return ErrnoError("open /");
  for (const auto& p : paths) {
    auto target = OpenInRoot(sys, root.get(), p, false, false);
    if (!target) {
      if (target.error().err_no == ENOENT) continue;
      return target.error();
    }
    std::string at = FdPath(target->get());
    TRY(Mount(sys, at, at, "", MS_BIND | MS_REC, "", "read-only " + p));
    // The whole tree: a submount (binfmt_misc under /proc/sys) must not stay writable.
    auto top = TRY(OpenInRoot(sys, root.get(), p, false, false));
    if (sys.MountSetattr(top.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_RDONLY, 0) != 0)
      return ErrnoError("read-only " + p + " (mount_setattr)");
    TRY(VerifyMountFlags(sys, FdPath(top.get()), MS_RDONLY, "read-only " + p));
  }
  return Ok();
}

Status ReadonlyRoot(Sys& sys) {
  return Mount(sys, "", "/", "", MS_BIND | MS_REMOUNT | MS_RDONLY | KeptFlags(sys, "/"), "", "/ read-only");
}

}  // namespace sandshim::native
