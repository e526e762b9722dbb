// session::ResolveProfile: the profile a session is created with, from its inputs in one
// order: the profile file, then every flag the caller gave (the command line wins), env
// files then --env, and the base rootfs: the given one, or an image built once into the
// shared cache (rootfs::BuildOrReuse) whose environment goes under ours. The CLI only parses
// flags into ProfileInputs; this is the session layer's business (and unit-tested).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bundle/session_profile.h"
#include "rootfs-builder/rootfs.h"

namespace sandshim::session {

struct ProfileInputs {
  std::string profile_file;  // empty: none
  // Flags as given; nullopt: not given, the profile's value (or the default) stays.
  std::optional<std::string> rootfs, image, workspace, workspace_dest, proxy, hostname, network, network_stack, tmp_size,
      memory, user;
  std::optional<std::string> egress_policy_file;  // replaces the profile's network_policy
  std::optional<std::string> policy_file, sources_file;  // #19: replace the profile's policy / sources
  std::optional<double> cpus;
  std::optional<int64_t> pids;
  std::optional<bool> read_only_root, allow_private;
  std::vector<std::string> env;  // KEY=VALUE, already resolved (the CLI reads `-e K` from its environment)
  std::vector<std::string> env_files, mounts, allow_domains, deny_domains, allow_cidrs;  // added to the profile's
  std::filesystem::path rootfs_cache = rootfs::kDefaultCacheDir;
  rootfs::Progress* progress = nullptr;  // nullptr: silent
};

using RootfsBuilder = std::function<Result<rootfs::BuiltRootfs>(const std::string& source, const rootfs::BuildOptions&)>;

// The environment in.env_files and in.env give (later keys win), alone: what a pool claim binds.
Result<std::map<std::string, std::string>> EnvFromInputs(const ProfileInputs& in);

// build: the rootfs builder (tests pass a fake); defaults to rootfs::BuildOrReuse.
Result<bundle::SessionProfile> ResolveProfile(const ProfileInputs& in, const RootfsBuilder& build = rootfs::BuildOrReuse);

}  // namespace sandshim::session
