// Containers: checkpoint support and the checkpoint itself (#35, session pause/resume).
#include "shim/runtime/containers.h"
#include "shim/runtime/status.h"

namespace sandshim::runtime {

Status Containers::CheckpointSupport(std::string_view backend) {
  auto* b = Find(backend);
  if (!b) return MakeError("the " + std::string(backend) + " backend cannot checkpoint a container", ENOTSUP);
  return b->CheckpointSupport();
}

Status Containers::Checkpoint(std::string_view id, const std::filesystem::path& image) {
  auto [lock, rec] = TRY(LockLoaded(id));
  TRY(Require(id, LiveStatus(rec), "checkpoint", {ContainerStatus::kRunning}));
  // The record stays as it is: the sandbox ends by itself, and a Delete that finds it still
  // alive kills it.
  return BackendNamed(rec.backend).Checkpoint(rec, image);
}

}  // namespace sandshim::runtime
