// The audit trail of a session: one JSON object per line, appended with a single write(2) on
// an O_APPEND descriptor so concurrent execs never interleave within a line. It lives outside
// the runtime root (default /var/log/sandshim/sessions/<id>.jsonl) and outlives the session.
// Only what happened is written — argv, cwd, exit status, duration, byte counts, backend —
// never an environment value: callers pass env keys only.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <string>

#include "shim/core/result.h"

namespace sandshim::session {

// Adds "ts" and "event" to fields and appends the line to file (creating it 0600).
Status AppendAudit(const std::filesystem::path& file, std::string_view event, boost::json::object fields);

}  // namespace sandshim::session
