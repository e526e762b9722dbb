// `session create`: build a session's bundle from flags and start its sandbox.
#include <iostream>

#include "rootfs-builder/rootfs.h"
#include "shim/cli/session_common.h"

namespace sandshim::cli {

struct SessionCreateArgs {
  std::string id, memory, user = "1000:1000", image, rootfs_cache = rootfs::kDefaultCacheDir;
  std::vector<std::string> env, mounts;
  bundle::SessionProfile p;
  bool json = false;
};

static Result<bundle::SessionProfile> Profile(SessionCreateArgs& a) {
  bundle::SessionProfile p = a.p;
  for (const auto& kv : a.env) p.env.insert(TRY(bundle::ParseEnv(kv)));
  for (const auto& m : a.mounts) p.mounts.push_back(TRY(bundle::ParseMount(m)));
  if (!a.memory.empty()) p.memory_bytes = TRY(bundle::ParseBytes(a.memory));
  if (a.p.rootfs.empty() && a.image.empty()) return MakeError("--rootfs or --image is required", EINVAL);
  if (!a.image.empty()) {  // built once into the shared cache, then reused by every session
    rootfs::Progress progress = rootfs::Progress::Auto(a.json);
    p.rootfs = TRY(rootfs::BuildOrReuse(a.image, {a.rootfs_cache, &progress})).rootfs.string();
    progress.Done();
  }
  auto [uid, gid] = TRY(bundle::ParseUser(a.user));
  p.uid = uid;
  p.gid = gid.value_or(uid);
  return p;
}

void RegisterSessionCreate(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<SessionCreateArgs>();
  auto* sub = v.Add("create", "create a session around a workspace and start it", [&v, a] {
    auto p = Profile(*a);
    if (!p) return ExitWith(Status(p.error().Wrap("session create")));
    auto s = OpenSessions(v.global);
    if (!s) return ExitWith(Status(s.error()));
    auto r = s->Create(a->id, *p);
    if (!r) return ExitWith(Status(r.error().Wrap("session create " + a->id)));
    if (a->json) PrintJson(SessionJson(*r));
    else std::cout << r->id << "\t" << r->backend << "\t" << r->workspace << "\n";
    return 0;
  }, parent);
  sub->add_option("id", a->id, "session id (letters, digits, _+-.)")->required();
  auto* rootfs_opt = sub->add_option("--rootfs", a->p.rootfs, "base root filesystem (shared, read-only)");
  auto* image = sub->add_option("--image", a->image, "build or reuse the rootfs from a source (see rootfs build)");
  rootfs_opt->excludes(image);
  sub->add_option("--rootfs-cache", a->rootfs_cache, "rootfs cache for --image")
      ->envname("SANDSHIM_ROOTFS_CACHE")->capture_default_str();
  sub->add_option("--workspace", a->p.workspace, "host directory mounted read-write")->required();
  sub->add_option("--workspace-dest", a->p.workspace_dest, "where the workspace appears")->capture_default_str();
  sub->add_option("--mount", a->mounts, "SRC:DST[:ro] (repeatable)")->allow_extra_args(false);
  sub->add_option("-e,--env", a->env, "KEY=VALUE (repeatable); nothing else of the caller's environment enters")
      ->allow_extra_args(false);
  sub->add_option("--proxy", a->p.proxy, "URL for HTTP_PROXY/HTTPS_PROXY (and lowercase), NO_PROXY=localhost");
  sub->add_option("--user", a->user, "uid[:gid] of the session's processes")->capture_default_str();
  sub->add_option("--hostname", a->p.hostname, "hostname inside")->capture_default_str();
  sub->add_option("--memory", a->memory, "memory limit, e.g. 512m");
  sub->add_option("--cpus", a->p.cpus, "CPU limit, e.g. 1.5");
  sub->add_option("--pids", a->p.pids, "process limit");
  sub->add_option("--network", a->p.network, "none (default) or host")->check(CLI::IsMember({"none", "host"}));
  sub->add_option("--tmp-size", a->p.tmp_size, "size of the tmpfs /tmp")->capture_default_str();
  sub->add_flag("--json", a->json, "print the session as JSON");
}

}  // namespace sandshim::cli
