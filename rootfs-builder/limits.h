// Bounds on what one build may write (review M13): a 10 KB zstd bomb must not fill
// /var/lib, which holds the cache and its temp build dirs, and an index.json must not be read
// into memory whatever its size. One Budget is shared by every archive a build unpacks (an
// oci-archive's layout, then each layer), so the limit is on the build, not per file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "shim/core/result.h"

namespace sandshim::rootfs {

inline constexpr uint64_t kDefaultMaxBytes = uint64_t{16} << 30;  // 16 GiB
inline constexpr uint64_t kDefaultMaxEntries = 2'000'000;
// Manifests, configs, indexes: real ones are a few KB; 4 MiB is generous.
inline constexpr size_t kMaxJsonBlob = size_t{4} << 20;

struct Budget {
  uint64_t max_bytes = kDefaultMaxBytes;  // apparent sizes: a sparse 1 TB file counts 1 TB
  uint64_t max_entries = kDefaultMaxEntries;
  uint64_t bytes = 0, entries = 0;
  // Adds one entry of `bytes` bytes before it is written; EFBIG once over either limit.
  Status Charge(uint64_t bytes);
};

// The limits from $SANDSHIM_ROOTFS_MAX_BYTES (a size: 512m, 16g…) and
// $SANDSHIM_ROOTFS_MAX_ENTRIES, the defaults where unset; an error for a value that is set
// but not a number (a typo must not mean "unlimited").
Result<Budget> BudgetFromEnv();

}  // namespace sandshim::rootfs
