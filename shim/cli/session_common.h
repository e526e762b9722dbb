// Shared by the `session` verbs: opening the session store and printing records.
#pragma once

#include "shim/cli/verbs.h"
#include "shim/session/sessions.h"

namespace sandshim::cli {

Result<session::Sessions> OpenSessions(const GlobalOpts& g);
boost::json::object SessionJson(const session::SessionRecord& r);
// One line per session for people: id, name, backend, status, last used, workspace.
void PrintSessionTable(const std::vector<session::SessionRecord>& all);

void RegisterSessionCreate(Verbs& v, CLI::App* parent);
void RegisterSessionExec(Verbs& v, CLI::App* parent);
void RegisterSessionList(Verbs& v, CLI::App* parent);
void RegisterSessionInspect(Verbs& v, CLI::App* parent);
void RegisterSessionStopStart(Verbs& v, CLI::App* parent);
void RegisterSessionDelete(Verbs& v, CLI::App* parent);
void RegisterSessionGc(Verbs& v, CLI::App* parent);
void RegisterSessionContext(Verbs& v, CLI::App* parent);

}  // namespace sandshim::cli
