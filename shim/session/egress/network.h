// A session's network in `proxy` mode: its own network namespace, holding loopback and one
// end of a veth pair (eth0, kSandboxAddress/30), and a relay namespace holding the other end
// (relay0, kRelayAddress/30), where the relay listens: the only way out, filtered and audited
// by sandshim's proxy. gVisor's netstack takes eth0 over (it copies the namespace's
// interfaces and routes, and takes their addresses), so the sandbox's packets never meet the
// host kernel's stack until the relay; with hostinet or the native backend the host kernel
// serves eth0 inside the namespace. The link's /30 holds nothing else and there is no default
// route: the relay is all there is to reach. The namespaces are resources of the session's
// journal, recorded before they exist, so delete, a failed create's rollback and gc remove
// them whatever was interrupted (shim/net/egress.h has the undo); the veth pair lives and
// dies with them.
//
//   <session dir>/netns         the namespace file the spec joins
//   <session dir>/relay.netns   the relay's namespace (sessions made before it: none, and the
//                               relay listens on 127.0.0.1 inside netns)
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
#include "shim/session/store/session_steps.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

struct NetworkPaths {
  explicit NetworkPaths(const std::filesystem::path& session_dir)
      : netns(session_dir / layout::kNetns),
        pid_file(session_dir / layout::kRelayPid),
        log(session_dir / layout::kRelayLog),
        policy(session_dir / layout::kEgressPolicy),
        contexts(session_dir / layout::kEgressContexts),
        relay_netns(session_dir / layout::kRelayNetns) {}
  // contexts: the credential contexts' proxy identities (net/context_egress.h), 0600.
  std::filesystem::path netns, pid_file, log, policy, contexts, relay_netns;
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

// Journals and creates both namespaces, links them, writes the policy file, journals and
// starts the relay.
Status SetUpProxyNetwork(SessionJournal& journal, const NetworkPaths& paths, const RelayPolicy& policy,
                         const std::vector<std::string>& relay_args);

// The relay of a stopped session again (its journal entry is still there), and its end.
// Safe while the sandbox runs (a pool's claim restarts the relay with its own rules).

Status StartSessionRelay(const NetworkPaths& paths, const std::vector<std::string>& relay_args);
Status StopSessionRelay(const NetworkPaths& paths);
// The sandbox's end of the link gets its address again, for a sandbox about to start:
// netstack took it off the host kernel's interface when the previous one started. Never
// while a sandbox runs: on netstack the host kernel would then also claim the address
// netstack serves, on the same interface.
Status AddressSandboxEnd(const NetworkPaths& paths);
// True when the relay recorded in the pid file is alive.
bool RelayAlive(const NetworkPaths& paths);

}  // namespace sandshim::session
