// Containers::Gc: removes what nobody will ever delete — containers whose creator died
// mid-create, foreground runs whose sandshim was killed, directories with no record, and what
// each backend keeps under the root that no container owns (Backend::Gc: gVisor's runsc
// sandboxes and shared control namespace). Busy containers (locked by a verb in
// progress) are skipped, so gc is safe to run from cron while other verbs run, and a second
// run in a row finds nothing.
#include <filesystem>
#include <set>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/runtime/containers.h"

namespace sandshim::runtime {

bool Containers::Orphaned(const ContainerRecord& rec, std::string* why) const {
  if (rec.status == ContainerStatus::kCreating && !proc::IsAlive(rec.owner)) {
    *why = "its creator died mid-create";
    return true;
  }
  if (rec.init.pid == 0 && rec.status != ContainerStatus::kStopped && !proc::IsAlive(rec.owner)) {
    *why = "the sandshim running it in the foreground died";
    return true;
  }
  return false;
}

GcReport Containers::Gc() {
  GcReport report;
  std::set<std::string> known;
  for (const auto& id : store_.List()) {
    known.insert(id);
    auto lock = store_.TryLock(id);
    if (!lock) continue;  // busy: a verb is working on it right now
    auto rec = store_.Load(id);
    std::string why = "it has no record (a create died before its first save)";
    if (rec && !Orphaned(*rec, &why)) continue;
    fault::Point("gc.before-replay");
    // Forced: gc goes on past a journal it cannot read (StepsToUndo), and removes an older
    // container's own control namespace, which no journal entry may name.
    if (auto s = ReplayAndErase(*lock, rec ? &*rec : nullptr, /*force=*/true); !s) report.errors.push_back("container " + id + ": " + s.error().msg);
    else report.removed.push_back("container " + id + " (" + why + ")");
  }
  for (auto& b : backends_) b->Gc(known, report);
  return report;
}

}  // namespace sandshim::runtime
