// Host-wide defaults from /etc/sandshim/config.json (or $SANDSHIM_CONFIG), overridden per call
// by global flags. A missing file means built-in defaults; a malformed one is an error, never
// silently ignored: it may be what asks for fail-closed gVisor.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "shim/core/result.h"

namespace sandshim::runtime {

struct Config {
  std::string backend = "auto";           // auto | gvisor | native
  std::string runsc = "runsc";            // binary name or path
  std::vector<std::string> runsc_flags;   // extra global runsc flags; win over sandshim's policy
  std::string platform;                   // empty: probe
  // Lets a container's dev.sandshim.backend=native annotation move it off gVisor under
  // "auto". Off: whoever starts a container could otherwise choose weaker isolation.
  bool allow_annotation_downgrade = false;
  std::filesystem::path cache_dir = "/run/sandshim/cache";
  // Session audit logs (<audit_dir>/<session>.jsonl): outside the runtime root, so they
  // outlive the sessions they describe.
  std::filesystem::path audit_dir = "/var/log/sandshim/sessions";
  // The registry of workspace guards (session/workspace/workspace_guard.h): host-wide, so the
  // sessions of every state root that share a workspace share its one nosuid guard.
  std::filesystem::path workspace_guards = "/run/sandshim/@workspace-guards";
};

std::filesystem::path DefaultConfigPath();
Result<Config> LoadConfig(const std::filesystem::path& file);
Result<Config> ParseConfig(std::string_view text);

}  // namespace sandshim::runtime
