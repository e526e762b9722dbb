// The session layer's host seam: the mounts, binds, links, renames and ownership changes a
// session create, a pool claim and a context create make on the host go through the
// native runtime's Sys (one way to make a system call behind a seam), so each factory is
// unit-tested without root over tests/fakes/recording_sys.h. The Sys is the options' (a
// Sessions, Contexts or Pool hands it on with them); none given: the real calls.
#pragma once

#include <filesystem>
#include <string>

#include "shim/core/result.h"
#include "shim/linux/sys.h"
#include "shim/runtime/containers.h"

namespace sandshim::session {

inline native::Sys& HostOf(const runtime::Options& o) { return o.host_sys ? *o.host_sys : native::LinuxSys(); }

// mkdir that finds an existing directory done.
Status HostMkdir(native::Sys& sys, const std::filesystem::path& dir, mode_t mode);
// rename(2) that never replaces what is at to (RENAME_NOREPLACE).
Status HostRenameNoReplace(native::Sys& sys, const std::filesystem::path& from, const std::filesystem::path& to);
// unlink that finds a missing file done.
Status HostUnlink(native::Sys& sys, const std::filesystem::path& file);

}  // namespace sandshim::session
