// A warm pool's definition (docs/POOL.md): how many pre-booted sandboxes to keep, when to
// refill, and the session profile every member is created from. Written by `pool define`
// from a pool file into <root>/@pool/<name>/pool.json (0600: the profile may hold env
// values). Pure parsing here; the pool's directories are PoolPaths.
//
//   {"size": 10, "low_water": 5, "workspace_parent": "/srv/ws",
//    "profile": {"image": "busybox", "memory": "512m", "network": "none", ...},
//    "from_snapshot": "warm-py"}   // #35: members restored from this session snapshot
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>
#include <string>

#include "shim/core/result.h"
#include "shim/session/store/layout.h"

namespace sandshim::session {

struct PoolDef {
  std::string name;
  uint32_t size = 0;
  // A claim that leaves fewer ready members than this starts a refill (up to size).
  uint32_t low_water = 0;
  // Where members' workspaces are made; a claimed workspace is renamed within it (or to
  // the caller's --workspace, which must then be on the same filesystem).
  std::filesystem::path workspace_parent;
  boost::json::object profile;  // a session profile file's shape (bundle/session_profile.h)
  // #35: members (and the cold creates of misses) are restored from this session snapshot
  // (<root>/@snapshots/<name>, `session snapshot`) instead of booted, so a claim hands out its
  // warm state. The profile must be the snapshot source's flags (the same mounts); members
  // keep the plain workspace layout of that source (no shared parent: an existing workspace
  // is then a miss, served by a restore too). Empty: members are booted.
  std::string from_snapshot;
  // sha256 of the definition as written: members record it, and a member of an older
  // definition is never handed out (fill drains it).
  std::string generation;
};

// Checks the pool file's shape (unknown keys are errors); workspace_parent defaults to
// default_workspace_parent. The profile's own keys are checked when a member is made.
// A workspace_parent the pool file names: no symlink on the way, not "/" or a system directory.
Status CheckWorkspaceParent(const std::filesystem::path& parent);
Result<PoolDef> ParsePoolDef(const std::string& name, std::string_view text,
                             const std::filesystem::path& default_workspace_parent);

struct PoolPaths {
  PoolPaths(const std::filesystem::path& root, const std::string& name)
      : dir(RootLayout(root).pool(name)),
        def(dir / layout::kPoolDef),
        profile(dir / layout::kPoolProfile),
        lock(dir / layout::kLock),
        fill_lock(dir / layout::kPoolFillLock),
        members(dir / layout::kPoolMembers),
        claims(dir / layout::kPoolClaims),
        stats(dir / layout::kPoolStats),
        default_workspaces(dir / layout::kPoolWorkspaces) {}
  std::filesystem::path dir, def, profile, lock, fill_lock, members, claims, stats, default_workspaces;
};

// The snapshot a pool file names (from_snapshot) in the pools under root: the first pool
// using it, or empty (what `session snapshot --rm` refuses to pull from under a pool).
std::string PoolUsingSnapshot(const std::filesystem::path& root, const std::string& snapshot);

// A member's workspace before it is claimed: <workspace_parent>/.member-<member id>.
std::filesystem::path MemberWorkspace(const PoolDef& d, const std::string& member);

}  // namespace sandshim::session
