#include "shim/runtime/status.h"

namespace sandshim::runtime {

std::string_view StatusName(ContainerStatus s) {
  switch (s) {
    case ContainerStatus::kCreating: return "creating";
    case ContainerStatus::kCreated: return "created";
    case ContainerStatus::kRunning: return "running";
    case ContainerStatus::kPaused: return "paused";
    case ContainerStatus::kStopped: return "stopped";
  }
  return "unknown";
}

std::optional<ContainerStatus> ParseStatus(std::string_view s) {
  for (auto st : {ContainerStatus::kCreating, ContainerStatus::kCreated, ContainerStatus::kRunning,
                  ContainerStatus::kPaused, ContainerStatus::kStopped})
    if (StatusName(st) == s) return st;
  return std::nullopt;
}

Status Require(std::string_view id, ContainerStatus s, std::string_view action,
               std::initializer_list<ContainerStatus> ok) {
  for (auto o : ok)
    if (o == s) return Ok();
  int err = s == ContainerStatus::kStopped ? ESRCH : EBUSY;
  std::string msg = "cannot " + std::string(action) + " container " + std::string(id) + " in state " +
                    std::string(StatusName(s));
  // containerd's shim recognises this phrase and treats the process as already finished.
  if (s == ContainerStatus::kStopped) msg += ": container not running";
  return MakeError(msg, err);
}

}  // namespace sandshim::runtime
