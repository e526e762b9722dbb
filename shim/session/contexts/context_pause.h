// A gVisor session's credential contexts across pause and resume (context_pause.cc): their
// containers end before the checkpoint and run again after the restore; everything else of a
// context (its directory, its egress entry) stays on the host meanwhile.
#pragma once

#include <filesystem>

#include "shim/runtime/containers.h"
#include "shim/session/store/record.h"

namespace sandshim::session {

// Deletes each context's container (ENOENT is fine: idempotent); keeps the contexts.
Status EndContextContainers(runtime::Containers& containers, const std::filesystem::path& session_dir);
// After a restore: runs each context's container again (same id, same spec as it was made
// with; "default" first) and, new_relay, declares the contexts' secrets to the session's new
// relay (never to the old one: a declaration drops the value it holds).
Status RebuildContexts(runtime::Containers& containers, const std::filesystem::path& session_dir,
                       const SessionRecord& s, bool new_relay);

}  // namespace sandshim::session
