// `rootfs`: cached, read-only root filesystems for sessions (build, list, rm, gc).
#include "shim/cli/rootfs_common.h"

#include "bundle/spec.h"
#include "shim/core/fs.h"

namespace sandshim::cli {

void AddCacheOption(CLI::App* sub, std::string& cache) {
  sub->add_option("--cache", cache, "rootfs cache directory")->envname("SANDSHIM_ROOTFS_CACHE")->capture_default_str();
}

std::vector<std::filesystem::path> SessionRootfsPaths(const GlobalOpts& g) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (const auto& d : std::filesystem::directory_iterator(std::filesystem::path(g.root) / "@sessions", ec)) {
    auto text = fs::ReadFile(d.path() / "session.json");
    if (!text) continue;
    auto v = bundle::ParseJson(*text, "session.json");
    if (!v || !v->is_object()) continue;
    if (auto r = bundle::GetString(v->get_object(), "rootfs"); !r.empty()) out.emplace_back(r);
  }
  return out;
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
