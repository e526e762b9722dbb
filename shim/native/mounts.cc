#include "shim/native/mounts.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace sandshim::native {
namespace {

constexpr uint64_t kInRoot = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;

std::string FdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

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

}  // namespace

Result<UniqueFd> OpenInRoot(Sys& sys, int root_fd, std::string_view path, bool create, bool as_file) {
  std::string rel(path);
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  if (rel.empty()) return UniqueFd(sys.Openat2(root_fd, ".", O_PATH | O_CLOEXEC, kInRoot));
  int fd = sys.Openat2(root_fd, rel.c_str(), O_PATH | O_CLOEXEC, kInRoot);
  if (fd >= 0 || errno != ENOENT || !create) {
    if (fd < 0) return ErrnoError("open " + std::string(path) + " in rootfs");
    return UniqueFd(fd);
  }
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
  // Nothing we mount may propagate back to the host.
  unsigned long prop = plan.rootfs_propagation ? plan.rootfs_propagation : (MS_SLAVE | MS_REC);
  TRY(Mount(sys, "", "/", "", prop, "", "/ propagation"));
  TRY(Mount(sys, plan.rootfs.string(), plan.rootfs.string(), "", MS_BIND | MS_REC, "", "rootfs " + plan.rootfs.string()));
  return Ok();
}

// Remounts (read-only, propagation) must name the new mount itself: the fd we mounted onto
// still points at the directory underneath, so the target is opened again.
static Status Remount(Sys& sys, int root_fd, const std::string& dest, unsigned long flags, std::string_view what) {
  auto top = TRY(OpenInRoot(sys, root_fd, dest, false, false));
  std::string path = FdPath(top.get());
  if (flags & MS_REMOUNT) flags |= KeptFlags(sys, path.c_str());
  return Mount(sys, "", path, "", flags, "", std::string(dest) + " " + std::string(what));
}

static Status ApplyOne(Sys& sys, int root_fd, const MountStep& m) {
  bool as_file = false;
  if (m.bind) {
    struct stat st;
    if (sys.Stat(m.source.c_str(), &st) != 0) return ErrnoError("bind source " + m.source);
    as_file = !S_ISDIR(st.st_mode);
  }
  std::string dst;
  {
    auto target = TRY(OpenInRoot(sys, root_fd, m.destination, true, as_file));
    dst = FdPath(target.get());
    unsigned long flags = m.flags & ~(m.readonly_remount ? MS_RDONLY : 0);
    auto s = Mount(sys, m.source, dst, m.bind ? "" : m.type, flags, m.bind ? "" : m.data, m.destination);
    if (!s && (m.type == "sysfs" || m.type == "cgroup")) {
      // sysfs needs our own network namespace, and cgroup v1 hierarchies a view of their
      // own: fall back to the host's tree, bound read-only (below).
      TRY(Mount(sys, m.type == "sysfs" ? "/sys" : "/sys/fs/cgroup", dst, "", MS_BIND | MS_REC, "", m.destination));
      TRY(Remount(sys, root_fd, m.destination, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC, "read-only"));
    } else if (!s) {
      return s;
    }
  }
  if (m.readonly_remount)
    TRY(Remount(sys, root_fd, m.destination, MS_BIND | MS_REMOUNT | MS_RDONLY | (m.flags & ~(MS_REC | MS_BIND)), "read-only"));
  if (m.propagation) TRY(Remount(sys, root_fd, m.destination, m.propagation, "propagation"));
  return Ok();
}

Status ApplyMounts(Sys& sys, const LaunchPlan& plan) {
  UniqueFd root(sys.Open(plan.rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC, 0));
  if (!root.valid()) return ErrnoError("open rootfs " + plan.rootfs.string());
  for (const auto& m : plan.mounts) TRY(ApplyOne(sys, root.get(), m));
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

Status MaskPaths(Sys& sys, const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    struct stat st;
    if (sys.Lstat(p.c_str(), &st) != 0) continue;  // nothing there: nothing to hide
    if (S_ISDIR(st.st_mode)) TRY(Mount(sys, "tmpfs", p, "tmpfs", MS_RDONLY, "size=0", "mask " + p));
    else TRY(Mount(sys, "/dev/null", p, "", MS_BIND, "", "mask " + p));
  }
  return Ok();
}

Status ReadonlyPaths(Sys& sys, const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    if (sys.Access(p.c_str(), F_OK) != 0) continue;
    TRY(Mount(sys, p, p, "", MS_BIND | MS_REC, "", "read-only " + p));
    TRY(Mount(sys, "", p, "", MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC | KeptFlags(sys, p.c_str()), "", "read-only " + p));
  }
  return Ok();
}

Status ReadonlyRoot(Sys& sys) {
  return Mount(sys, "", "/", "", MS_BIND | MS_REMOUNT | MS_RDONLY | KeptFlags(sys, "/"), "", "/ read-only");
}

}  // namespace sandshim::native
