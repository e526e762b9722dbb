// Shared by the `rootfs` verbs: the cache flag and the set of rootfs paths live sessions use.
#pragma once

#include <filesystem>
#include <vector>

#include "rootfs-builder/rootfs.h"
#include "shim/cli/verbs.h"

namespace sandshim::cli {

// Adds --cache DIR (env SANDSHIM_ROOTFS_CACHE) to a rootfs subcommand.
void AddCacheOption(CLI::App* sub, std::string& cache);
// The rootfs paths the sessions under --root use (session::RootfsInUse); an unreadable
// record is an error, never "unused".
Result<std::vector<std::filesystem::path>> SessionRootfsPaths(const GlobalOpts& g);
boost::json::object EntryJson(const rootfs::CacheEntry& e);

void RegisterRootfsBuild(Verbs& v, CLI::App* parent);
void RegisterRootfsList(Verbs& v, CLI::App* parent);
void RegisterRootfsRm(Verbs& v, CLI::App* parent);
void RegisterRootfsGc(Verbs& v, CLI::App* parent);

}  // namespace sandshim::cli
