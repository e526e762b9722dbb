// Shared by the `session` verbs: opening the session store and printing records.
#pragma once

#include "shim/cli/verbs.h"
#include "shim/session/exec/resolve_profile.h"
#include "shim/session/sessions.h"

namespace sandshim::cli {

Result<session::Sessions> OpenSessions(const GlobalOpts& g);
boost::json::object SessionJson(const session::SessionRecord& r);
// One line per session for people: id, name, backend, status, last used, workspace.
void PrintSessionTable(const std::vector<session::SessionRecord>& all);

void RegisterSessionCreate(Verbs& v, CLI::App* parent);
// session create --pool (session_create_pool.cc); in: the flags given.
int CreateFromPool(const GlobalOpts& g, const std::string& pool, std::string id, const std::string& name,
                   session::ProfileInputs in, const bundle::SessionProfile& secrets,
                   const std::vector<std::string>& resolve, bool json);
// Our binary with our global flags: how background helpers (refills) run sandshim; empty
// when our own path cannot be found.
std::vector<std::string> SelfArgv(const GlobalOpts& g);
// How a claim runs `pool fill NAME` in the background with our global flags.
std::vector<std::string> RefillArgv(const GlobalOpts& g, const std::string& pool);
void RegisterSessionExec(Verbs& v, CLI::App* parent);
void RegisterSessionList(Verbs& v, CLI::App* parent);
void RegisterSessionInspect(Verbs& v, CLI::App* parent);
void RegisterSessionStopStart(Verbs& v, CLI::App* parent);
void RegisterSessionPause(Verbs& v, CLI::App* parent);  // pause, resume (#35)
void RegisterSessionSnapshot(Verbs& v, CLI::App* parent);
void RegisterSessionDelete(Verbs& v, CLI::App* parent);
void RegisterSessionGc(Verbs& v, CLI::App* parent);
void RegisterSessionSecret(Verbs& v, CLI::App* parent);
void RegisterSessionApprovals(Verbs& v, CLI::App* parent);  // approve, reject, approvals (#19)
void RegisterSessionContext(Verbs& v, CLI::App* parent);
void RegisterSessionCp(Verbs& v, CLI::App* parent);     // #35 (session/files.h)
void RegisterSessionFiles(Verbs& v, CLI::App* parent);

}  // namespace sandshim::cli
