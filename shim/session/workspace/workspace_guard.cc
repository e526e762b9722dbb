#include "shim/session/workspace/workspace_guard.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "bundle/spec.h"
#include "shim/core/clear_setid.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/core/unique_fd.h"
#include "shim/session/workspace/idmap.h"

namespace sandshim::session {
namespace json = boost::json;

namespace {

// The mount id of what path (or, with AT_EMPTY_PATH, fd) is on.
Result<uint64_t> MountIdAt(int dirfd, const char* path, int flags) {
  struct statx sx {};
  if (::statx(dirfd, path, flags, STATX_MNT_ID, &sx) != 0) return ErrnoError(std::string("statx ") + path);
  if (!(sx.stx_mask & STATX_MNT_ID)) return MakeError("statx: no mount id", ENOTSUP);
  return sx.stx_mnt_id;
}

struct Record {
  std::string path;
  uint64_t mount_id = 0;
  std::vector<std::string> holders;
};

std::filesystem::path RecordFile(const std::filesystem::path& registry, const std::string& path) {
  char name[16];
  std::snprintf(name, sizeof name, "%08x", PathHash(path));
  return registry / (std::string(name) + ".json");
}

Record Load(const std::filesystem::path& file, const std::string& path) {
  Record r{.path = path};
  auto text = fs::ReadFile(file);
  if (!text) return r;
  boost::system::error_code ec;
  auto v = json::parse(*text, ec);
  if (ec || !v.is_object() || bundle::GetString(v.as_object(), "path") != path) return r;
  if (const auto* id = v.as_object().if_contains("mount_id"); id && id->is_uint64()) r.mount_id = id->as_uint64();
  else if (id && id->is_int64()) r.mount_id = static_cast<uint64_t>(id->as_int64());
  if (const auto* h = v.as_object().if_contains("holders"); h && h->is_array())
    for (const auto& x : h->as_array())
      if (x.is_string()) r.holders.emplace_back(x.as_string());
  return r;
}

Status Save(const std::filesystem::path& file, const Record& r) {
  if (r.holders.empty()) return ::unlink(file.c_str()) == 0 || errno == ENOENT ? Ok() : ErrnoError("unlink " + file.string());
  json::array holders;
  for (const auto& h : r.holders) holders.emplace_back(h);
  json::object o{{"path", r.path}, {"mount_id", r.mount_id}, {"holders", std::move(holders)}};
  return fs::WriteFileAtomic(file, json::serialize(o), 0600, /*sync=*/false);
}

// Whether the guard this record names is still what is mounted at its path.
bool Mounted(const Record& r) {
  auto top = MountIdAt(AT_FDCWD, r.path.c_str(), AT_SYMLINK_NOFOLLOW);
  return r.mount_id != 0 && top && *top == r.mount_id;
}

// A nosuid copy of the path's mounts, attached over it; its mount id.
Result<uint64_t> MountGuard(const std::filesystem::path& workspace, native::Sys& sys) {
  UniqueFd tree(sys.OpenTree(AT_FDCWD, workspace.c_str(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW));
  if (!tree.valid()) return ErrnoError("open_tree " + workspace.string());
  // nosuid only: nodev would break device nodes of the platform's own below the path (a state
  // root inside a workspace: runsc's private stdio nodes), and a tenant makes none (no
  // CAP_MKNOD in a session). The rest (ro, noexec) as they were.
  if (sys.MountSetattr(tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, MOUNT_ATTR_NOSUID, 0) != 0)
    return ErrnoError("nosuid on the workspace " + workspace.string());
  auto id = TRY(MountIdAt(tree.get(), "", AT_EMPTY_PATH));
  if (sys.MoveMount(tree.get(), "", AT_FDCWD, workspace.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
    return ErrnoError("attach the nosuid workspace at " + workspace.string());
  return id;
}

// Every guard record of the root under one lock: the registry directory's own (no lock file
// to leave behind; guards change only at create and delete).
Result<UniqueFd> LockRegistry(const std::filesystem::path& registry) {
  UniqueFd fd(::open(registry.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return ErrnoError("open " + registry.string());
  while (::flock(fd.get(), LOCK_EX) != 0)
    if (errno != EINTR) return ErrnoError("lock " + registry.string());
  return fd;
}

}  // namespace

std::string GuardHolder(const std::filesystem::path& root, const std::string& session) {
  return IdOwner(root, session);
}

Status GuardWorkspace(SessionJournal& journal, const std::filesystem::path& registry,
                      const std::filesystem::path& workspace, const std::string& holder, native::Sys& sys) {
  // The default registry's parent is the default state root: traversable, as the store makes it.
  if (!fs::Exists(registry.parent_path())) TRY(fs::MkdirAll(registry.parent_path(), 0711));
  TRY(fs::MkdirAll(registry, 0700));
  // First: a crash after the mount leaves a step whose undo finds the record and ends it.
  TRY(journal.Append(step::WorkspaceGuard{.path = workspace.string(), .registry = registry.string(), .holder = holder}));
  auto file = RecordFile(registry, workspace.string());
  auto lock = TRY(LockRegistry(registry));
  auto r = Load(file, workspace.string());
  if (!Mounted(r)) {
    r.holders.clear();  // a record whose mount is gone (unmounted by hand, a reboot) holds nothing
    r.mount_id = TRY(MountGuard(workspace, sys));
  }
  if (std::find(r.holders.begin(), r.holders.end(), holder) == r.holders.end()) r.holders.push_back(holder);
  return Save(file, r);
}

Status UnguardWorkspace(const step::WorkspaceGuard& g, native::Sys& sys) {
  if (g.path.empty()) return MakeError("workspace-guard step without a path", EINVAL);
  if (g.registry.empty()) return Ok();  // no registry named: nothing was held through one
  auto file = RecordFile(g.registry, g.path);
  auto lock = LockRegistry(g.registry);
  if (!lock) return lock.error().err_no == ENOENT ? Ok() : Status(lock.error());  // never made: nothing held
  auto r = Load(file, g.path);
  std::erase(r.holders, g.holder);
  if (!r.holders.empty()) return Save(file, r);
  // The last session using it is gone (its container's entry is undone before this one):
  // what it left keeps no set-ID bit once the nosuid mount is gone.
  if (auto n = fs::ClearSetIdBits(g.path); !n) log::Warn("workspace " + g.path + ": " + n.error().msg);
  else if (*n > 0) log::Warn("workspace " + g.path + ": set-ID bits cleared on " + std::to_string(*n) + " files");
  if (Mounted(r) && sys.Umount2(g.path.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL && errno != ENOENT)
    return ErrnoError("unmount the workspace guard at " + g.path);
  return Save(file, r);
}

std::vector<step::WorkspaceGuard> GuardsHeldBy(const std::filesystem::path& registry, const std::string& holder) {
  std::vector<step::WorkspaceGuard> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(registry, ec)) {
    auto text = fs::ReadFile(e.path());
    boost::system::error_code jec;
    auto v = text ? json::parse(*text, jec) : json::value();
    if (jec || !v.is_object()) continue;
    auto path = bundle::GetString(v.as_object(), "path");
    auto r = Load(e.path(), path);
    if (std::find(r.holders.begin(), r.holders.end(), holder) != r.holders.end())
      out.push_back({.path = path, .registry = registry.string(), .holder = holder});
  }
  return out;
}

}  // namespace sandshim::session
