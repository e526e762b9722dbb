// From a session profile to an OCI spec, by pure code: the base rootfs read-only, the
// workspace bind-mounted read-write, a sized tmpfs /tmp, an environment built from nothing
// (the caller's never leaks in) plus the proxy variables, an unprivileged user, limits, and a
// private network namespace unless the host network is asked for.
#pragma once

#include <boost/json.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bundle/secret_spec.h"
#include "shim/core/result.h"

namespace sandshim::bundle {

struct ExtraMount {
  std::string source, destination;
  bool readonly = false;
};

inline constexpr const char* kSharedWorkspaceMount = "/.sshim-ws";

inline constexpr const char* kDefaultTmpSize = "256m";  // at most half of --memory (session_spec.cc)

struct SessionProfile {
  std::string rootfs;                        // absolute path of the base root filesystem
  std::string workspace;                     // host directory, absolute
  std::string workspace_dest = "/workspace";
  std::vector<ExtraMount> mounts;
  std::map<std::string, std::string> env;    // on top of PATH/HOME/TERM defaults
  std::string proxy;                         // sets HTTP(S)_PROXY, NO_PROXY and lowercase forms
  uint32_t uid = 1000, gid = 1000;
  std::string hostname = "sandbox";
  int64_t memory_bytes = 0;                  // 0: none asked for (the host backstop still applies)
  double cpus = 0;                           // 0: no limit (CPU is shared by the scheduler, not used up)
  int64_t pids = 0;                          // 0: none asked for (kDefaultSessionPids applies)
  // none: a private namespace with only loopback. proxy: the same, joined by path
  // (netns_path, made by the session layer), with a relay on 127.0.0.1:kRelayPort inside
  // that is the only way out; the proxy variables point at it and `proxy` (if set) becomes
  // the relay's upstream. host: the host's network, explicit opt-in.
  std::string network = "none";
  std::string netns_path;
  // proxy mode on gVisor: netstack (gVisor's own stack takes over the sandbox's end of the
  // relay link) or hostinet (the host kernel's stack inside the namespace, explicit opt-in:
  // it exposes more of the host kernel to the sandbox). Native sessions use the host stack.
  std::string network_stack = "netstack";
  // proxy mode: what the relay lets through (see shim/net/policy_file.h for the file shape).
  std::vector<std::string> allow_domains, deny_domains, allow_cidrs;
  bool allow_private = false;
  std::string egress_policy_json;            // {"network": {"allowedDomains": [...], ...}}, or empty
  // proxy mode: secrets the relay injects (docs/SECRETS.md); where their values come from
  // (never the values), and the CA file intercepted origins are verified with (empty: the
  // host's store). The session layer adds each placeholder, the CA variables and mount.
  std::vector<SecretSpec> secrets;
  std::vector<SecretSource> secret_sources;
  std::string secret_trust_bundle;
  // #19: the command policy and sources.json (docs/POLICY.md), as JSON text, or empty.
  std::string command_policy_json, sources_json;
  std::string tmp_size = kDefaultTmpSize;
  // A per-session writable layer over the shared base (the base itself is never written):
  // the caller sets root_path to the merged directory, or asks gVisor for an overlay.
  bool writable_layer = true;
  std::string root_path;                     // empty: rootfs (read-only, no layer)
  // gVisor: the sandbox dies as a whole when its host cgroup runs out of memory, so the
  // limit is also set per process inside (RLIMIT_AS, which gVisor enforces: one hog fails
  // alone) and the host limit gets headroom for the sentry itself.
  bool limit_memory_inside = false;
  // Native, review M11: a user namespace mapping container 0..65535 to id_base.. (0: none),
  // and the workspace seen through an idmapped mount at workspace_source (empty: workspace).
  uint32_t id_base = 0;
  std::string workspace_source;
  // Warm pool members on gVisor (docs/POOL.md): the host directory P (a shared bind mount of
  // itself) mounted at kSharedWorkspaceMount instead of the workspace at workspace_dest; a
  // claim binds the session's workspace at P/ws, which workspace_dest (a symlink made in the
  // member after boot) names. The init starts in "/" (the claim sets process.cwd back).
  std::string shared_ws_parent;
};

// Review M7: a session without limits could take the host down (a fork bomb; a memory hog,
// or writes to a native session's layer, whose upper directory is on the state root's tmpfs
// and whose pages are charged to the session's memory cgroup). So every session has these
// unless it asks for its own: processes (gVisor: inside the sandbox, with the host backstop
// runsc/spec_fixups sizes) and the host memory cgroup. The memory default is a backstop on the
// host cgroup only, never RLIMIT_AS inside gVisor (which an explicit --memory sets): runtimes
// such as V8 and Go reserve far more address space than they use.
inline constexpr int64_t kDefaultSessionPids = 1024;
inline constexpr int64_t kDefaultSessionMemoryBackstop = 4ll << 30;
// CPU too (issue #34 item 6): two CPUs' worth of time per period unless --cpus says otherwise,
// so one session's busy loop cannot take every core of a larger host.
inline constexpr double kDefaultSessionCpus = 2.0;

// Where the relay listens for a proxy-mode session: on its end of a veth pair whose other end
// is the sandbox's only interface besides loopback (a /30, so the link holds nothing else;
// each session has its own pair of namespaces, so every session uses the same addresses).
inline constexpr uint16_t kRelayPort = 3128;
inline constexpr const char* kRelayAddress = "10.200.0.1";
inline constexpr const char* kSandboxAddress = "10.200.0.2";
inline constexpr int kRelayLinkPrefix = 30;
inline constexpr const char* kNetworkStacks = "netstack or hostinet";
// "netstack" or "hostinet": which of gVisor's stacks a container's network namespace gets,
// said by whoever made that namespace (a proxy session's spec) rather than guessed from its
// shape (shim/runsc/flags.h reads it; the native backend has only the host kernel's).
inline constexpr const char* kNetworkStackAnnotation = "dev.sandshim.network-stack";
// The environment the native runtime starts a container's init with instead of
// process.env (a JSON array of "K=V"): a credential context's init holds none of the
// context's values (its --env, its proxy credentials), which are its execs' only, read from
// process.env at each exec (issue #31: no context value in a long-lived host process).
inline constexpr const char* kInitEnvAnnotation = "dev.sandshim.init-env";
bool ValidNetworkStack(std::string_view stack);
inline constexpr const char* kNetworkModes = "none, proxy or host";
bool ValidNetworkMode(std::string_view mode);
// userinfo removed ("http://user:secret@proxy:3128" -> "http://proxy:3128"): records and
// audit lines name a proxy, never its credentials.
std::string RedactUrl(std::string_view url);
// L9: a proxy URL with credentials is refused outside the proxy network mode, where the
// proxy variables (and so the credentials) would sit in the sandbox's environment and
// config.json; in proxy mode the relay holds them on the host.
Status CheckProxyCredentials(std::string_view proxy, std::string_view network);

// Host memory limit for a per-process limit of `inside` bytes: a quarter more, at least 64 MiB.
int64_t HostMemoryWithHeadroom(int64_t inside);

// Parses "K=V"; the key must be a valid environment name.
Result<std::pair<std::string, std::string>> ParseEnv(std::string_view kv);
// --env-file FILE...: KEY=VALUE lines ('#' comments and blank lines skipped), in order, each
// checked as ParseEnv does: values kept off argv, where any host user's `ps` reads them.
Result<std::vector<std::pair<std::string, std::string>>> ReadEnvFiles(const std::vector<std::string>& files);
// Parses "SRC:DST[:ro]".
Result<ExtraMount> ParseMount(std::string_view spec);
// Parses sizes like "512m", "2g", "1048576".
Result<int64_t> ParseBytes(std::string_view s);
// The spec; the init process idles until killed (commands run through exec).
Result<boost::json::object> SessionSpec(const SessionProfile& p);

}  // namespace sandshim::bundle
