// `rootfs list`: the cache's entries and whether a session uses them.
#include <iostream>

#include "shim/cli/rootfs_common.h"

namespace sandshim::cli {

void RegisterRootfsList(Verbs& v, CLI::App* parent) {
  auto cache = std::make_shared<std::string>(rootfs::kDefaultCacheDir);
  auto json = std::make_shared<bool>(false);
  auto* sub = v.Add("list", "list cached rootfs entries", [&v, cache, json] {
    auto used = SessionRootfsPaths(v.global);
    if (!used) return ExitWith(Status(used.error().Wrap("rootfs list")));
    auto entries = rootfs::Cache(*cache).List(*used);
    if (!entries) return ExitWith(Status(entries.error()));
    if (*json) {
      boost::json::array out;
      for (const auto& e : *entries) out.push_back(EntryJson(e));
      PrintJson(out);
      return 0;
    }
    for (const auto& e : *entries)
      std::cout << e.key.substr(0, 12) << "\t" << (e.in_use ? "in-use" : "unused") << "\t" << e.created << "\t"
                << e.source << "\n";
    return 0;
  }, parent);
  AddCacheOption(sub, *cache);
  sub->add_flag("--json", *json, "print the entries as JSON");
}

}  // namespace sandshim::cli
