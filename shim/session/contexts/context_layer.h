// Native: each credential context gets a writable root layer of its own (issue #31), as a
// gVisor context does from its container's in-sandbox overlay. Without it every native context
// ran on the session's merged root, so /var/tmp, /run/lock and every other writable path
// outside the workspace and /tmp crossed between the platform and the user, both ways.
// The context's overlay: the session's lower layer (its base, idmapped where the session's
// is) + <context>/layer/{upper,work}, on <context>/rootfs. Not the session's merged root as
// the lower: what the user writes outside the workspace would show in the platform's root.
// So, as on gVisor, a context sees the base image, not what the session wrote into its root.
#pragma once

#include <filesystem>

#include <boost/json.hpp>

#include "shim/core/result.h"
#include "shim/linux/sys.h"
#include "shim/session/store/record.h"

namespace sandshim::session {

// Where the context's root is mounted (its spec's root.path), when it has a layer of its own.
std::filesystem::path ContextRoot(const std::filesystem::path& context_dir);
// Mounts the context's layer and points spec's root at it; nothing for a session without a
// native overlay layer (gVisor, --no-layer): the context keeps the session's root.
Status MountContextLayer(const SessionRecord& s, const std::filesystem::path& session_dir,
                         const std::filesystem::path& context_dir, boost::json::object& spec, native::Sys& sys = native::LinuxSys());
// Idempotent: nothing mounted (or no directory) is done.
Status UnmountContextLayer(const std::filesystem::path& context_dir, native::Sys& sys = native::LinuxSys());

}  // namespace sandshim::session
