// What a session's teardown undoes: its journal, read strictly; or, for a forced teardown
// (session delete --force, gc) past a journal it cannot read (corrupt, mistyped, a kind this
// binary does not know), the entries that do decode plus what can be found without it. A
// session nobody can delete is worse than one deleted from what is on the host; the strict
// reader stays the rule for every other verb (create's rollback, stop, start).
#include <filesystem>

#include "shim/core/fs.h"
#include "shim/core/log.h"
#include "shim/core/mountinfo.h"
#include "shim/session/workspace/idmap.h"
#include "shim/session/egress/network.h"
#include "shim/session/store/session_steps.h"
#include "shim/session/sessions.h"
#include "shim/session/workspace/workspace_guard.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

// Oldest first, as a journal would hold them (Replay undoes the last first): the name link,
// the id range, the workspace guards it holds, every mount below the session directory (shallow before deep: the deepest is
// unmounted first), the relays by their pid files, then the containers: the session's own and
// every container whose id ends in "+<id>" (its contexts, ctx-<name>+<id>, and spares,
// spare-…+<id>), so they go first.
std::vector<SessionStep> Sessions::FoundSteps(const std::string& id) {
  std::vector<SessionStep> out;
  auto dir = Dir(id);
  auto rec = ReadRecord(id);
  if (rec && !rec->name.empty()) out.push_back(step::SessionName{.path = NameLink(rec->name).string(), .id = id});
  // Ranges of sessions made before they were host-wide (per root, owned by the bare id), then host-wide ones.
  if (auto old = opts_.root / layout::kOldIdRanges; fs::Exists(old)) out.push_back(step::SessionIdRange{.dir = old.string(), .session = id});
  if (fs::Exists(kHostIdRanges))
    out.push_back(step::SessionIdRange{.dir = kHostIdRanges, .session = IdOwner(opts_.root, id)});
  for (auto& g : GuardsHeldBy(opts_.config.workspace_guards, GuardHolder(opts_.root, id))) out.push_back(std::move(g));
  for (auto& g : GuardsHeldBy(GuardRegistry(opts_.root), id)) out.push_back(std::move(g));  // made before host-wide
  auto mounts = mountinfo::MountPointsUnder(mountinfo::Parse(fs::ReadFile("/proc/self/mountinfo").value_or("")), dir);
  for (auto it = mounts.rbegin(); it != mounts.rend(); ++it) out.push_back(step::SessionLayer{it->string()});
  std::vector<std::filesystem::path> owners{dir};
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(SessionLayout(dir).contexts(), ec)) owners.push_back(e.path());
  for (const auto& o : owners)
    if (auto pid_file = NetworkPaths(o).pid_file; fs::Exists(pid_file)) out.push_back(step::EgressRelay{pid_file.string()});
  std::string own = rec ? rec->container_id : "sess-" + id;
  for (const auto& c : containers_.store().List())
    if (c == own || c == "sess-" + id || c.ends_with("+" + id)) out.push_back(step::SessionContainer{c});
  return out;
}

Result<std::vector<SessionStep>> Sessions::StepsToUndo(const std::string& id, bool force) {
  auto file = Dir(id) / layout::kJournal;
  auto journal = SessionJournal::Load(file);
  if (journal) return journal->entries();
  if (!force) return journal.error();
  auto salvaged = runtime::SalvageJournal<SessionStep>(file);
  auto steps = FoundSteps(id);
  std::string unread;
  for (const auto& u : salvaged.unreadable) unread += (unread.empty() ? "" : "; ") + u;
  log::Warn("session " + id + ": journal unreadable (" + unread + "): undoing the " +
            std::to_string(salvaged.entries.size()) + " entries it can read and the " + std::to_string(steps.size()) +
            " resources found without it");
  steps.insert(steps.end(), salvaged.entries.begin(), salvaged.entries.end());
  return steps;
}

}  // namespace sandshim::session
