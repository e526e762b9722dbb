// Containers: checkpoint support and the checkpoint itself (#35, session pause/resume).
#include "shim/runsc/checkpoint_probe.h"
#include "shim/runtime/containers.h"
#include "shim/gvisor/probed_runsc.h"
#include "shim/runtime/status.h"

namespace sandshim::runtime {

Status Containers::CheckpointSupport(std::string_view backend) {
  if (backend != "gvisor") return MakeError("the " + std::string(backend) + " backend cannot checkpoint a container", ENOTSUP);
  const auto& p = probe_->Get();
  auto v = runsc::ProbeCheckpoint(p, opts_.config.cache_dir, *opts_.control_netns);
  if (!v.works) return MakeError("this runsc cannot checkpoint and restore a sandbox (probed: " + v.why + ")", ENOTSUP);
  return Ok();
}

Status Containers::Checkpoint(std::string_view id, const std::filesystem::path& image) {
  auto [lock, rec] = TRY(LockLoaded(id));
  TRY(Require(id, LiveStatus(rec), "checkpoint", {ContainerStatus::kRunning}));
  // The record stays as it is: the sandbox ends by itself, and a Delete that finds it still
  // alive kills it.
  return BackendNamed(rec.backend).Checkpoint(rec, image);
}

}  // namespace sandshim::runtime
