// A session's network in `proxy` mode: its own network namespace (only loopback) and the
// relay inside it that is the only way out, filtered and audited by sandshim's proxy. Both are
// resources of the session's journal, recorded before they exist, so delete, a failed create's
// rollback and gc remove them whatever was interrupted (shim/net/egress.h has the undo).
//
//   <session dir>/netns         the namespace file the spec joins (runsc: host stack inside it)
//   <session dir>/relay.pid     the relay's pid + start time, written by the relay itself
//   <session dir>/relay.log     the relay's stderr
//   <session dir>/egress-policy.json   the profile's network_policy, when there is one
//
// The `none` mode needs nothing here (the spec asks for a fresh, empty namespace) and `host`
// has no namespace at all.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bundle/session_spec.h"
#include "shim/core/result.h"
#include "shim/net/policy_file.h"
#include "shim/runtime/journal.h"

namespace sandshim::session {

struct NetworkPaths {
  explicit NetworkPaths(const std::filesystem::path& session_dir)
      : netns(session_dir / "netns"),
        pid_file(session_dir / "relay.pid"),
        log(session_dir / "relay.log"),
        policy(session_dir / "egress-policy.json"),
        contexts(session_dir / "egress-contexts.json") {}
  // contexts: the credential contexts' proxy identities (net/context_egress.h), 0600.
  std::filesystem::path netns, pid_file, log, policy, contexts;
};

// The relay's policy, parsed once: the profile's network_policy with the user's proxy as its
// upstreamProxy. It reaches the relay as a file of mode 0600, never a command-line argument:
// a proxy URL may carry credentials, and every host user can read a process's argv.
// nullopt: neither a policy nor an upstream, so no file is needed.
using RelayPolicy = std::optional<net::EgressPolicy>;

// Checks the egress rules of p (domain rules, CIDRs, the policy document) before anything
// is created, so a typo fails the create with a clear error instead of a relay that dies;
// returns the relay's policy, which the create passes along as is.
Result<RelayPolicy> CheckEgressRules(const bundle::SessionProfile& p);

// The `sandshim proxy` flags of the session's relay (pure): p's rules, the policy file when
// there is a policy, the audit file and session id for the audit lines.
std::vector<std::string> RelayProxyArgs(const bundle::SessionProfile& p, const RelayPolicy& policy,
                                        const NetworkPaths& paths, const std::string& session,
                                        const std::string& audit_file, const std::vector<std::string>& resolve);

// Journals and creates the namespace, writes the policy file, journals and starts the relay.
Status SetUpProxyNetwork(runtime::Journal& journal, const NetworkPaths& paths, const RelayPolicy& policy,
                         const std::vector<std::string>& relay_args);

// The relay of a stopped session again (its journal entry is still there), and its end.
Status StartSessionRelay(const NetworkPaths& paths, const std::vector<std::string>& relay_args);
Status StopSessionRelay(const NetworkPaths& paths);
// True when the relay recorded in the pid file is alive.
bool RelayAlive(const NetworkPaths& paths);

}  // namespace sandshim::session
