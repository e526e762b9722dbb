// Credential contexts (docs/CONTEXTS.md): the spec of a context's container, derived by pure
// code from the session's own spec. A context shares what the session's spec mounts (the base
// root, the workspace, --mount binds) and gets its own process namespace, /tmp (the spec's
// tmpfs, mounted anew per container), environment and user.
//
// On gVisor the container joins the session's sandbox (the CRI annotations runsc reads,
// runsc/pod.h), so a context costs no second kernel; on the native backend it joins the
// network namespace it is given (its own in proxy mode, else the session's) and makes the
// rest anew.
#pragma once

#include "bundle/secret_spec.h"
#include "shim/net/secret_bytes.h"

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::session {

// The name every plain `session exec` runs in.
inline constexpr const char* kDefaultContext = "default";

struct ContextOptions {
  std::string name;
  std::map<std::string, std::string> env;   // over the session's environment
  std::optional<uint32_t> uid, gid;          // nullopt: the session's user
  std::vector<std::string> allow_domains, deny_domains;
  // The context's own secrets (docs/CONTEXTS.md): its env gets placeholders, the relay the
  // values (over its control socket, scoped to this context's egress identity). The values
  // are read by the CLI from their sources and live only here until delivered.
  std::vector<bundle::SecretSpec> secrets;
  std::map<std::string, net::SecretBytes> secret_values;
  // The platform's context: the tools it runs treat the workspace as data (trusted_context.h).
  bool trusted = false;
};

// Context names: letters, digits, '_', '-', '.' (no '+', which separates name and session in
// the container id), at most 64 characters.
Status ValidateContextName(std::string_view name);
// The runtime container id of a context: "ctx-<name>+<session id>", unique because a name
// holds no '+'.
std::string ContextContainerId(std::string_view session_id, std::string_view name);

// Where the context's container gets its network: joins the gVisor sandbox of
// session_container (whose netstack is the sandbox's), or the native session's namespace at
// netns_path.
struct ContextPlacement {
  // The context is a container in the session's sandbox (BackendTraits::contexts_in_sandbox,
  // gVisor); else namespaces of its own on the host (native).
  bool in_session_sandbox = false;
  std::string session_container;  // the session's own container id
  std::string netns_path;         // native: the network namespace to join (empty: host network)
  // gVisor: the host path of the context helper (ctx_helper.h); empty: no broker (the
  // context shares the sandbox's network namespace: hostinet, --network host).
  std::string broker_path;
  // ...and of the exec client (bound at kCtxRunPath); empty: execs use the helper's own
  // `run` (not made any more, kept for a caller that gives none).
  std::string run_path;
  // gVisor with a broker, proxy mode: "PORT=ADDR:PORT", the loopback port the broker serves
  // and the relay address its outside half carries the connections to.
  std::string forward;
  // gVisor with a broker, proxy mode, a relay that reads path lines: the host path of the
  // container's path key file (PathKeyFile), bound read-only at ctx::kPathFile.
  std::string path_file;
  // The container's own home directory on the host (context_home.h), bound at kContextHome,
  // and the session's trusted tools (trusted_context.h), bound read-only at kTrustedDir.
  std::string home_path, trusted_path;
};

// gVisor: whether contexts of a session with this spec get a network namespace of their own
// through a broker: only where the sandbox runs its own netstack (not hostinet, not the host
// network), since only netstack can make one.
bool BrokerNetwork(const boost::json::object& session_spec);
// A session exec's process into a context whose init is the broker: the broker's client
// (kCtxRunPath where the context's spec binds it; contexts made before it: `kCtxHelperPath run`) as
// root (with the exec's capabilities, environment, terminal), told the exec's user, groups and
// directory. The capability the context's init holds only to make its namespace is taken
// out, unless cap_add (the exec's --cap-add) asks for it. end_leftovers: the broker ends what
// the command started when it ends (a client of this sandshim's own only: an older one keeps,
// as it always did). lifeline: the exec's descriptor (3, 4, ...) that only the host's
// `session exec` holds the other end of; the client ends the command when it closes (the CLI
// killed, even by SIGKILL). Given only to a client of this sandshim's own (OwnRunClient).
// Pure but for the client's name (ctx_helper.h).
Result<boost::json::object> ThroughBroker(boost::json::object process, const boost::json::object& context_spec,
                                          const std::vector<std::string>& cap_add, bool end_leftovers = false,
                                          int lifeline = 0);
// Whether the context's exec client is this sandshim's own (it takes every flag ThroughBroker gives).
bool OwnRunClient(const boost::json::object& context_spec);
// Whether a context's spec binds the exec client at kCtxRunPath; UnbindRunClient takes that
// bind out (a spare made by a sandshim before the client has none: its execs use the helper's
// own `run`). Pure.
bool BindsRunClient(const boost::json::object& spec);
void UnbindRunClient(boost::json::object& spec);
// Whether a context container's spec binds the trusted tools (a spare made before them does not).
bool BindsTrustedTools(const boost::json::object& spec);
// Whether a context's spec has the broker as its init.
bool HasBroker(const boost::json::object& spec);
// Its execs' default user ("UID:GID"; the init itself is root), empty for other specs.
std::string BrokerExecUser(const boost::json::object& context_spec);

// The context's spec from the session's (pure). env values replace the session's; proxy_env
// (the context's own proxy variables, may be empty) replaces HTTP(S)_PROXY and lowercase forms.
// A named context's HOME is its own home (where at has one) unless its env gives one; a
// trusted context's environment gets TrustedEnv over everything else.
Result<boost::json::object> ContextSpec(boost::json::object session_spec, const ContextOptions& o,
                                        const ContextPlacement& at,
                                        const std::map<std::string, std::string>& proxy_env = {});

// The spec a gVisor context's container is made from (pure): ContextSpec bound to no context
// (no environment, user or name of a context's own). What makes a context particular is
// applied per exec from the context's bundle (its ContextSpec: ExecTargetFor) or lives in the
// relay (egress identity, secrets), so a spare container made before its context existed
// (context_spare.h) serves it exactly as one made for it; cold creates use it too.
Result<boost::json::object> ContextContainerSpec(boost::json::object session_spec, const ContextPlacement& at);

}  // namespace sandshim::session
