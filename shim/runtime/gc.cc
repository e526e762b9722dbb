// Containers::Gc: removes what nobody will ever delete — containers whose creator died
// mid-create, foreground runs whose sandshim was killed, directories with no record, and runsc
// sandboxes under our runsc root that no record owns, and the root's shared control netns
// once no container holds it. Busy containers (locked by a verb in
// progress) are skipped, so gc is safe to run from cron while other verbs run, and a second
// run in a row finds nothing.
#include <filesystem>
#include <set>

#include "shim/core/fault.h"
#include "shim/core/fs.h"
#include "shim/runtime/containers.h"
#include "shim/gvisor/gvisor_backend.h"
#include "shim/linux/netns.h"
#include "shim/runsc/control_netns.h"

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
    known.insert(GvisorBackend::RunscId(opts_.root, id));
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
  // runsc keeps <id>_sandbox:<id>.state per container; one without our record is a leak.
  std::error_code ec;
  auto runsc_root = GvisorBackend::RunscRoot(opts_.root);
  for (const auto& e : std::filesystem::directory_iterator(runsc_root, ec)) {
    std::string name = e.path().filename().string();
    auto cut = name.find("_sandbox:");
    if (cut == std::string::npos || !name.ends_with(".state")) continue;
    std::string id = name.substr(0, cut);
    if (known.contains(id)) continue;
    ContainerStep entry = step::RunscContainer{.runsc_root = runsc_root.string(), .id = id};
    if (auto s = Undo(entry); !s) report.errors.push_back("runsc sandbox " + id + ": " + s.error().msg);
    else report.removed.push_back("runsc sandbox " + id + " (no sandshim record)");
  }
  // The root's shared control namespace: holds of containers whose directory is gone (a
  // crash between the hold and the journal's undo), and the namespace once nothing holds it.
  if (auto swept = runsc::SweepSharedControlNetns(opts_.root); !swept) report.errors.push_back(swept.error().msg);
  else report.removed.insert(report.removed.end(), swept->begin(), swept->end());
  return report;
}

}  // namespace sandshim::runtime
