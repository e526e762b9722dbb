// The context broker's binary (ctx-helper/, docs/CONTEXTS.md "The context broker"): embedded
// in sandshim at build time, written out once per session into the session's directory (only
// root's; it goes with the session, so nothing is left behind), and bound read-only into each
// of the session's gVisor context containers at kCtxHelperPath.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "shim/core/result.h"

namespace sandshim::session {

// Where a gVisor context's container sees the helper (its init; the exec client of contexts
// made before /.sshim/run, as `/.sshim/ctx run ...`).
inline constexpr const char* kCtxHelperPath = "/.sshim/ctx";
// Where it sees the exec client (ctx-helper/run/: no libc, a cheap process start).
inline constexpr const char* kCtxRunPath = "/.sshim/run";

// The embedded bytes: the helper, the exec client.
std::string_view CtxHelperBytes();
std::string_view CtxRunBytes();
// <session dir>/sandshim-ctx-<content hash> (the helper) and sandshim-ctx-run-<hash> (the
// client), 0755, each written atomically if it is not there yet (a file of that name is the
// same bytes: the name is their hash, so a newer sandshim writes its own beside a running
// context's).
Result<std::filesystem::path> InstallCtxHelper(const std::filesystem::path& session_dir);
Result<std::filesystem::path> InstallCtxRun(const std::filesystem::path& session_dir);
// The file name InstallCtxRun gives this sandshim's client ("sandshim-ctx-run-<hash>").
const std::string& CtxRunFileName();

}  // namespace sandshim::session
