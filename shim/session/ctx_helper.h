// The context broker's binary (ctx-helper/, docs/CONTEXTS.md "The context broker"): embedded
// in sandshim at build time, written out once per state root where only root can reach it,
// and bound read-only into each gVisor context's container at kCtxHelperPath.
#pragma once

#include <filesystem>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::session {

// Where a gVisor context's container sees the helper (its init, and every exec's client).
inline constexpr const char* kCtxHelperPath = "/.sshim/ctx";

// The embedded bytes.
std::string_view CtxHelperBytes();
// <root>/@bin/sandshim-ctx-<content hash>, 0755 in a 0700 directory, written atomically if it
// is not there yet (a file of that name is the same bytes: the name is their hash).
Result<std::filesystem::path> InstallCtxHelper(const std::filesystem::path& state_root);

}  // namespace sandshim::session
