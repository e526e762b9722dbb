#include "shim/runsc/control_netns.h"

#include "shim/net/netns.h"

namespace sandshim::runsc {

std::filesystem::path ControlNetnsPath(const std::filesystem::path& state_dir) { return state_dir / "control.netns"; }

Status CreateControlNetns(const std::filesystem::path& path) {
  if (net::IsNetns(path)) return Ok();
  return net::CreateNetns(path);
}

Status RemoveControlNetns(const std::filesystem::path& path) { return net::RemoveNetns(path); }

}  // namespace sandshim::runsc
