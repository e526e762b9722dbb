// The rootfs cache: content-addressed entries, published atomically, shared read-only.
//   <cache>/<key>/rootfs/     the root filesystem sessions mount read-only
//   <cache>/<key>/meta.json   key, source, creation time, image config
//   <cache>/.locks/<key>.lock flock(2) held while building or removing <key>
//   <cache>/.tmp-<key>-XXXXXX work in progress (or an interrupted build's remains)
// Only root may enter: <cache> and every directory made for it are 0700, and so is each entry
// (review H3). Images hold other users' files and world-writable /tmp dirs; through a 0755
// cache any local user could reach them. Root runs both backends' setup (overlay mounts,
// runsc's gofer), so sessions still read it.
// An entry exists only once complete: it is built under .tmp-* and rename(2)d into place, so
// a reader sees all of it or nothing. Builders of one key serialize on its lock and the
// later ones find the entry done, so concurrent builds of one image do the work once.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "rootfs-builder/image_config.h"
#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::rootfs {

inline constexpr const char* kDefaultCacheDir = "/var/lib/sandshim/rootfs";

struct CacheEntry {
  std::string key, source, created;
  std::filesystem::path dir, rootfs;
  ImageConfig config;
  bool keep_privileged = false;
  bool in_use = false;
};

struct GcReport {
  std::vector<std::string> removed, kept, errors;
};

class Cache {
 public:
  // Made absolute: entry paths end up in session records and are compared with them.
  explicit Cache(const std::filesystem::path& dir) : dir_(std::filesystem::absolute(dir).lexically_normal()) {}
  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path EntryDir(const std::string& key) const { return dir_ / key; }

  // Makes the cache directory (and missing parents) 0700; an existing sandshim cache (it has
  // .locks) made 0755 by an older version is closed too. Any other existing directory keeps
  // its mode: --cache may name a directory that is not ours to chmod.
  Status Create() const;
  // The complete entry for key, or nullopt.
  Result<std::optional<CacheEntry>> Find(const std::string& key) const;
  // Blocks until key's lock is ours; released when the fd closes.
  Result<UniqueFd> Lock(const std::string& key) const;
  // A fresh work directory for key (mode 0700 until published).
  Result<std::filesystem::path> MakeTemp(const std::string& key) const;
  // Writes meta.json into tmp and renames it to the entry. Caller holds the lock.
  Status Publish(const std::filesystem::path& tmp, const CacheEntry& e) const;
  // Entries, sorted by key; in_use set from the given session rootfs paths.
  Result<std::vector<CacheEntry>> List(const std::vector<std::filesystem::path>& in_use = {}) const;
  // Removes an entry (under its lock): renamed away first, so it vanishes at once.
  Status Remove(const std::string& key) const;
  // Removes entries no session uses and the remains of interrupted builds.
  GcReport Gc(const std::vector<std::filesystem::path>& in_use) const;

 private:
  std::filesystem::path dir_;
};

// Whether key looks like one of ours (64 lowercase hex): keys become path names.
bool IsKey(std::string_view key);
// Whether path lies at or below dir (lexically, after normalization).
bool IsInside(const std::filesystem::path& path, const std::filesystem::path& dir);

}  // namespace sandshim::rootfs
