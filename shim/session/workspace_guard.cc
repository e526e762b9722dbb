#include "shim/session/workspace_guard.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shim/core/clear_setid.h"
#include "shim/core/log.h"
#include "shim/core/unique_fd.h"

namespace sandshim::session {

// The mount id of what fd (or path, under dirfd) is on.
static Result<uint64_t> MountIdAt(int dirfd, const char* path, int flags) {
  struct statx sx {};
  if (::statx(dirfd, path, flags, STATX_MNT_ID, &sx) != 0) return ErrnoError("statx");
  if (!(sx.stx_mask & STATX_MNT_ID)) return MakeError("statx: no mount id", ENOTSUP);
  return sx.stx_mnt_id;
}

Status GuardWorkspace(SessionJournal& journal, const std::filesystem::path& workspace) {
  // A detached copy first (gone with us if we die before it is attached), whose mount id the
  // journal names before it is attached: an undo never detaches a mount it did not make.
  UniqueFd tree(static_cast<int>(::syscall(SYS_open_tree, AT_FDCWD, workspace.c_str(),
                                           OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW)));
  if (!tree.valid()) return ErrnoError("open_tree " + workspace.string());
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;  // the rest (ro, noexec) as they were
  if (::syscall(SYS_mount_setattr, tree.get(), "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) != 0)
    return ErrnoError("nosuid on the workspace " + workspace.string());
  auto id = TRY(MountIdAt(tree.get(), "", AT_EMPTY_PATH));
  TRY(journal.Append(step::WorkspaceGuard{.path = workspace.string(), .mount_id = id}));
  if (::syscall(SYS_move_mount, tree.get(), "", AT_FDCWD, workspace.c_str(), MOVE_MOUNT_F_EMPTY_PATH) != 0)
    return ErrnoError("attach the nosuid workspace at " + workspace.string());
  return Ok();
}

Status UnguardWorkspace(const step::WorkspaceGuard& g) {
  if (g.path.empty()) return MakeError("workspace-guard step without a path", EINVAL);
  // The tenant is gone (its container's entry is undone before this one): what it left keeps
  // no set-ID bit once the nosuid mount is gone.
  if (auto n = fs::ClearSetIdBits(g.path); !n) log::Warn("workspace " + g.path + ": " + n.error().msg);
  else if (*n > 0) log::Warn("workspace " + g.path + ": set-ID bits cleared on " + std::to_string(*n) + " files");
  auto top = MountIdAt(AT_FDCWD, g.path.c_str(), AT_SYMLINK_NOFOLLOW);
  if (!top) return top.error().err_no == ENOENT ? Ok() : Status(top.error());
  if (*top != g.mount_id) return Ok();  // never made (crash before attach), or gone already
  if (::umount2(g.path.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) != 0 && errno != EINVAL && errno != ENOENT)
    return ErrnoError("unmount the workspace guard at " + g.path);
  return Ok();
}

}  // namespace sandshim::session
