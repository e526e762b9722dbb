// `rootfs build SOURCE`: build (or find in the cache) a rootfs; prints its path.
#include <iostream>

#include "bundle/session_spec.h"
#include "shim/cli/rootfs_common.h"

namespace sandshim::cli {

struct RootfsBuildArgs {
  std::string source, cache = rootfs::kDefaultCacheDir, mirror, docker_host, busybox = "/bin/busybox";
  std::string max_bytes, max_entries;  // empty: $SANDSHIM_ROOTFS_MAX_* or the defaults
  bool json = false, keep_privileged = false;
};

// --max-bytes/--max-entries over the environment's (or the default) limits.
static Result<rootfs::Budget> Limits(const RootfsBuildArgs& a) {
  rootfs::Budget b = TRY(rootfs::BudgetFromEnv());
  if (!a.max_bytes.empty()) b.max_bytes = static_cast<uint64_t>(TRY_CTX(bundle::ParseBytes(a.max_bytes), "--max-bytes"));
  if (!a.max_entries.empty()) {
    auto n = TRY_CTX(bundle::ParseBytes(a.max_entries), "--max-entries");  // a plain count; k/m/g allowed
    b.max_entries = static_cast<uint64_t>(n);
  }
  return b;
}

void RegisterRootfsBuild(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<RootfsBuildArgs>();
  auto* sub = v.Add("build", "build a rootfs from SOURCE, or reuse the cached one; prints its path", [a] {
    rootfs::Progress progress = rootfs::Progress::Auto(a->json);
    auto limits = Limits(*a);
    if (!limits) return ExitWith(Status(limits.error()));
    rootfs::BuildOptions o{a->cache, &progress, a->busybox, a->mirror, a->docker_host, a->keep_privileged, *limits};
    auto r = rootfs::BuildOrReuse(a->source, o);
    progress.Done();
    if (!r) return ExitWith(Status(r.error()));
    if (a->json)
      PrintJson(boost::json::object{{"key", r->key},
                                    {"path", r->rootfs.string()},
                                    {"source", r->source},
                                    {"reused", r->reused},
                                    {"keep_privileged", r->keep_privileged},
                                    {"config", rootfs::ToJson(r->config)}});
    else std::cout << r->rootfs.string() << "\n";
    return 0;
  }, parent);
  sub->add_option("source", a->source,
                  "busybox | debootstrap:SUITE | docker:IMAGE | oci:DIR[:TAG] | oci-archive:FILE[:TAG] | tar:FILE")
      ->required();
  AddCacheOption(sub, a->cache);
  sub->add_option("--mirror", a->mirror, "debootstrap mirror (default: the one apt uses)");
  sub->add_option("--docker-host", a->docker_host, "docker daemon for docker: sources (default: $DOCKER_HOST)");
  sub->add_option("--busybox", a->busybox, "static busybox for the busybox source")->capture_default_str();
  sub->add_flag("--keep-privileged", a->keep_privileged,
                "trusted source: keep setuid/setgid bits, file capabilities and device nodes (stripped by default)");
  sub->add_option("--max-bytes", a->max_bytes, "limit on what the build writes, e.g. 2g (env SANDSHIM_ROOTFS_MAX_BYTES; default 16g)");
  sub->add_option("--max-entries", a->max_entries, "limit on archive entries (env SANDSHIM_ROOTFS_MAX_ENTRIES; default 2000000)");
  sub->add_flag("--json", a->json, "print key, path, source, reused and image config as JSON; no progress");
}

}  // namespace sandshim::cli
