// What contexts.cc (list, remove, undo) and contexts_create.cc (the create's steps) share:
// the context directory's files and the relays that serve a session. Not for other folders.
#pragma once

#include <filesystem>
#include <vector>

#include <boost/json.hpp>

#include "shim/session/contexts/context_record.h"
#include "shim/session/store/session_steps.h"

namespace sandshim::session::contexts_internal {

std::filesystem::path ContextsDir(const std::filesystem::path& session_dir);
std::filesystem::path RecordFile(const std::filesystem::path& context_dir);
std::filesystem::path ContextSecretSocket(const std::filesystem::path& context_dir);
// A context's record (context.json) from its directory.
Result<ContextRecord> ReadContext(const std::filesystem::path& context_dir);
// The user a spec's process runs as, into the record.
void SetUserFrom(const boost::json::object& spec, ContextRecord& rec);
// The control sockets of the session's relays but the context's own.
std::vector<std::filesystem::path> OtherRelaySockets(const std::filesystem::path& session_dir,
                                                     const std::filesystem::path& cdir);

}  // namespace sandshim::session::contexts_internal
