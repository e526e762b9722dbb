// The rootfs builder's API: turn a source ("busybox", "docker:IMG", "oci:DIR:TAG", …) into a
// cached, read-only, content-addressed root filesystem that sessions share. See
// docs/ARCHITECTURE.md ("rootfs-builder") for the cache layout and the safety rules.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "rootfs-builder/cache.h"
#include "rootfs-builder/image_config.h"
#include "rootfs-builder/limits.h"
#include "rootfs-builder/progress.h"
#include "rootfs-builder/source_ref.h"
#include "shim/core/result.h"

namespace sandshim::rootfs {

// The base a session gets when it names no rootfs or image: built from Debian's busybox-static.
inline constexpr std::string_view kDefaultImage = "busybox";

struct BuildOptions {
  std::filesystem::path cache_dir = kDefaultCacheDir;
  Progress* progress = nullptr;          // nullptr: silent
  std::string busybox = "/bin/busybox";  // a static busybox (Debian's busybox-static)
  std::string mirror;                    // debootstrap mirror; empty: the one apt uses
  std::string docker_host;               // empty: the docker CLI's default ($DOCKER_HOST)
  // A trusted source: keep setuid/setgid bits, file capabilities and device nodes (stripped
  // by default: review H3). Part of the key and recorded in meta.json.
  bool keep_privileged = false;
  std::optional<Budget> limits;  // unset: BudgetFromEnv() (16 GiB, 2M entries by default)
};

struct BuiltRootfs {
  std::string key;               // 64 hex digits: the cache entry's name
  std::filesystem::path rootfs;  // <cache>/<key>/rootfs: mount read-only
  std::string source;            // canonical source ref
  ImageConfig config;            // Env, Entrypoint, Cmd, WorkingDir, User of the image
  bool reused = false;           // true: found in the cache, nothing was built
  bool keep_privileged = false;  // built with setuid bits, file caps and devices kept
};

// Builds the rootfs for source_ref unless the cache has it. Safe to call concurrently from
// many processes: one builds, the others wait and reuse.
Result<BuiltRootfs> BuildOrReuse(const std::string& source_ref, const BuildOptions& opts);
// The cache key of a source, without building. Cheap for every kind except tar (hashes the
// file) and busybox (hashes the binary).
Result<std::string> KeyFor(const SourceRef& ref, const BuildOptions& opts);
// A key (64 hex) as given, or the key of a source ref.
Result<std::string> ResolveKey(const std::string& key_or_source, const BuildOptions& opts);

}  // namespace sandshim::rootfs
