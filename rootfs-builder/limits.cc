#include "rootfs-builder/limits.h"

#include <stdlib.h>

#include <charconv>

#include "bundle/session_spec.h"

namespace sandshim::rootfs {

Status Budget::Charge(uint64_t n) {
  ++entries;
  bytes += n;
  if (entries > max_entries)
    return MakeError("more than " + std::to_string(max_entries) + " entries (SANDSHIM_ROOTFS_MAX_ENTRIES)", EFBIG);
  if (bytes > max_bytes || bytes < n)
    return MakeError("more than " + std::to_string(max_bytes) + " bytes (SANDSHIM_ROOTFS_MAX_BYTES)", EFBIG);
  return Ok();
}

Result<Budget> BudgetFromEnv() {
  Budget b;
  if (const char* s = ::getenv("SANDSHIM_ROOTFS_MAX_BYTES"); s && *s)
    b.max_bytes = static_cast<uint64_t>(TRY_CTX(bundle::ParseBytes(s), "SANDSHIM_ROOTFS_MAX_BYTES"));
  if (const char* s = ::getenv("SANDSHIM_ROOTFS_MAX_ENTRIES"); s && *s) {
    std::string_view v = s;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), b.max_entries);
    if (ec != std::errc() || p != v.data() + v.size())
      return MakeError("SANDSHIM_ROOTFS_MAX_ENTRIES: not a number: " + std::string(v), EINVAL);
  }
  return b;
}

}  // namespace sandshim::rootfs
