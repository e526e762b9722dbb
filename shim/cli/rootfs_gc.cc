// `rootfs rm` and `rootfs gc`: remove one entry, or every entry no session uses.
#include <iostream>

#include "shim/cli/rootfs_common.h"

namespace sandshim::cli {

struct RootfsRmArgs {
  std::string target, cache = rootfs::kDefaultCacheDir;
  bool force = false;
};

void RegisterRootfsRm(Verbs& v, CLI::App* parent) {
  auto a = std::make_shared<RootfsRmArgs>();
  auto* sub = v.Add("rm", "remove a cached rootfs by key (or key prefix) or by source", [&v, a] {
    rootfs::Cache cache(a->cache);
    auto used = SessionRootfsPaths(v.global);
    if (!used) return ExitWith(Status(used.error().Wrap("rootfs rm")));
    auto entries = cache.List(*used);
    if (!entries) return ExitWith(Status(entries.error()));
    // A unique key prefix as `list` prints it, else a source ref whose key we compute.
    std::vector<const rootfs::CacheEntry*> hits;
    for (const auto& e : *entries)
      if (a->target.size() >= 6 && e.key.starts_with(a->target)) hits.push_back(&e);
    std::string key;
    if (hits.size() == 1) key = hits[0]->key;
    else if (hits.size() > 1) return ExitWith(Status(MakeError("rootfs rm: key prefix " + a->target + " is ambiguous")));
    else {
      rootfs::BuildOptions o;
      o.cache_dir = a->cache;
      auto k = rootfs::ResolveKey(a->target, o);
      if (!k) return ExitWith(Status(k.error().Wrap("rootfs rm")));
      key = *k;
    }
    for (const auto& e : *entries)
      if (e.key == key && e.in_use && !a->force)
        return ExitWith(Status(MakeError("rootfs rm: " + key.substr(0, 12) + " is used by a session (--force to remove)")));
    auto s = cache.Remove(key);
    if (!s) return ExitWith(Status(s.error().Wrap("rootfs rm")));
    std::cout << "removed " << key << "\n";
    return 0;
  }, parent);
  sub->add_option("target", a->target, "KEY, key prefix or SOURCE")->required();
  AddCacheOption(sub, a->cache);
  sub->add_flag("--force", a->force, "remove even if a session uses it");
}

void RegisterRootfsGc(Verbs& v, CLI::App* parent) {
  auto cache = std::make_shared<std::string>(rootfs::kDefaultCacheDir);
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add("gc", "remove cached rootfs entries no session uses", [&v, cache, json] {
    auto used = SessionRootfsPaths(v.global);
    if (!used) return ExitWith(Status(used.error().Wrap("rootfs gc")));
    auto report = rootfs::Cache(*cache).Gc(*used);
    if (*json) {
      auto arr = [](const std::vector<std::string>& v) { return boost::json::array(v.begin(), v.end()); };
      PrintJson(boost::json::object{{"removed", arr(report.removed)}, {"kept", arr(report.kept)},
                                    {"errors", arr(report.errors)}});
    } else {
      for (const auto& r : report.removed) std::cout << "removed " << r << "\n";
      for (const auto& e : report.errors) std::cerr << "sandshim: rootfs gc: " << e << "\n";
    }
    return report.errors.empty() ? 0 : 1;
  }, parent);
  AddCacheOption(sub, *cache);
  sub->add_flag("--json", *json, "print the report as JSON");
}

}  // namespace sandshim::cli
