// A session's command policy (#19, docs/POLICY.md): the profile's policy and sources.json,
// checked at create (ApplyCommandPolicy: bad input fails before anything exists; sources'
// hosts join the egress lists), kept in <session dir>/policy.json, and judged at every exec
// before anything runs (JudgeExec, pure). Policy is the front door; the sandbox stays the
// boundary.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "bundle/session_spec.h"
#include "shim/policy/decide.h"
#include "shim/policy/sources.h"
#include "shim/session/exec/exec_request.h"

namespace sandshim::session {

// Exit statuses of a refused exec: sh's 126/127 and our 124/125 stay unambiguous.
inline constexpr int kPolicyDenied = 77;
inline constexpr int kPolicyAsk = 78;

struct ExecPolicy {
  std::optional<policy::Policy> rules;  // nullopt: no policy (every command allowed)
  policy::Sources sources;
  std::string workspace = "/workspace";  // where the sandbox sees the workspace
};

// Parses a policy and a sources.json (either may be empty). workspace: ${WORKSPACE}.
Result<ExecPolicy> CompileExecPolicy(const std::string& policy_json, const std::string& sources_json,
                                     const std::string& workspace);
// Validates the profile's policy and sources; sources' registries, git remotes and web
// domains join allow_domains/deny_domains; network(outbound:*) denied refuses --network host.
Status ApplyCommandPolicy(bundle::SessionProfile& p);
// At create, into the session's directory (nothing when the profile has neither).
Status WriteExecPolicy(const std::filesystem::path& session_dir, const bundle::SessionProfile& p);
// At exec: nullopt when the session has no policy file.
Result<std::optional<ExecPolicy>> LoadExecPolicy(const std::filesystem::path& session_dir);

// sources.json's max_memory_mb for one exec: RLIMIT_AS on its process (the tighter of it
// and any the session already sets), which both backends apply to the exec'd process.
void LimitExecMemory(boost::json::object& process, int64_t bytes);
// gVisor starts an exec through the sandbox's control server, whose request carries no
// rlimits (measured: the exec kept the session's RLIMIT_AS): there the limit is set by a
// /bin/sh that then execs the command in its place (same process, same argv after it).
std::vector<std::string> UnderMemoryLimit(const std::vector<std::string>& argv, int64_t bytes);

// The command as judged and as approvals know it: argv, or --shell's script.
std::string ApprovalKey(const SessionExec& e);
// The decision for one exec. workspace: where an exec without --cwd starts.
policy::Verdict JudgeExec(const policy::Policy& rules, const SessionExec& e, const std::string& workspace);

}  // namespace sandshim::session
