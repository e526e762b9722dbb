// Safe extraction of untrusted tar archives (image layers, rootfs tarballs, image archives)
// into a target directory. libarchive reads (tar/pax/gnu, plain, gzip or zstd); we write,
// so every path is resolved by the kernel beneath a dirfd of the target with
// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS): nothing is ever created outside it and no
// link is followed while creating. Refused, with an error naming the entry:
//   - a ".." component or an absolute path,
//   - an entry whose parent path goes through a symlink (e.g. "a -> /etc" then "a/passwd"),
//   - a symlink whose target climbs above the root ("../../.."), judged as the container
//     will resolve it (absolute targets are anchored at the rootfs, so "/usr/bin/x" is fine),
//   - a hard link whose target is absolute, has "..", or is not an existing non-directory
//     inside the target.
// OCI layer semantics (whiteouts): ".wh.NAME" removes NAME from lower layers,
// ".wh..wh..opq" empties its directory of lower-layer content.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "rootfs-builder/progress.h"
#include "shim/core/result.h"

namespace sandshim::rootfs {

struct ExtractOptions {
  bool whiteouts = true;  // false for plain tarballs and image archives: ".wh." is just a name
  bool same_owner;        // chown entries to their numeric uid/gid (default: when root)
  Progress* progress = nullptr;
  // "sha256:…": the bytes are hashed as they are read and the extraction fails unless they
  // match, so a blob swapped after it was verified (a layout someone else can write) still
  // cannot land. The caller builds into a temp dir, so failing at the end is safe.
  std::string digest;
  ExtractOptions();
};

struct ExtractStats {
  uint64_t entries = 0;
  uint64_t skipped_devices = 0;  // device nodes we may not create (not root)
  uint64_t skipped_xattrs = 0;   // xattrs the filesystem or our privileges refused
};

// The entry's path made relative ("./a//b" → "a/b", "." → ""); an error for absolute paths
// and ".." components. Pure; unit-tested.
Result<std::string> CleanEntryPath(std::string_view name);
// Whether a symlink at entry path `link` (clean, relative) with target `target` stays inside
// the root when resolved lexically, absolute targets anchored at the root. Pure.
bool SymlinkStaysInside(std::string_view link, std::string_view target);

// Extracts archive into target (an existing directory).
Result<ExtractStats> Extract(const std::filesystem::path& archive, const std::filesystem::path& target,
                             const ExtractOptions& o);

// One regular file of an archive, read into memory (up to max_size): an image archive's
// index.json, to learn the image's identity without unpacking it.
Result<std::string> ReadArchiveMember(const std::filesystem::path& archive, std::string_view member,
                                      size_t max_size = 1 << 20);

}  // namespace sandshim::rootfs
