// GvisorBackend: what the agnostic runtime asks of a backend beyond a container's own verbs:
// whether runsc works here (backend selection), whether it can checkpoint, and the leftovers
// no journal names, which a forced teardown and gc remove (runsc sandboxes without a record,
// the root's shared control namespace, an older container's own).
#include <filesystem>

#include "shim/gvisor/gvisor_backend.h"
#include "shim/linux/netns.h"
#include "shim/runsc/checkpoint_probe.h"
#include "shim/runsc/control_netns.h"

namespace sandshim::runtime {

Availability GvisorBackend::Probe() {
  const auto& p = probe_->Get();
  return {p.usable, p.error};
}

Status GvisorBackend::CheckpointSupport() {
  auto v = runsc::ProbeCheckpoint(probe_->Get(), config_.cache_dir, netns_);
  if (!v.works) return MakeError("this runsc cannot checkpoint and restore a sandbox (probed: " + v.why + ")", ENOTSUP);
  return Ok();
}

Status GvisorBackend::RemoveUnjournaled(const std::filesystem::path& state_dir) {
  // Not in any journal: an older container's own control namespace.
  auto own_netns = runsc::ControlNetnsPath(state_dir);
  if (net::IsNetns(own_netns)) TRY(runsc::RemoveControlNetns(own_netns));
  return Ok();
}

void GvisorBackend::Gc(const std::set<std::string>& ids, GcReport& report) {
  std::set<std::string> known;
  for (const auto& id : ids) known.insert(RunscId(root_, id));
  // runsc keeps <id>_sandbox:<id>.state per container; one without our record is a leak.
  std::error_code ec;
  auto runsc_root = RunscRoot(root_);
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
  if (auto swept = runsc::SweepSharedControlNetns(root_); !swept) report.errors.push_back(swept.error().msg);
  else report.removed.insert(report.removed.end(), swept->begin(), swept->end());
}

}  // namespace sandshim::runtime
