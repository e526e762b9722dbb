// #35, a workspace that just works whoever made it: the session's user acts as the workspace's
// owner inside the workspace (idmap.h OwnerAsUserMap), on both backends, without the caller
// knowing any uid. A workspace the session's user already owns is bound as it is.
#pragma once

#include <filesystem>

#include "bundle/session_spec.h"
#include "shim/session/store/session_steps.h"

namespace sandshim::session {

// Binds p.workspace at <dir>/workspace-id through the map (journaled first) and points
// p.workspace_source there. base/size: the session's id range (native, review M11), or 0 and
// every id (gVisor, whose sandbox uses host ids). With same_owner_too, a workspace owned by
// the session's user is bound too (native: its range must be mapped anyway).
Status BindWorkspaceAsUser(SessionJournal& journal, const std::filesystem::path& dir, bundle::SessionProfile& p,
                           uint32_t base, uint32_t size, bool same_owner_too);

}  // namespace sandshim::session
