// Deny rules at execve (#33, docs/POLICY.md "Which layer enforces what"): the session's side
// of exec-guard/. At create, a session whose policy has deny shell rules or blocked packages
// gets the guard, written into its directory and bound read-only at kGuardPath by its spec
// (both backends). At exec, the command runs under it with those rules and a pipe of ours as
// its audit descriptor; what it refused joins the session's audit trail, with the exec it
// came from. Contexts and pool members get no guard this release (their specs are made
// elsewhere): their execs are judged by the front door only.
#pragma once

#include <boost/json.hpp>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "bundle/session_spec.h"
#include "shim/core/result.h"

namespace sandshim::session {

// /.sshim, where the programs sandshim binds into a sandbox live. With the guard it is a
// read-only bind of a skeleton of empty mount points (<session>/sshim): root in the sandbox
// could otherwise rename /.sshim away and put a guard of its own at kGuardPath for every
// later exec (policy red team F12); a mount point is not renamed (EBUSY) nor written. Every
// bind below /.sshim (the guard; contexts' kCtxHelperPath, kCtxRunPath, kTrustedDir) needs
// its mount point here: session_context_test checks each path against these names.
inline constexpr const char* kToolsDir = "/.sshim";
inline constexpr std::string_view kToolsSkeletonFiles[] = {"guard", "ctx", "run"};
inline constexpr std::string_view kToolsSkeletonDirs[] = {"trusted"};
inline constexpr const char* kGuardPath = "/.sshim/guard";

// The embedded static guard (CMakeLists.txt: sandshim-guard).
std::string_view GuardBytes();
// At create: the guard in session_dir and its bind in spec, when the policy has rules for it.
Status AddExecGuard(boost::json::object& spec, const bundle::SessionProfile& p, const std::filesystem::path& session_dir);
// Everything a session's spec gets from its policy (#33): the mounts of deny file rules
// (policy_mounts.h), then the guard.
Status AddPolicyEnforcement(boost::json::object& spec, const bundle::SessionProfile& p, const std::filesystem::path& session_dir);
// Whether a container's spec binds the guard.
bool BindsGuard(const boost::json::value& spec_doc);
// Whether this exec runs under the guard: rules, a spec that binds it, and no
// SANDSHIM_TEST_NO_EXEC_GUARD=1 (a test-only switch: the policy suite's positive control).
bool WantGuard(const std::vector<std::string>& guard_rules, const boost::json::value& spec_doc);
// The process's args under the guard; audit_fd: the guard's number for our audit pipe (-1: none).
void UnderGuard(boost::json::object& process, const std::vector<std::string>& guard_rules, int audit_fd);
// What the guard wrote on the pipe (read until it is empty), as `execve` audit lines.
void AuditGuardRefusals(int fd, const std::filesystem::path& audit, const std::string& session,
                        const std::vector<std::string>& exec_argv);

}  // namespace sandshim::session
