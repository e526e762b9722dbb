// `rootfs build SOURCE`: build (or find in the cache) a rootfs; prints its path.
#include <iostream>

#include "shim/cli/rootfs_common.h"

namespace sandshim::cli {

struct RootfsBuildArgs {
  std::string source, cache = rootfs::kDefaultCacheDir, mirror, docker_host, busybox = "/bin/busybox";
  bool json = false;
};

void RegisterRootfsBuild(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<RootfsBuildArgs>();
  auto* sub = v.Add("build", "build a rootfs from SOURCE, or reuse the cached one; prints its path", [a] {
    rootfs::Progress progress = rootfs::Progress::Auto(a->json);
    rootfs::BuildOptions o{a->cache, &progress, a->busybox, a->mirror, a->docker_host};
    auto r = rootfs::BuildOrReuse(a->source, o);
    progress.Done();
    if (!r) return ExitWith(Status(r.error()));
    if (a->json)
      PrintJson(boost::json::object{{"key", r->key},
                                    {"path", r->rootfs.string()},
                                    {"source", r->source},
                                    {"reused", r->reused},
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
  sub->add_flag("--json", a->json, "print key, path, source, reused and image config as JSON; no progress");
}

}  // namespace sandshim::cli
