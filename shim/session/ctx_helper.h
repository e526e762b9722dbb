// The context broker's binary (ctx-helper/, docs/CONTEXTS.md "The context broker"): embedded
// in sandshim at build time, written out once per session into the session's directory (only
// root's; it goes with the session, so nothing is left behind), and bound read-only into each
// of the session's gVisor context containers at kCtxHelperPath.
#pragma once

#include <filesystem>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::session {

// Where a gVisor context's container sees the helper (its init, and every exec's client).
inline constexpr const char* kCtxHelperPath = "/.sshim/ctx";

// The embedded bytes.
std::string_view CtxHelperBytes();
// <session dir>/sandshim-ctx-<content hash>, 0755, written atomically if it is not there yet
// (a file of that name is the same bytes: the name is their hash, so a newer sandshim writes
// its own beside a running context's).
Result<std::filesystem::path> InstallCtxHelper(const std::filesystem::path& session_dir);

}  // namespace sandshim::session
