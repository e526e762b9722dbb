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

// The canonical path of source, and its identity as {"path","dev","ino"}.
Result<boost::json::object> PinSource(const std::string& source);
// Every pinned source is still the same object, reached without symlinks.
Status VerifyPinned(const boost::json::array& pins);

}  // namespace sandshim::session
