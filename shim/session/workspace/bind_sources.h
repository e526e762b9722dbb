// The host directories a session binds in (its workspace, its --mount sources), pinned at
// create. Each is canonicalised once and recorded with its device and inode in
// <session dir>/sources.json; every start re-opens the recorded path with no symlink
// allowed in any component and refuses a different object. Without this, a sandbox that can
// write a directory on the way to another session's source (a shared cache mounted
// read-write elsewhere, a path inside a workspace) could swap it for a symlink to /etc, and
// the next start would bind that.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "shim/core/result.h"

namespace sandshim::session {

// A host path handed in (rootfs, workspace, --mount source, pool workspace_parent), resolved
// once: its canonical path. Refused (review N6, N7): the host's "/" itself, a host system
// directory itself (/etc, /usr, /proc, /sys, /dev, /boot, /root, /var/lib, ...), and a path
// that reaches one through a symlink. A path that names a place below a system directory
// without a symlink (--mount /etc/ssl/certs:/certs:ro) is the operator's explicit choice.
// `what` names the flag in the error.
Result<std::string> ResolveSource(const std::string& given, std::string_view what);
// Pure: why canonical (reached from the written path `given`) is refused, or "" (unit-tested).
std::string RefusedSource(const std::filesystem::path& given, const std::filesystem::path& canonical);

// The canonical path of source (ResolveSource's rules), and its identity as {"path","dev","ino"}.
Result<boost::json::object> PinSource(const std::string& source);
// Every pinned source is still the same object, reached without symlinks.
Status VerifyPinned(const boost::json::array& pins);

}  // namespace sandshim::session
