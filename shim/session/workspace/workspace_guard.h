// A workspace is a host directory the tenant writes: what it leaves there must not become a
// privilege on the host (red team 2026-11-28, critical). A tenant may chmod a file it owns
// 4755, and a workspace made by root is written as root (workspace_owner.h), so the host
// would hold a set-user-ID root program for any local user to run. The kernel stops that
// where it sees the exec: while a session uses the workspace, its host path is a bind mount
// of itself with nosuid (every exec through that path ignores the bits); when the last
// session using it goes, every file's set-ID bits are cleared, then the mount goes.
//
// Sessions that share a workspace share its guard: a record per path in one host-wide registry
// (runtime::Config::workspace_guards, /run/sandshim/@workspace-guards: the mount's id and its
// holders, under a lock), so a delete never leaves a mount stacked under another session's, nor
// takes one another session relies on. Host-wide, not per state root: with a registry per root,
// a second root's session stacked its own guard over the first's, the first root's delete found
// its mount covered and left it, and it outlived both sessions. A holder is IdOwner(root, id).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shim/linux/sys.h"
#include "shim/session/store/session_steps.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

// Where sessions made before guards were host-wide hold theirs (by bare session id); their
// journals name it, so they unguard there; salvage searches it too.
inline std::filesystem::path GuardRegistry(const std::filesystem::path& state_root) {
  return RootLayout(state_root).workspace_guards();
}
// The holder a session of root is in the host-wide registry (IdOwner: two roots' "s1" apart).
std::string GuardHolder(const std::filesystem::path& root, const std::string& session);
// Journals holder's step, then joins the path's guard, making it if no one holds it.
Status GuardWorkspace(SessionJournal& journal, const std::filesystem::path& registry,
                      const std::filesystem::path& workspace, const std::string& holder,
                      native::Sys& sys = native::LinuxSys());
// The step's undo: leaves the guard; the last holder clears the set-ID bits and unmounts.
Status UnguardWorkspace(const step::WorkspaceGuard& g, native::Sys& sys = native::LinuxSys());
// The steps holder's journal would hold, found in the registry (a teardown past a journal it
// cannot read).
std::vector<step::WorkspaceGuard> GuardsHeldBy(const std::filesystem::path& registry, const std::string& holder);

}  // namespace sandshim::session
