// `session create`: parse the flags, resolve the profile (session::ResolveProfile), create the session.
#include <iostream>

#include "rootfs-builder/rootfs.h"
#include "shim/cli/env_arg.h"
#include "shim/cli/session_common.h"
#include "shim/core/ids.h"
#include "shim/core/log.h"
#include "shim/session/contexts/context_spare.h"
#include "shim/session/contexts/contexts.h"
#include "shim/session/exec/resolve_profile.h"

namespace sandshim::cli {

struct SessionCreateArgs {
  std::string id, name, profile_file, rootfs, image, rootfs_cache = rootfs::kDefaultCacheDir, workspace,
      workspace_dest, proxy, user, hostname, memory, network, network_stack, tmp_size, pool;
  std::vector<std::string> env, env_files, mounts, allow_domains, deny_domains, allow_cidrs, resolve;
  std::string egress_policy;
  std::vector<std::string> secrets, secret_files, secret_fds, secret_envs;  // docs/SECRETS.md
  std::string secret_trust;
  std::string policy, sources;  // #19
  std::string from_snapshot;    // #35: session snapshot (sessions.h)
  bool allow_private = false;
  double cpus = 0;
  int64_t pids = 0;
  int context_spares = 0;  // gVisor: spare context containers made now (docs/CONTEXTS.md)
  bool json = false, read_only_root = false;
};

// Only the flags that were given: the session layer lays them over the profile file.
static Result<session::ProfileInputs> Inputs(const SessionCreateArgs& a, CLI::App* sub, rootfs::Progress* progress) {
  session::ProfileInputs in;
  auto given = [&](const char* flag) { return sub->count(flag) > 0; };
  auto flag = [&](const char* name, const std::string& v) { return given(name) ? std::optional(v) : std::nullopt; };
  in.profile_file = a.profile_file;
  in.rootfs = flag("--rootfs", a.rootfs);
  in.image = flag("--image", a.image);
  in.workspace = flag("--workspace", a.workspace);
  in.workspace_dest = flag("--workspace-dest", a.workspace_dest);
  in.proxy = flag("--proxy", a.proxy);
  in.hostname = flag("--hostname", a.hostname);
  in.network = flag("--network", a.network);
  in.network_stack = flag("--network-stack", a.network_stack);
  in.tmp_size = flag("--tmp-size", a.tmp_size);
  in.memory = flag("--memory", a.memory);
  in.user = flag("--user", a.user);
  in.egress_policy_file = flag("--egress-policy", a.egress_policy);
  in.policy_file = flag("--policy", a.policy);
  in.sources_file = flag("--sources", a.sources);
  if (given("--cpus")) in.cpus = a.cpus;
  if (given("--pids")) in.pids = a.pids;
  if (given("--read-only-root")) in.read_only_root = a.read_only_root;
  if (given("--allow-private")) in.allow_private = a.allow_private;
  for (const auto& arg : a.env) in.env.push_back(TRY(ResolveEnvArg(arg, /*forget=*/true)));  // `-e K`: from our environment
  in.env_files = a.env_files;
  in.mounts = a.mounts;
  in.allow_domains = a.allow_domains;
  in.deny_domains = a.deny_domains;
  in.allow_cidrs = a.allow_cidrs;
  in.rootfs_cache = a.rootfs_cache;
  in.progress = progress;
  return in;
}

// --secret and its value sources add to the profile's (the values themselves are read later).
static Status AddSecretFlags(const SessionCreateArgs& a, bundle::SessionProfile& p) {
  for (const auto& s : a.secrets) p.secrets.push_back(TRY(bundle::ParseSecretSpec(s)));
  using K = bundle::SecretSourceKind;
  for (auto [kind, list] : {std::pair{K::kFile, &a.secret_files}, {K::kFd, &a.secret_fds}, {K::kEnv, &a.secret_envs}})
    for (const auto& s : *list) p.secret_sources.push_back(TRY(bundle::ParseSecretSource(kind, s)));
  if (!a.secret_trust.empty()) p.secret_trust_bundle = std::filesystem::absolute(a.secret_trust).string();
  return Ok();
}

static Result<bundle::SessionProfile> Profile(const SessionCreateArgs& a, CLI::App* sub) {
  rootfs::Progress progress = rootfs::Progress::Auto(a.json);
  auto p = TRY(session::ResolveProfile(TRY(Inputs(a, sub, &progress))));
  TRY(AddSecretFlags(a, p));
  return p;
}

// The session asked for spare context containers: made before we return, so its first
// context create (which also makes "default") claims them. A failure leaves a working session
// whose creates go cold: a warning, not an error.
static void WarmContextSpares(const GlobalOpts& g, session::Sessions& sessions, const std::string& id, int depth) {
  auto opts = RuntimeOptions(g);
  if (!opts) return log::Warn("session create " + id + ": --context-spares: " + opts.error().msg);
  session::Contexts contexts(*opts, sessions);
  auto refill = SelfArgv(g);
  if (!refill.empty()) refill.insert(refill.end(), {"session", "context", "refill"});
  contexts.SetRefillArgv(std::move(refill));
  if (auto w = contexts.WarmSpares(id, depth); !w)
    log::Warn("session create " + id + ": --context-spares: " + w.error().msg + " (context creates go cold)");
}

// --pool: a pre-booted member (docs/POOL.md), claimed with the flags given; the --secret flags
// alone go along, as a claim serves them cold.
static int CreateFromPoolFlags(const GlobalOpts& g, const SessionCreateArgs& a, CLI::App* sub) {
  auto in = Inputs(a, sub, nullptr);
  if (!in) return ExitWith(Status(in.error().Wrap("session create")));
  bundle::SessionProfile secrets;
  if (auto s = AddSecretFlags(a, secrets); !s) return ExitWith(Status(s.error().Wrap("session create")));
  return CreateFromPool(g, a.pool, a.id, a.name, std::move(*in), secrets, a.resolve, a.json);
}

// The verb's action: the flags checked, the profile resolved, the session created and printed.
static int CreateSession(const GlobalOpts& g, SessionCreateArgs& a, CLI::App* sub) {
  // An empty id given is a mistake (a shell variable that was not set), not "make one up" (N10).
  if (sub->get_option("id")->count() > 0 && a.id.empty())
    return ExitWith(Status(MakeError("session create: the session id is empty", EINVAL)));
  if (!a.pool.empty() && a.context_spares > 0)
    return ExitWith(Status(MakeError("session create: --context-spares is not for --pool sessions", EINVAL)));
  if (!a.pool.empty()) return CreateFromPoolFlags(g, a, sub);
  auto p = Profile(a, sub);
  if (!p) return ExitWith(Status(p.error().Wrap("session create")));
  auto s = OpenSessions(g);
  if (!s) return ExitWith(Status(s.error()));
  if (a.id.empty()) {  // the caller names none: make one (printed first, as always)
    auto id = NewId("s-");
    if (!id) return ExitWith(Status(id.error().Wrap("session create")));
    a.id = *id;
  }
  auto r = s->Create(a.id, a.name, *p, a.resolve, a.from_snapshot);
  if (!r) return ExitWith(Status(r.error().Wrap("session create " + a.id)));
  if (a.context_spares > 0) WarmContextSpares(g, *s, r->id, a.context_spares);
  if (a.json) PrintJson(SessionJson(*r));
  else std::cout << r->id << "\t" << r->backend << "\t" << r->workspace << "\n";
  return 0;
}

// The options are added in four runs, in the order --help lists them.
// What the session is made of: its names, base, workspace, environment, user and limits.
static void AddSessionOptions(CLI::App* sub, SessionCreateArgs& a) {
  sub->add_option("id", a.id, "session id (letters, digits, _+-.); made up and printed when omitted");
  sub->add_option("--name", a.name, "a unique name; every session verb accepts it instead of the id");
  sub->add_option("--pool", a.pool, "claim a pre-booted sandbox of this pool (sandshim pool); cold create if none");
  sub->add_option("--profile", a.profile_file, "JSON profile with defaults (flags win): docs/SESSIONS.md");
  auto* rootfs_opt = sub->add_option("--rootfs", a.rootfs, "base root filesystem (shared, never written)");
  auto* image = sub->add_option("--image", a.image, "build or reuse the base rootfs from a source (see rootfs build)");
  rootfs_opt->excludes(image);
  sub->add_option("--rootfs-cache", a.rootfs_cache, "rootfs cache for --image")
      ->envname("SANDSHIM_ROOTFS_CACHE")->capture_default_str();
  sub->add_option("--workspace", a.workspace, "host directory mounted read-write");
  sub->add_option("--workspace-dest", a.workspace_dest, "where the workspace appears (default /workspace)");
  sub->add_option("--mount", a.mounts, "SRC:DST[:ro] (repeatable)")->allow_extra_args(false);
  sub->add_option("-e,--env", a.env, "KEY=VALUE, or KEY: its value from sandshim's environment, for secrets (never VALUE on "
                  "argv, ps shows it); repeatable; nothing else of the caller's environment enters")
      ->allow_extra_args(false);
  sub->add_option("--env-file", a.env_files, "file of KEY=VALUE lines (repeatable)")->allow_extra_args(false);
  sub->add_option("--proxy", a.proxy,
                  "URL for HTTP_PROXY/HTTPS_PROXY (and lowercase), NO_PROXY=localhost; with --network proxy, "
                  "the relay's upstream instead");
  sub->add_option("--user", a.user, "uid[:gid] of the session's processes (default 1000:1000)");
  sub->add_option("--hostname", a.hostname, "hostname inside (default sandbox)");
  sub->add_option("--memory", a.memory, "memory limit, e.g. 512m");
  sub->add_option("--cpus", a.cpus, "CPU limit, e.g. 1.5");
  sub->add_option("--pids", a.pids, "process limit");
}

// How it reaches the network, and the command policy.
static void AddEgressOptions(CLI::App* sub, SessionCreateArgs& a) {
  sub->add_option("--network", a.network,
                  "none (default: loopback only), proxy (loopback + a filtering relay, the only way out) "
                  "or host (explicit opt-in)")
      ->check(CLI::IsMember({"none", "proxy", "host"}));
  sub->add_option("--network-stack", a.network_stack,
                  "proxy mode on gVisor: netstack (default: gVisor's own network stack) or hostinet (the host "
                  "kernel's stack inside the session's namespace: exposes more of the host kernel)")
      ->check(CLI::IsMember({"netstack", "hostinet"}));
  sub->add_option("--allow-domain", a.allow_domains,
                  "proxy mode: allow a host: example.com, *.example.com, .example.com, host:443, an IP (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--deny-domain", a.deny_domains, "proxy mode: deny a host, same forms; deny wins (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--allow-cidr", a.allow_cidrs, "proxy mode: allow destination addresses in this CIDR (repeatable)")
      ->allow_extra_args(false);
  sub->add_flag("--allow-private", a.allow_private, "proxy mode: allow private, CGNAT and unique-local addresses");
  sub->add_option("--egress-policy", a.egress_policy,
                  "proxy mode: JSON policy ({\"network\":{\"allowedDomains\":[...],\"allowedRegistries\":[...]}})");
  sub->add_option("--policy", a.policy,
                  "command policy: {\"permissions\":{\"allow\":[...],\"deny\":[...]}}, judged at every exec (docs/POLICY.md)");
  sub->add_option("--sources", a.sources,
                  "sources.json: registries, blocked packages, git remotes, web domains, exec limits (docs/POLICY.md)");
  sub->add_option("--egress-resolve", a.resolve, "test seam: NAME=IP fixed answers for the relay's resolver")
      ->allow_extra_args(false)->group("");  // hidden
}

// Secrets the proxy puts into requests (docs/SECRETS.md).
static void AddSecretOptions(CLI::App* sub, SessionCreateArgs& a) {
  sub->add_option("--secret", a.secrets,
                  "proxy mode: NAME:host=HOST[,host=HOST][:header=Authorization: Bearer {}]; NAME holds a placeholder "
                  "inside, the proxy puts the value into requests to HOST only (repeatable; docs/SECRETS.md)")
      ->allow_extra_args(false);
  sub->add_option("--secret-file", a.secret_files, "NAME=PATH: a secret's value from a file")->allow_extra_args(false);
  sub->add_option("--secret-fd", a.secret_fds, "NAME=FD: a secret's value from an inherited descriptor")
      ->allow_extra_args(false);
  sub->add_option("--secret-env", a.secret_envs, "NAME=VAR: a secret's value from sandshim's environment")
      ->allow_extra_args(false);
  sub->add_option("--secret-trust-bundle", a.secret_trust,
                  "CA bundle the proxy verifies origins it intercepts with (default: the host's store)");
}

void RegisterSessionCreate(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<SessionCreateArgs>();
  auto self = std::make_shared<CLI::App*>(nullptr);
  auto* sub = v.Add("create", "create a session around a workspace and start it",
                    [&v, a, self] { return CreateSession(v.global, *a, *self); }, parent);
  *self = sub;
  AddSessionOptions(sub, *a);
  AddEgressOptions(sub, *a);
  AddSecretOptions(sub, *a);
  sub->add_option("--tmp-size", a->tmp_size, "size of the tmpfs /tmp (default 256m)");
  sub->add_option("--from-snapshot", a->from_snapshot, "gVisor: restored from this session snapshot (same flags as its source)");
  sub->add_flag("--read-only-root", a->read_only_root,
                "no writable layer: the root is the base, read-only (default: a private writable layer)");
  sub->add_option("--context-spares", a->context_spares,
                  "gVisor: keep N spare context containers (made now, ~9 MiB each), so the first context create "
                  "(it also makes \"default\") and the next ones claim instead of going cold (docs/CONTEXTS.md)")
      ->check(CLI::Range(1, session::kMaxSpareDepth));
  sub->add_flag("--json", a->json, "print the session as JSON");
}

}  // namespace sandshim::cli
