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
// Privileged bits are dropped unless keep_privileged (review H3): setuid/setgid on files,
// security.capability xattrs and device nodes, so no image puts a way to host root into the
// cache. Every entry is charged to a Budget (review M13). Names in errors are Quoted (L10).
#pragma once

#include <cstdint>
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "rootfs-builder/limits.h"
#include "rootfs-builder/progress.h"
#include "shim/core/result.h"

namespace sandshim::rootfs {

struct ExtractOptions {
  bool whiteouts = true;  // false for plain tarballs and image archives: ".wh." is just a name
  bool same_owner;        // chown entries to their numeric uid/gid (default: when root)
  bool keep_privileged = false;  // a trusted source: keep setuid/setgid, file caps, devices
  // Bits every entry's mode keeps (directories, files, nodes): a copy out of a session masks
  // what the tenant chose (set-ID, sticky, world-writable) before it lands in the caller's
  // tree; an image keeps /tmp's 1777.
  mode_t perm_mask = 07777;
  // An image layout (oci-archive, docker save), not a filesystem: host code reads it by path,
  // so it may hold only directories and regular files (hard links to them too), each path
  // once (a second index.json would be read by one step and not the other: review H4).
  // Anything else is refused, or left out with skip_links (docker save links its legacy
  // layer dirs to the blobs; nothing reads through them).
  bool layout = false;
  bool skip_links = false;
  Budget* budget = nullptr;  // shared by the build's archives; nullptr: unlimited
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
  uint64_t stripped = 0;         // setuid/setgid bits, file caps and device nodes dropped
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
// The same from an open file (a blob opened beneath its layout); `what` names it in errors.
Result<ExtractStats> ExtractFd(int fd, const std::string& what, const std::filesystem::path& target,
                               const ExtractOptions& o);

// One regular file of an archive, read into memory (up to max_size): an image archive's
// index.json, to learn the image's identity without unpacking it. An archive naming member
// twice is refused: extraction would keep the last, this would have read the first.
Result<std::string> ReadArchiveMember(const std::filesystem::path& archive, std::string_view member,
                                      size_t max_size = kMaxJsonBlob);

}  // namespace sandshim::rootfs
