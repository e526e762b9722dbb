#include "shim/native/cgroup_mounts.h"

#include <fcntl.h>
#include <sys/mount.h>

#include "shim/core/fs.h"
#include "shim/native/mounts.h"

namespace sandshim::native {

namespace {
// What every cgroup mount gets, ro or not: nothing in it is a program or a device.
constexpr unsigned long kLocked = MS_NOSUID | MS_NODEV | MS_NOEXEC;
constexpr uint64_t kLockedAttrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
}  // namespace

std::vector<CgroupBind> PlanCgroupBinds(const std::vector<Hierarchy>& hs, const std::vector<std::filesystem::path>& dirs,
                                        const std::vector<bool>& made, const std::map<std::string, std::string>& own,
                                        const std::filesystem::path& root) {
  std::vector<CgroupBind> out;
  for (size_t i = 0; i < hs.size() && i < dirs.size(); ++i) {
    const auto& h = hs[i];
    auto rel = h.mount.lexically_relative(root);
    if (rel.empty() || rel.string().starts_with("..")) continue;  // not under /sys/fs/cgroup
    CgroupBind b;
    b.name = rel == "." ? "" : rel.string();
    if (i < made.size() && made[i]) {
      b.source = dirs[i].string();
    } else {
      // The runtime's own cgroup, which the init stays in; never a hierarchy's root (the
      // host's whole tree, read-only or not): such a hierarchy is left out.
      auto it = own.find(h.Key());
      if (it == own.end() || it->second.empty() || it->second == "/") continue;
      b.source = (h.mount / std::filesystem::path(it->second).relative_path()).lexically_normal().string();
    }
    if (b.name.find(',') != std::string::npos)
      for (const auto& c : h.controllers)
        if (c != b.name) b.links.push_back(c);
    out.push_back(std::move(b));
  }
  // v2 alone at the root: its directory is the mount, nothing else can be there.
  for (const auto& b : out)
    if (b.name.empty()) return {b};
  return out;
}

std::vector<CgroupBind> CgroupBindsFor(const std::vector<std::filesystem::path>& dirs, const boost::json::object* resources) {
  auto hs = Hierarchies();
  std::vector<bool> made;
  for (const auto& h : hs) made.push_back(HierarchyMade(h, resources));
  return PlanCgroupBinds(hs, dirs, made, cgroupfs::Own());
}

Status LockTreeReadonly(Sys& sys, int fd, std::string_view what) {
  if (sys.MountSetattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_RDONLY | kLockedAttrs, 0) != 0)
    return ErrnoError("make " + std::string(what) + " read-only (mount_setattr)");
  return VerifyMountFlags(sys, FdPath(fd), MS_RDONLY | kLocked, what);
}

Status MountCgroups(Sys& sys, int root_fd, const MountStep& m, const std::vector<CgroupBind>& binds) {
  bool ro = m.flags & MS_RDONLY;
  auto dest = TRY(OpenInRoot(sys, root_fd, m.destination, true, false));
  std::string what = m.destination;
  if (binds.size() == 1 && binds[0].name.empty()) {
    // v2 alone: the container's own directory is the whole mount.
    if (sys.Mount(binds[0].source.c_str(), FdPath(dest.get()).c_str(), nullptr, MS_BIND, nullptr) != 0)
      return ErrnoError("mount " + what + " (bind " + binds[0].source + ")");
  } else {
    if (sys.Mount("tmpfs", FdPath(dest.get()).c_str(), "tmpfs", kLocked, "mode=755") != 0)
      return ErrnoError("mount " + what + " (tmpfs)");
    for (const auto& b : binds) {
      std::string sub = m.destination + "/" + b.name;
      auto target = TRY(OpenInRoot(sys, root_fd, sub, true, false));
      if (sys.Mount(b.source.c_str(), FdPath(target.get()).c_str(), nullptr, MS_BIND, nullptr) != 0)
        return ErrnoError("mount " + sub + " (bind " + b.source + ")");
      TRY(BindRemount(sys, root_fd, sub, MS_BIND | MS_REMOUNT | kLocked | (ro ? MS_RDONLY : 0), "bind flags"));
      if (b.links.empty()) continue;
      auto parent = TRY(OpenInRoot(sys, root_fd, m.destination, false, false));
      UniqueFd dir(sys.Openat(parent.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
      if (!dir.valid()) return ErrnoError("open " + what);
      for (const auto& l : b.links)
        if (sys.Symlinkat(b.name.c_str(), dir.get(), l.c_str()) != 0 && errno != EEXIST)
          return ErrnoError("symlink " + m.destination + "/" + l);
    }
  }
  auto top = TRY(OpenInRoot(sys, root_fd, m.destination, false, false));
  if (ro) return LockTreeReadonly(sys, top.get(), what);
  if (sys.MountSetattr(top.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, kLockedAttrs, 0) != 0)
    return ErrnoError("lock " + what + " (mount_setattr)");
  return VerifyMountFlags(sys, FdPath(top.get()), kLocked, what);
}

}  // namespace sandshim::native
