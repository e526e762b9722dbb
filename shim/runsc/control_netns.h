// The private network namespace a sandbox's control socket lives in.
//
// This runsc (Debian 12's 0.0~20221219) binds its control server to the ABSTRACT unix name
// @runsc-sandbox.<id>, in the network namespace of the `runsc create` that makes the sandbox
// (it creates the socket before the sandbox joins the container's network). Abstract names
// have no file mode, and the server's only check (peer uid == its own, 65534 inside the
// sandbox's user namespace, where every other host uid also reads as 65534) passes for
// anyone: in the host namespace any local user could run commands in the sandbox as root.
// So every runsc verb of a container, and sandshim's own control connections, run inside a
// namespace made for that container alone: <state dir>/control.netns, an nsfs bind mount
// under the 0700 state root, journaled with the container and removed with it. Only root
// (CAP_SYS_ADMIN, to setns) can reach the socket there.
#pragma once

#include <filesystem>

#include "shim/core/result.h"

namespace sandshim::runsc {

std::filesystem::path ControlNetnsPath(const std::filesystem::path& state_dir);
// Creates it (idempotent: an existing namespace at the path is kept).
Status CreateControlNetns(const std::filesystem::path& path);
Status RemoveControlNetns(const std::filesystem::path& path);

}  // namespace sandshim::runsc
