// `rootfs`: cached, read-only root filesystems for sessions (build, list, rm, gc).
#include "shim/cli/rootfs_common.h"

#include "shim/session/workspace/rootfs_in_use.h"

namespace sandshim::cli {

void AddCacheOption(CLI::App* sub, std::string& cache) {
  sub->add_option("--cache", cache, "rootfs cache directory")->envname("SANDSHIM_ROOTFS_CACHE")->capture_default_str();
}

Result<std::vector<std::filesystem::path>> SessionRootfsPaths(const GlobalOpts& g) {
  return TRY_CTX(session::RootfsInUse(g.root), "the sessions' rootfs");
}

boost::json::object EntryJson(const rootfs::CacheEntry& e) {
  return {{"key", e.key},         {"path", e.rootfs.string()}, {"source", e.source},
          {"created", e.created}, {"in_use", e.in_use},        {"keep_privileged", e.keep_privileged},
          {"config", rootfs::ToJson(e.config)}};
}

void RegisterRootfs(Verbs& v) {
  CLI::App* s = v.app.add_subcommand("rootfs", "cached, read-only root filesystems for sessions: build, list, rm, gc");
  s->require_subcommand(1);
  RegisterRootfsBuild(v, s);
  RegisterRootfsList(v, s);
  RegisterRootfsRm(v, s);
  RegisterRootfsGc(v, s);
}

}  // namespace sandshim::cli
