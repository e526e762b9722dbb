// `session create`: build a session's bundle from a profile file and flags, start its sandbox.
#include <cctype>
#include <iostream>
#include <sstream>

#include "bundle/session_profile.h"
#include "rootfs-builder/rootfs.h"
#include "shim/cli/env_arg.h"
#include "shim/cli/session_common.h"
#include "shim/core/fs.h"
#include "shim/core/ids.h"

namespace sandshim::cli {

struct SessionCreateArgs {
  std::string id, name, profile_file, rootfs, image, rootfs_cache = rootfs::kDefaultCacheDir, workspace,
      workspace_dest, proxy, user, hostname, memory, network, tmp_size;
  std::vector<std::string> env, env_files, mounts, allow_domains, deny_domains, allow_cidrs, resolve;
  std::string egress_policy;
  bool allow_private = false;
  double cpus = 0;
  int64_t pids = 0;
  bool json = false, read_only_root = false;
};

// Profile file first, then every flag that was given: the command line wins.
// HTTP_PROXY, https_proxy, NO_PROXY, ALL_PROXY… in either case.
static bool IsProxyVariable(std::string_view k) {
  std::string u(k);
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u == "HTTP_PROXY" || u == "HTTPS_PROXY" || u == "NO_PROXY" || u == "ALL_PROXY" || u == "FTP_PROXY";
}

static Result<bundle::SessionProfile> Profile(const SessionCreateArgs& a, CLI::App* sub) {
  bundle::SessionProfile p;
  bundle::ProfileExtras extras;
  if (!a.profile_file.empty()) TRY(bundle::LoadProfileFile(a.profile_file, &p, &extras));
  auto given = [&](const char* flag) { return sub->count(flag) > 0; };
  if (given("--rootfs")) p.rootfs = a.rootfs;
  if (given("--workspace")) p.workspace = a.workspace;
  if (given("--workspace-dest")) p.workspace_dest = a.workspace_dest;
  if (given("--proxy")) p.proxy = a.proxy;
  if (given("--hostname")) p.hostname = a.hostname;
  if (given("--network")) p.network = a.network;
  if (given("--tmp-size")) p.tmp_size = a.tmp_size;
  if (given("--cpus")) p.cpus = a.cpus;
  if (given("--pids")) p.pids = a.pids;
  if (given("--memory")) p.memory_bytes = TRY(bundle::ParseBytes(a.memory));
  if (given("--read-only-root")) p.writable_layer = !a.read_only_root;
  if (given("--user")) {
    auto [uid, gid] = TRY(bundle::ParseUser(a.user));
    p.uid = uid;
    p.gid = gid.value_or(uid);
  }
  for (const auto& f : a.env_files) {
    auto text = TRY_CTX(fs::ReadFile(f), "--env-file " + f);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      p.env.insert_or_assign(TRY(bundle::ParseEnv(line)).first, line.substr(line.find('=') + 1));
    }
  }
  for (const auto& arg : a.env) {
    auto kv = TRY(ResolveEnvArg(arg));
    auto [k, v] = TRY(bundle::ParseEnv(kv));
    p.env.insert_or_assign(k, v);
  }
  for (const auto& m : a.mounts) p.mounts.push_back(TRY(bundle::ParseMount(m)));
  // Egress rules add to the profile's; a policy file replaces the profile's network_policy.
  p.allow_domains.insert(p.allow_domains.end(), a.allow_domains.begin(), a.allow_domains.end());
  p.deny_domains.insert(p.deny_domains.end(), a.deny_domains.begin(), a.deny_domains.end());
  p.allow_cidrs.insert(p.allow_cidrs.end(), a.allow_cidrs.begin(), a.allow_cidrs.end());
  if (given("--allow-private")) p.allow_private = a.allow_private;
  if (given("--egress-policy")) p.egress_policy_json = TRY_CTX(fs::ReadFile(a.egress_policy), "--egress-policy");
  std::string image = given("--image") ? a.image : extras.image;
  if (given("--rootfs")) image.clear();  // the command line wins over a profile's image
  // Neither a rootfs nor an image: the default base, built once by the rootfs builder, so
  // `session create --workspace DIR` is enough to start.
  if (image.empty() && p.rootfs.empty()) image = std::string(rootfs::kDefaultImage);
  if (!image.empty()) {  // built once into the shared cache, then reused by every session
    rootfs::Progress progress = rootfs::Progress::Auto(a.json);
    auto built = TRY(rootfs::BuildOrReuse(image, {a.rootfs_cache, &progress}));
    progress.Done();
    p.rootfs = built.rootfs.string();
    // The image's environment (PATH, language versions) under ours: profile and flags win.
    // Never its proxy variables: an image's NO_PROXY=* or HTTP_PROXY would silently steer
    // the sandbox's traffic around the proxy sandshim set (harmless in proxy mode, where
    // the relay is the only way out, but a lie in host mode).
    for (const auto& kv : built.config.env)
      if (auto e = bundle::ParseEnv(kv); e && !p.env.count(e->first) && !IsProxyVariable(e->first))
        p.env.emplace(e->first, e->second);
  }
  if (p.workspace.empty()) return MakeError("--workspace is required", EINVAL);
  TRY(bundle::CheckProxyCredentials(p.proxy, p.network));
  return p;
}

void RegisterSessionCreate(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<SessionCreateArgs>();
  auto self = std::make_shared<CLI::App*>(nullptr);
  auto* sub = v.Add("create", "create a session around a workspace and start it", [&v, a, self] {
    auto p = Profile(*a, *self);
    if (!p) return ExitWith(Status(p.error().Wrap("session create")));
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    if (a->id.empty()) {  // the caller names none: make one (printed first, as always)
      auto id = NewId("s-");
      if (!id) return ExitWith(Status(id.error().Wrap("session create")));
      a->id = *id;
    }
    auto r = s->Create(a->id, a->name, *p, a->resolve);
    if (!r) return ExitWith(Status(r.error().Wrap("session create " + a->id)));
    if (a->json) PrintJson(SessionJson(*r));
    else std::cout << r->id << "\t" << r->backend << "\t" << r->workspace << "\n";
    return 0;
  }, parent);
  *self = sub;
  sub->add_option("id", a->id, "session id (letters, digits, _+-.); made up and printed when omitted");
  sub->add_option("--name", a->name, "a unique name; every session verb accepts it instead of the id");
  sub->add_option("--profile", a->profile_file, "JSON profile with defaults (flags win): docs/SESSIONS.md");
  auto* rootfs_opt = sub->add_option("--rootfs", a->rootfs, "base root filesystem (shared, never written)");
  auto* image = sub->add_option("--image", a->image, "build or reuse the base rootfs from a source (see rootfs build)");
  rootfs_opt->excludes(image);
  sub->add_option("--rootfs-cache", a->rootfs_cache, "rootfs cache for --image")
      ->envname("SANDSHIM_ROOTFS_CACHE")->capture_default_str();
  sub->add_option("--workspace", a->workspace, "host directory mounted read-write");
  sub->add_option("--workspace-dest", a->workspace_dest, "where the workspace appears (default /workspace)");
  sub->add_option("--mount", a->mounts, "SRC:DST[:ro] (repeatable)")->allow_extra_args(false);
  sub->add_option("-e,--env", a->env, "KEY=VALUE, or KEY: its value from sandshim's environment, for secrets (never VALUE on "
                  "argv, ps shows it); repeatable; nothing else of the caller's environment enters")
      ->allow_extra_args(false);
  sub->add_option("--env-file", a->env_files, "file of KEY=VALUE lines (repeatable)")->allow_extra_args(false);
  sub->add_option("--proxy", a->proxy,
                  "URL for HTTP_PROXY/HTTPS_PROXY (and lowercase), NO_PROXY=localhost; with --network proxy, "
                  "the relay's upstream instead");
  sub->add_option("--user", a->user, "uid[:gid] of the session's processes (default 1000:1000)");
  sub->add_option("--hostname", a->hostname, "hostname inside (default sandbox)");
  sub->add_option("--memory", a->memory, "memory limit, e.g. 512m");
  sub->add_option("--cpus", a->cpus, "CPU limit, e.g. 1.5");
  sub->add_option("--pids", a->pids, "process limit");
  sub->add_option("--network", a->network,
                  "none (default: loopback only), proxy (loopback + a filtering relay, the only way out) "
                  "or host (explicit opt-in)")
      ->check(CLI::IsMember({"none", "proxy", "host"}));
  sub->add_option("--allow-domain", a->allow_domains,
                  "proxy mode: allow a host: example.com, *.example.com, .example.com, host:443, an IP (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--deny-domain", a->deny_domains, "proxy mode: deny a host, same forms; deny wins (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--allow-cidr", a->allow_cidrs, "proxy mode: allow destination addresses in this CIDR (repeatable)")
      ->allow_extra_args(false);
  sub->add_flag("--allow-private", a->allow_private, "proxy mode: allow private, CGNAT and unique-local addresses");
  sub->add_option("--egress-policy", a->egress_policy,
                  "proxy mode: JSON policy ({\"network\":{\"allowedDomains\":[...],\"allowedRegistries\":[...]}})");
  sub->add_option("--egress-resolve", a->resolve, "test seam: NAME=IP fixed answers for the relay's resolver")
      ->allow_extra_args(false)
      ->group("");  // hidden
  sub->add_option("--tmp-size", a->tmp_size, "size of the tmpfs /tmp (default 256m)");
  sub->add_flag("--read-only-root", a->read_only_root,
                "no writable layer: the root is the base, read-only (default: a private writable layer)");
  sub->add_flag("--json", a->json, "print the session as JSON");
}

}  // namespace sandshim::cli
