// A workspace is a host directory the tenant writes: what it leaves there must not become a
// privilege on the host (issue #34 red team, critical). A tenant may chmod a file it owns
// 4755, and a workspace made by root is written as root (workspace_owner.h), so the host
// would hold a set-user-ID root program for any local user to run. The kernel stops that
// where it sees the exec: while the session lives, the workspace's host path is a bind mount
// of itself with nosuid,nodev (every host path to it through this mount; journaled, undone
// at delete/gc); at delete, before the mount goes, every file's set-ID bits are cleared.
#pragma once

#include <filesystem>

#include "shim/session/session_steps.h"

namespace sandshim::session {

// Journals, then binds workspace over itself nosuid,nodev (its other flags kept).
Status GuardWorkspace(SessionJournal& journal, const std::filesystem::path& workspace);
// The step's undo: the set-ID bits cleared, then our bind (by its mount id) detached.
Status UnguardWorkspace(const step::WorkspaceGuard& g);

}  // namespace sandshim::session
