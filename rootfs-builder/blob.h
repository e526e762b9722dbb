// Reading the files of an image layout (blobs, index.json, a docker save's manifest.json),
// which untrusted hands filled (review M10). Each is opened beneath the layout directory with
// openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS): a blob that is a symlink to /etc/shadow is an
// error, not a size and hash oracle. O_NONBLOCK and a regular-file check: a FIFO or a device
// (/dev/zero) is refused at once instead of hanging the build under its key's lock. Each
// file is read once, through that fd: what is verified is what is used (review H4).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "rootfs-builder/limits.h"
#include "shim/core/result.h"
#include "shim/core/unique_fd.h"

namespace sandshim::rootfs {

// rel: a clean relative path inside dir. The fd is a regular file's, at offset 0.
Result<UniqueFd> OpenBlob(const std::filesystem::path& dir, const std::string& rel);
// The whole file, refused when larger than max (JSON documents: manifests, configs, indexes).
Result<std::string> ReadSmallBlob(const std::filesystem::path& dir, const std::string& rel,
                                  size_t max = kMaxJsonBlob);
// sha256 (hex) and size of the bytes in fd, read from offset 0 with pread.
Result<std::string> Sha256Fd(int fd, uint64_t* size);
// Refuses content whose sha256 (and size, when size >= 0) differ from the descriptor's.
Status VerifyBytes(std::string_view bytes, std::string_view digest, int64_t size = -1);
Status VerifyFd(int fd, std::string_view digest, int64_t size = -1);

}  // namespace sandshim::rootfs
