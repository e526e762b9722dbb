#include "shim/session/workspace/workspace_owner.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "shim/session/workspace/idmap.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

Status BindWorkspaceAsUser(SessionJournal& journal, const std::filesystem::path& dir, bundle::SessionProfile& p,
                           uint32_t base, uint32_t size, bool same_owner_too) {
  if (p.workspace.empty()) return Ok();
  struct stat st;
  // The owner of the directory itself, not of a link's target (sources.json pinned it already).
  if (::lstat(p.workspace.c_str(), &st) != 0) return ErrnoError("stat " + p.workspace);
  bool same = st.st_uid == p.uid && st.st_gid == p.gid;
  if (same && !same_owner_too) return Ok();
  auto ns = same ? MappingNamespace(base)
                 : MappingNamespace(OwnerAsUserMap(st.st_uid, p.uid, base, size),
                                    OwnerAsUserMap(st.st_gid, p.gid, base, size));
  if (!ns) return ns.error().Wrap("the workspace's id mapping");
  auto target = dir / layout::kWorkspaceId;
  TRY(journal.Append(step::SessionLayer{target.string()}));
  TRY(IdmappedBind(p.workspace, target, ns->get()));
  p.workspace_source = target.string();
  return Ok();
}

}  // namespace sandshim::session
